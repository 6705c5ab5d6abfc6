#!/usr/bin/env bash
# Log parsing throughput, run by hand (not by CI):
#   tests/bench/logparse.sh [BUILD_DIR] [LINES] [RUNS]     (a RelWithDebInfo or Release build)
# Generates a Hugging Face Trainer-style log (LINES lines, default 1 M: tqdm redraws with the
# Trainer's dict after the bar, tests/bench/make_hf_log.py) and reads its metrics RUNS times
# each (default 3), alternating:
#   ferry   - metricRecords + MetricParser (tests/bench/logparsebench.cpp), as a follower reads;
#   python  - /usr/bin/python3, the last '\r' part of each line and ast.literal_eval on its dict
#             (tests/bench/logparse_reference.py), timed inside Python.
# Prints the medians in MB/s (MB = 10^6 bytes) and the ratio Ferry/Python (goal >= 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
lines=${2:-1000000}
runs=${3:-3}
cmake --build "$build" --target ferry_logparsebench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$work/train.log"
/usr/bin/python3 tests/bench/make_hf_log.py "$lines" "$log"
bytes=$(stat -c %s "$log")
cat "$log" > /dev/null # in the page cache for both
echo "log: $lines lines, $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB; $runs runs each, alternating, medians"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for run in $(seq "$runs"); do
  "$build/bin/ferry_logparsebench" "$log" > "$work/ferry.out"
  read -r _ ferry_points s < "$work/ferry.out"
  echo "$s" >> "$work/ferry.s"
  /usr/bin/python3 tests/bench/logparse_reference.py "$log" > "$work/python.out"
  read -r _ python_points s < "$work/python.out"
  echo "$s" >> "$work/python.s"
done
[ "$ferry_points" = "$python_points" ] || { echo "points differ: ferry $ferry_points, python $python_points" >&2; exit 1; }
ferry_s=$(median < "$work/ferry.s")
python_s=$(median < "$work/python.s")
awk -v b="$bytes" -v f="$ferry_s" -v p="$python_s" -v n="$ferry_points" 'BEGIN {
  printf "points: %d each\n", n
  printf "ferry   %7.3f s  %7.1f MB/s\n", f, b / 1e6 / f
  printf "python  %7.3f s  %7.1f MB/s\n", p, b / 1e6 / p
  printf "ratio ferry/python: %.1fx (goal >= 10)\n", p / f
}'
