#!/bin/bash
# The notebook in the real window, as a user opens it: under Xvfb, `ferry NB.ipynb` (explore.ipynb
# without its last cell, its kernel's environment Debian's Python, in its metadata), Notebook ▸ Run
# All Cells through the menu's keys (xdotool), Ctrl+S until every code cell has run; then the
# saved notebook against `jupyter nbconvert --execute` on the same notebook
# (tests/data/notebooks/compare_executed.py, which also validates it). With OUT_PNG, a screenshot.
#   tests/gui/notebook-window.sh FERRY_BINARY [OUT_PNG]
set -euo pipefail
ferry=$1
shot=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
data=$here/data/notebooks
tmp=$(mktemp -d)
app=""
xvfb=""
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  if [ -d "$tmp/books/.ferry/kernels" ]; then
    for k in "$tmp"/books/.ferry/kernels/*/; do
      "$ferry" kernel stop "$(basename "$k")" --workspace "$tmp/books" >/dev/null 2>&1 || true
    done
  fi
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "notebook-window: $*" >&2; exit 1; }

mkdir -p "$tmp/books" "$tmp/config" "$tmp/runtime"
chmod 700 "$tmp/runtime"
cp "$data/numbers.txt" "$tmp/books/"
printf 'name: debian\nversion: 1\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n' > "$tmp/books/debian.yml"
/usr/bin/python3 - "$data/explore.ipynb" "$tmp/books" <<'PY'
import json, sys
nb = json.load(open(sys.argv[1]))
nb["cells"].pop()  # the error ends it: Run All stops there, as JupyterLab's does
json.dump(nb, open(sys.argv[2] + "/original.ipynb", "w"), indent=1)
nb["metadata"]["ferry"] = {"environment": "debian.yml", "target": "local"}
json.dump(nb, open(sys.argv[2] + "/explore.ipynb", "w"), indent=1)
PY

# A display of its own.
source "$(dirname "$0")/xvfb.sh"
start_xvfb 1600x1000x24

export XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/runtime
QT_QPA_PLATFORM=xcb "$ferry" "$tmp/books/explore.ipynb" >"$tmp/app.log" 2>&1 &
app=$!
window=$(timeout 60 xdotool search --sync --name 'explore.ipynb' | head -1) || fail "no window: $(tail -5 "$tmp/app.log")"
xdotool windowfocus --sync "$window" 2>/dev/null || true
sleep 1
# Notebook ▸ Run All Cells, by the menu's keys.
xdotool key --window "$window" alt+n
sleep 0.5
xdotool key --window "$window" a
done_cells() {
  /usr/bin/python3 -c 'import json,sys; nb=json.load(open(sys.argv[1])); c=[x for x in nb["cells"] if x["cell_type"]=="code"]; print(sum(1 for x in c if x.get("execution_count") is not None), len(c))' "$tmp/books/explore.ipynb"
}
for _ in $(seq 90); do
  sleep 1
  xdotool key --window "$window" ctrl+s
  sleep 0.3
  read -r ran total < <(done_cells)
  [ "$ran" = "$total" ] && break
done
[ "$ran" = "$total" ] || fail "$ran of $total code cells ran: $(tail -5 "$tmp/app.log")"
sleep 1
xdotool key --window "$window" ctrl+s # the last outputs
sleep 0.5
if [ -n "$shot" ]; then
  mkdir -p "$(dirname "$shot")"
  import -window root "$shot"
fi
(cd "$tmp/books" && /usr/bin/jupyter-nbconvert --to notebook --execute --allow-errors \
   --output nbconvert original.ipynb >/dev/null 2>&1) || fail "nbconvert failed"
/usr/bin/python3 "$data/compare_executed.py" "$tmp/books/explore.ipynb" "$tmp/books/nbconvert.ipynb"
