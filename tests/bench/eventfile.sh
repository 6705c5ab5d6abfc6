#!/usr/bin/env bash
# TensorBoard event file throughput, run by hand (not by CI):
#   tests/bench/eventfile.sh [BUILD_DIR] [MB] [RUNS]     (a RelWithDebInfo or Release build)
# Generates an event file of scalars (MB megabytes, default 100: SummaryWriter-style simple values
# and Keras-style float tensors, one value per event, tests/bench/make_event_file.py) and reads its
# points RUNS times each (default 3), alternating:
#   ferry   - EventFileReader in 4 MiB blocks (tests/bench/eventfilebench.cpp), as a follower reads;
#   python  - /usr/bin/python3, struct framing, a pure-Python table CRC-32C of both CRCs and
#             python3-protobuf's Event parsing (tests/bench/eventfile_reference.py), timed inside Python.
# Prints the medians in MB/s (MB = 10^6 bytes) and the ratio Ferry/Python (goal >= 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
megabytes=${2:-100}
runs=${3:-3}
cmake --build "$build" --target ferry_eventfilebench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
events="$work/events.out.tfevents.1733220000.bench"
/usr/bin/python3 tests/bench/make_event_file.py "$megabytes" "$events"
bytes=$(stat -c %s "$events")
cat "$events" > /dev/null # in the page cache for both
echo "event file: $(awk -v b="$bytes" 'BEGIN { printf "%.1f", b / 1e6 }') MB; $runs runs each, alternating, medians"
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
for run in $(seq "$runs"); do
  "$build/bin/ferry_eventfilebench" "$events" > "$work/ferry.out"
  read -r _ ferry_points s < "$work/ferry.out"
  echo "$s" >> "$work/ferry.s"
  /usr/bin/python3 tests/bench/eventfile_reference.py "$events" > "$work/python.out"
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
