#!/usr/bin/env bash
# CSV loading benchmark, run by hand (not by CI):
#   tests/bench/csvload.sh [BUILD_DIR] [MB] [ROUNDS]     (a RelWithDebInfo or Release build)
# Generates a numeric CSV of about MB megabytes (default 100: 20 float columns and an integer
# label, fixed seed) and loads it into a float32 matrix ROUNDS times each (default 5),
# alternating:
#   ferry   - loadDataset (tests/bench/csvbench.cpp), as the trainer loads a table;
#   pandas  - /usr/bin/python3: pandas.read_csv(path).to_numpy(dtype='float32'), timed inside
#             Python (interpreter start-up and import left out).
# Prints the medians, MB/s (MB = 10^6 bytes) and the ratio Ferry/pandas (goal >= 2).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
mb=${2:-100}
rounds=${3:-5}
python=/usr/bin/python3 # the python3 on PATH may be a pyenv one without pandas
"$python" -c "import pandas" 2>/dev/null || { echo "pandas missing: packaging/install-deps.sh bench" >&2; exit 1; }
cmake --build "$build" --target ferry_csvbench >/dev/null
bench="$build/bin/ferry_csvbench"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
csv="$work/numbers.csv"
"$python" - "$csv" "$mb" <<'PY'
import sys
import numpy as np
path, mb = sys.argv[1], float(sys.argv[2])
rng = np.random.default_rng(20240601)
rows = int(mb * 1e6 / 178)  # about 178 bytes a row
x = rng.normal(0.0, 10.0, size=(rows, 20)).astype(np.float32)
label = rng.integers(0, 10, size=(rows, 1))
header = ",".join([f"f{i}" for i in range(20)] + ["label"])
with open(path, "w") as f:
    f.write(header + "\n")
    np.savetxt(f, np.hstack([x, label]), fmt=["%.5f"] * 20 + ["%d"], delimiter=",")
PY
bytes=$(stat -c %s "$csv")
cat "$csv" > /dev/null # in the page cache for both
echo "csv: $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB, $(($(wc -l < "$csv") - 1)) rows; $rounds rounds each, alternating, medians"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for round in $(seq "$rounds"); do
  read -r _ s ferry_rows _ < <("$bench" "$csv")
  echo "$s" >> "$work/ferry.s"
  read -r s pandas_rows < <("$python" -c '
import sys, time, pandas
t = time.perf_counter()
a = pandas.read_csv(sys.argv[1]).to_numpy(dtype="float32")
print(f"{time.perf_counter() - t:.4f} {a.shape[0]}")' "$csv")
  echo "$s" >> "$work/pandas.s"
  echo "round $round: ferry $(tail -1 "$work/ferry.s") s, pandas $s s"
done
[ "$ferry_rows" = "$pandas_rows" ] || echo "note: row counts differ: ferry $ferry_rows, pandas $pandas_rows"
awk -v b="$bytes" -v fs="$(median < "$work/ferry.s")" -v ps="$(median < "$work/pandas.s")" 'BEGIN {
  printf "%-7s %8.3f s %8.1f MB/s\n", "ferry", fs, b / 1e6 / fs
  printf "%-7s %8.3f s %8.1f MB/s\n", "pandas", ps, b / 1e6 / ps
  printf "ferry/pandas %.2fx (goal >= 2)\n", ps / fs
}'
# One thread, to see what the split buys.
"$bench" "$csv" 1 | awk '{ printf "ferry, 1 thread: %.3f s\n", $2 }'
