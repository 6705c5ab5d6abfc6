#!/usr/bin/env bash
# Hostile-input benchmark, run by hand (not by CI):
#   tests/bench/hostile.sh [BUILD_DIR] [SECTION...]
#       (sections: import snapshot diff metrics notebook; default all)
# The security review of 2026-12-06 found inputs whose cost grew faster than their size (M4 the
# line diff, M5 metrics.csv, M6 metric names, N5 notebook import, N8 metric regexes). This runs
# each of them through the real `ferry`, scaled x1, x10 and x100 (x1 is the review's size where
# it gave one), and prints the time and peak memory of every command (/usr/bin/time -f '%e %M'),
# then each row's x100/x1 ratios: linear growth is at most x100, the goal at most x150 (a refused
# input costs about the same at every scale: its ratio is near 1; times under 0.05 s, the
# process's own start, count as 0.05 s). HOSTILE_SCALES="1 10" scales less, for a quick look.
#
# One function per section, bench_NAME SCALE, builds its inputs in $work and times commands with
# `measure`; a new section (the bundle import's, the snapshot walk's) is one more function and
# its name in `sections`.
set -euo pipefail
cd "$(dirname "$0")/../.."
repo=$(pwd)
build=${1:-build}
shift || true
sections=("$@")
[ ${#sections[@]} -eq 0 ] && sections=(import snapshot diff metrics notebook)
read -ra scales <<<"${HOSTILE_SCALES:-1 10 100}" # e.g. HOSTILE_SCALES="1 10" for a quick look
first=${scales[0]} last=${scales[-1]}
ferry=${HOSTILE_FERRY:-$(pwd)/$build/bin/ferry} # HOSTILE_FERRY: another build's, to compare
[ -x "$ferry" ] || { echo "no $ferry: build first (cmake --build $build --target ferry)" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing (Debian: apt install time)" >&2; exit 1; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
export XDG_RUNTIME_DIR="$work/runtime"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

declare -A seconds mib # "ROW@SCALE" -> value
rows=()

# measure ROW SCALE WHAT -- COMMAND...: runs COMMAND in the current folder, prints a line, keeps
# the figures for the ratios; WHAT says the input's size and what ferry answered.
measure() {
  local row=$1 scale=$2 what=$3
  shift 4
  local out="$work/out" cost
  status=0
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" >"$out" 2>&1 || status=$?
  cost=$(tail -1 "$work/time")
  seconds[$row@$scale]=${cost% *}
  mib[$row@$scale]=$(awk -v k="${cost#* }" 'BEGIN { printf "%.1f", k / 1024 }')
  [[ " ${rows[*]} " == *" $row "* ]] || rows+=("$row")
  printf '%-34s x%-4s %8s s %8s MiB  %s\n' "$row" "$scale" "${seconds[$row@$scale]}" "${mib[$row@$scale]}" "$what"
}

# The answer of the last measured command, in a few words.
answer() {
  if [ "$status" -ne 0 ]; then
    echo "refused: $(grep -oE "(line [0-9]+|:[0-9]+:[0-9]+|larger than [0-9]+ MiB|more than [0-9]+ files and folders)" "$work/out" | head -1)"
  elif grep -q "too large to show" "$work/out"; then echo "differs, too large to show"
  elif grep -q "not text" "$work/out"; then echo "over the 1 MiB a diff reads"
  elif grep -q '^@@ ' "$work/out"; then echo "diff shown ($(grep -c '^[-+][^-+]' "$work/out") lines)"
  else echo "ok"
  fi
}

# A workspace with a trivial script, its run ids printed as it starts them.
new_workspace() {
  local ws=$1
  mkdir -p "$ws"
  printf 'print("done")\n' >"$ws/train.py"
}
run_once() { # in the current workspace: one run of train.py, followed to its end; prints its id
  local id
  id=$("$ferry" run train.py 2>/dev/null)
  "$ferry" runs attach "$id" >/dev/null 2>&1
  echo "$id"
}

# text_files FILES LINES WORD: data000.txt, ... of LINES lines each, "WORD line N".
text_files() {
  python3 - "$@" <<'EOF'
import sys
files, lines, word = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
for f in range(files):
    with open('data%03d.txt' % f, 'w') as out:
        for start in range(0, lines, 100000):
            out.write(''.join('%s line %d\n' % (word, i) for i in range(start, min(lines, start + 100000))))
EOF
}

# M4: two runs whose text differs on every line. "one file": 4,000 + 4,000 lines (528 MB before)
# times the scale, in one file (past x10 it is over the 1 MiB a diff reads); "files": as many
# files of 4,000 + 4,000 lines as the scale.
bench_diff() {
  local scale=$1 ws a b lines=$((4000 * scale))
  ws="$work/diff-one-$scale" && new_workspace "$ws" && cd "$ws"
  text_files 1 "$lines" old
  a=$(run_once)
  text_files 1 "$lines" new
  b=$(run_once)
  measure "diff: one file, every line" "$scale" "" -- "$ferry" runs diff "$a" "$b"
  echo "$(printf '%50s' '')$lines + $lines lines: $(answer)"

  ws="$work/diff-files-$scale" && new_workspace "$ws" && cd "$ws"
  text_files "$scale" 4000 old
  a=$(run_once)
  text_files "$scale" 4000 new
  b=$(run_once)
  measure "diff: files of 4,000 lines" "$scale" "" -- "$ferry" runs diff "$a" "$b"
  echo "$(printf '%50s' '')$scale x (4,000 + 4,000) lines: $(answer)"
  cd "$work"
}

# A real bundle to craft: one run of train.py, exported and unpacked into $work/template.
template_bundle() {
  [ -d "$work/template" ] && return
  local ws="$work/template-ws" id
  new_workspace "$ws" && cd "$ws"
  id=$(run_once)
  "$ferry" runs export "$id" --bundle "$work/template.tar.gz" >/dev/null 2>&1
  mkdir -p "$work/template"
  tar -xzf "$work/template.tar.gz" -C "$work/template"
  tar -tzf "$work/template.tar.gz" | grep -v '/$' >"$work/template.list"
  cd "$work"
}

# csv_rows FILE COUNT ROW: a metrics.csv of its header, then ROW (Python, of i) for each i < COUNT.
csv_rows() {
  python3 - "$@" <<'EOF'
import sys
path, count, row = sys.argv[1], int(sys.argv[2]), eval('lambda i: ' + sys.argv[3])
with open(path, 'w') as out:
    out.write('name,step,wall_ms,value,epoch\n')
    for start in range(0, count, 100000):
        out.write(''.join(row(i) for i in range(start, min(count, start + 100000))))
EOF
}

# bundle_with FILE: the template bundle with FILE as its metrics.csv, as $work/crafted.tar.gz.
bundle_with() {
  rm -rf "$work/crafted" && cp -r "$work/template" "$work/crafted"
  mv "$1" "$work/crafted/metrics.csv"
  tar -czf "$work/crafted.tar.gz" -C "$work/crafted" -T "$work/template.list"
}

# import_row ROW SCALE WHAT: `ferry runs import` of $work/crafted.tar.gz into a new workspace.
import_row() {
  local ws="$work/import-$RANDOM$RANDOM"
  mkdir -p "$ws" && cd "$ws"
  measure "$1" "$2" "" -- "$ferry" runs import "$work/crafted.tar.gz"
  echo "$(printf '%50s' '')$3: $(answer)"
  cd "$work"
}

# M5, M6, N8: metrics.csv in a bundle (a quote then 400,000 line breaks: 30 s before; 200,000
# names: 10.7 s for `runs show`; 40,000 points of one metric: linear work), and a run's log
# (a metric regex that backtracks for ever; names past the cap).
bench_metrics() {
  local scale=$1 csv="$work/metrics.csv" ws
  template_bundle
  python3 - "$scale" "$csv" <<'EOF'
import sys
with open(sys.argv[2], 'w') as out:
    out.write('name,step,wall_ms,value,epoch\n"' + '\n' * (400000 * int(sys.argv[1])))
EOF
  bundle_with "$csv"
  import_row "metrics.csv: a quote, line breaks" "$scale" "$((400000 * scale)) line breaks"

  csv_rows "$csv" $((200000 * scale)) "'m%d,1,1,1,\\n' % i"
  bundle_with "$csv"
  import_row "metrics.csv: distinct names" "$scale" "$((200000 * scale)) names"

  csv_rows "$csv" $((40000 * scale)) "'loss,%d,%d,%r,\\n' % (i, 1733390000000 + i, 1 / (i + 1))"
  bundle_with "$csv"
  import_row "metrics.csv: points of one metric" "$scale" "$((40000 * scale)) points"

  ws="$work/regex-$scale" && mkdir -p "$ws" && cd "$ws"
  printf 'for i in range(%d):\n    print("a" * 3000 + "b")\n    print("loss=%%d" %% i)\n' $((100 * scale)) >evil.py
  measure "log: (a+)+\$ as a metric regex" "$scale" "" -- "$ferry" run evil.py --metric-def 'evil=(a+)+$' \
    --metric-def 'loss=loss=([0-9]+)' --follow
  echo "$(printf '%50s' '')$((100 * scale)) lines of 3,001 characters: $(grep -c "took too long" "$work/out") warning"

  ws="$work/names-$scale" && mkdir -p "$ws" && cd "$ws"
  printf 'import json\nfor i in range(%d):\n    print(json.dumps({"name%%d" %% i: 1.0}))\n' $((20000 * scale)) >names.py
  measure "log: distinct names" "$scale" "" -- "$ferry" run names.py --follow
  echo "$(printf '%50s' '')$((20000 * scale)) names: $(grep -c "at most 10000 metrics" "$work/out") note of the cap"
  cd "$work"
}

# N5: 20 MB of nested '[' (1.6 GB as a DOM before) times the scale (x100 is over the 512 MiB a
# notebook may be, refused before it is read), and a notebook of 3,000 cells with outputs of many
# small values (2.2 MB) times the scale.
bench_notebook() {
  local scale=$1
  mkdir -p "$work/nb" && cd "$work/nb"
  python3 - "$scale" <<'EOF'
import sys
with open('deep.ipynb', 'w') as out:
    out.write('{"nbformat": 4, "metadata": {"x": ')
    for _ in range(20 * int(sys.argv[1])):
        out.write('[' * 1000000)
EOF
  measure "notebook: nested '['" "$scale" "" -- "$ferry" notebook convert deep.ipynb --dry-run
  echo "$(printf '%50s' '')$((20 * scale)) MB: $(answer)"
  rm -f deep.ipynb
  python3 - "$scale" <<'EOF'
import sys
zeros = ','.join('0' * 300)
with open('cells.ipynb', 'w') as out:
    out.write('{"nbformat": 4, "nbformat_minor": 5, "metadata": {"kernelspec": {"language": "python"}}, "cells": [')
    for i in range(3000 * int(sys.argv[1])):
        out.write((',' if i else '') + '{"cell_type": "code", "metadata": {"tags": ["a"]}, "outputs": '
                  '[{"data": [%s]}], "source": ["x%d = %d\\n", "y = 2"]}' % (zeros, i, i))
    out.write(']}')
EOF
  measure "notebook: cells with outputs" "$scale" "" -- "$ferry" notebook convert cells.ipynb --dry-run
  echo "$(printf '%50s' '')$((3000 * scale)) cells, $(( $(stat -c %s cells.ipynb) / 1000000 )) MB: $(answer)"
  rm -f cells.ipynb
  cd "$work"
}

# M3, N3: a bundle whose snapshot is six levels of 64 x SCALE folders, each level the same listing
# (2.5 KB at x1: the review's rerun, diff and export then hung and took all memory); refused at
# import by the walk's budget. And a real snapshot of 500 x SCALE files in folders of 100, which
# import checks in full (every object and size): linear work.
bench_import() {
  local scale=$1
  template_bundle
  python3 "$repo/tests/bench/hostile_bundle.py" "$work/template.tar.gz" "$work/crafted.tar.gz" folders "$scale"
  import_row "import: folders of folders" "$scale" "$((64 * scale)) folders a level, 6 levels"
  python3 "$repo/tests/bench/hostile_bundle.py" "$work/template.tar.gz" "$work/crafted.tar.gz" files "$((scale * 5))"
  import_row "import: a snapshot of many files" "$scale" "$((500 * scale)) files"
}

# The snapshot walk: a rerun of that imported run writes its 500 x SCALE files into a fresh
# folder (snapshot::materialize, each name beneath its folder's descriptor), and an export of it
# walks its trees again (every listing and object into a new bundle).
bench_snapshot() {
  local scale=$1 ws="$work/snapshot-$scale" id
  template_bundle
  python3 "$repo/tests/bench/hostile_bundle.py" "$work/template.tar.gz" "$work/crafted.tar.gz" files "$((scale * 5))"
  mkdir -p "$ws" && cd "$ws"
  id=$("$ferry" runs import "$work/crafted.tar.gz" 2>/dev/null)
  measure "snapshot: a rerun writes its files" "$scale" "" -- "$ferry" runs rerun "$id" --accept-foreign
  echo "$(printf '%50s' '')$((500 * scale)) files: $(answer)"
  measure "snapshot: an export walks it" "$scale" "" -- "$ferry" runs export "$id" --bundle "$ws/again.tar.gz"
  echo "$(printf '%50s' '')$((500 * scale)) files: $(answer)"
  cd "$work"
}

printf '%-34s %-5s %10s %12s\n' "input" "scale" "time" "peak"
for section in "${sections[@]}"; do
  declare -F "bench_$section" >/dev/null || { echo "no section '$section'" >&2; exit 1; }
  for scale in "${scales[@]}"; do
    "bench_$section" "$scale"
  done
done

echo
echo "x$last / x$first (goal: at most $((last * 3 / 2 / first)) for time and for memory)"
for row in "${rows[@]}"; do
  awk -v row="$row" -v t1="${seconds[$row@$first]}" -v t2="${seconds[$row@$last]}" -v m1="${mib[$row@$first]}" \
      -v m2="${mib[$row@$last]}" -v goal=$((last * 3 / 2 / first)) 'BEGIN {
    t = (t2 > 0.05 ? t2 : 0.05) / (t1 > 0.05 ? t1 : 0.05); m = m2 / m1
    printf "%-34s time x%-7.1f memory x%-7.1f %s\n", row, t, m, (t <= goal && m <= goal ? "ok" : "OVER")
  }'
done
