#!/bin/bash
# Screenshots of the notebook in the real window (docs/screenshots/notebook-*.png), by hand: a
# notebook with a pandas table, a plot, a tqdm bar, an error and a cell whose printed losses grow a
# live chart, run with Notebook ▸ Run All Cells under Xvfb. Needs the bench packages
# (packaging/install-deps.sh bench: python3-pandas, python3-tqdm).
#   tests/gui/notebook-screenshots.sh FERRY_BINARY OUT_DIR
set -euo pipefail
ferry=$1
out=$2
tmp=$(mktemp -d)
app=""
xvfb=""
cleanup() {
  [ -n "$app" ] && kill "$app" 2>/dev/null || true
  for k in "$tmp"/books/.ferry/kernels/*/; do
    [ -d "$k" ] && "$ferry" kernel stop "$(basename "$k")" --workspace "$tmp/books" >/dev/null 2>&1 || true
  done
  [ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
mkdir -p "$tmp/books" "$tmp/config" "$tmp/runtime" "$out"
chmod 700 "$tmp/runtime"
printf 'name: debian\nversion: 1\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n' > "$tmp/books/debian.yml"
/usr/bin/python3 - "$tmp/books/showcase.ipynb" <<'PY'
import sys, nbformat
from nbformat.v4 import new_notebook, new_code_cell, new_markdown_cell
cells = [
    new_markdown_cell("# Exploring a training run\nA table, a plot, a progress bar, a live chart and an error."),
    new_code_cell("import pandas as pd\n"
                  "df = pd.DataFrame({'lr': [0.1, 0.03, 0.01], 'seed': [1, 2, 3], 'val_loss': [0.52, 0.41, 0.44]})\n"
                  "df"),
    new_code_cell("import matplotlib.pyplot as plt\nplt.figure(figsize=(5, 3))\n"
                  "plt.plot(df['lr'], df['val_loss'], 'o-')\nplt.xscale('log'); plt.title('val_loss by lr')\nplt.show()"),
    new_code_cell("from tqdm import tqdm\nimport time\nfor _ in tqdm(range(40), desc='epoch 1'):\n    time.sleep(0.02)"),
    new_code_cell("import json, math, time\nfor step in range(30):\n"
                  "    loss = 2.0 * math.exp(-step / 8) + 0.05 * math.sin(step)\n"
                  "    print(json.dumps({'step': step, 'loss': round(loss, 4), 'accuracy': round(1 - loss / 2.2, 4)}), flush=True)\n"
                  "    time.sleep(0.02)"),
    new_code_cell("best = df.loc[df.val_loss.idxmin()]\nbest['learning_rate']"),
]
nb = new_notebook(cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
                                         "ferry": {"environment": "debian.yml", "target": "local"}})
nbformat.write(nb, sys.argv[1])
PY
source "$(dirname "$0")/xvfb.sh"
start_xvfb 1600x1000x24
export XDG_CONFIG_HOME=$tmp/config XDG_RUNTIME_DIR=$tmp/runtime
QT_QPA_PLATFORM=xcb "$ferry" "$tmp/books/showcase.ipynb" >"$tmp/app.log" 2>&1 &
app=$!
window=$(timeout 60 xdotool search --sync --name 'showcase.ipynb' | head -1)
xdotool windowfocus --sync "$window" 2>/dev/null || true
sleep 1
xdotool key --window "$window" ctrl+shift+Return # Notebook ▸ Run All Cells
sleep 12
import -window root "$out/notebook-top.png"
for _ in 1 2 3 4; do xdotool key --window "$window" j; sleep 0.2; done
sleep 1
import -window root "$out/notebook-chart.png"
for _ in 1 2; do xdotool key --window "$window" j; sleep 0.2; done
sleep 1
import -window root "$out/notebook-error.png"
echo "wrote $out/notebook-top.png, notebook-chart.png, notebook-error.png"
