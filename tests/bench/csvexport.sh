#!/usr/bin/env bash
# CSV export benchmark, run by hand (not by CI):
#   tests/bench/csvexport.sh [BUILD_DIR] [POINTS] [RUNS]     (a RelWithDebInfo or Release build)
# Makes a workspace whose run store holds one run of POINTS metric points (default 10 M: a loss,
# a learning rate and an accuracy at every step, 4 to 6 significant digits, wall times 100 ms
# apart with jitter; tests/bench/csvexportgen.cpp, through RunStore::appendMetrics) and the same
# points a row each in the previous release's schema (tests/data/stores/runs-v2.sqlite), then
# prints them as CSV to /dev/null RUNS times each (default 3), alternating, whole processes timed:
#   ferry    - the build's `ferry runs metrics bench --csv` (series blocks, exact numbers);
#   sqlite3  - `sqlite3 -csv -header` of the rows in the same order, through the index on
#              (run, name, step) (numbers to 15 significant digits, not exact).
# Prints the medians in points/s and the ratio ferry/sqlite3 (goal: ferry >= 5 M points/s), the
# store's bytes per point, and the machine's load. BENCH_BASELINE=path/to/another/ferry times that
# build's export too, interleaved; BENCH_RT=1 runs the timed commands at real-time priority
# (chrt -f 10, root), as on a quiet machine (tests/bench/ingest.sh says more).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
points=${2:-10000000}
runs=${3:-3}
command -v sqlite3 >/dev/null || { echo "sqlite3 missing: packaging/install-deps.sh bench" >&2; exit 1; }
cmake --build "$build" --target ferry ferry_csvexportgen >/dev/null
ferry="$build/bin/ferry"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/ws"
cp tests/data/stores/runs-v2.sqlite "$work/rows.sqlite"
chmod u+w "$work/rows.sqlite"
"$build/bin/ferry_csvexportgen" "$work/ws" "$points" "$work/rows.sqlite" > "$work/gen.out"
read -r _ stored < "$work/gen.out"
store="$work/ws/.ferry/runs.sqlite"
sqlite3 "$store" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
query="SELECT name, step, wall_ms, value, epoch FROM metrics WHERE run = 'bench' ORDER BY name, step"
# Both print every point once, with a header (untimed check).
ferry_lines=$("$ferry" runs metrics bench --csv --workspace "$work/ws" | wc -l)
sqlite_lines=$(sqlite3 -csv -header "$work/rows.sqlite" "$query" | wc -l)
[ "$ferry_lines" = $((stored + 1)) ] && [ "$sqlite_lines" = $((stored + 1)) ] ||
  { echo "lines differ: $stored points, ferry $ferry_lines lines, sqlite3 $sqlite_lines" >&2; exit 1; }
cat "$store" "$work/rows.sqlite" > /dev/null # both files in the page cache
echo "run: $stored points; store $(stat -c %s "$store") bytes ($(awk -v b="$(stat -c %s "$store")" -v n="$stored" \
  'BEGIN { printf "%.2f", b / n }') a point), rows $(stat -c %s "$work/rows.sqlite") bytes; csv $(
  "$ferry" runs metrics bench --csv --workspace "$work/ws" | wc -c) bytes; $runs runs each, alternating, medians"

rt=()
if [ -n "${BENCH_RT:-}" ]; then
  rt=(chrt -f 10)
  "${rt[@]}" true || { echo "BENCH_RT: chrt -f needs root" >&2; exit 1; }
fi
echo "load before: $(uptime)${BENCH_RT:+; timed commands at real-time priority (BENCH_RT)}"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now_ns() { date +%s%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'; }
for run in $(seq "$runs"); do
  if [ -n "${BENCH_BASELINE:-}" ]; then
    t0=$(now_ns)
    "${rt[@]}" "$BENCH_BASELINE" runs metrics bench --csv --workspace "$work/ws" > /dev/null
    t1=$(now_ns)
    seconds "$t0" "$t1" >> "$work/baseline.s"
  fi
  t0=$(now_ns)
  "${rt[@]}" "$ferry" runs metrics bench --csv --workspace "$work/ws" > /dev/null
  t1=$(now_ns)
  "${rt[@]}" sqlite3 -csv -header "$work/rows.sqlite" "$query" > /dev/null
  t2=$(now_ns)
  seconds "$t0" "$t1" >> "$work/ferry.s"
  seconds "$t1" "$t2" >> "$work/sqlite.s"
  echo "run $run: ferry $(tail -1 "$work/ferry.s") s, sqlite3 $(tail -1 "$work/sqlite.s") s${BENCH_BASELINE:+, baseline $(tail -1 "$work/baseline.s") s}"
done
awk -v n="$stored" -v fs="$(median < "$work/ferry.s")" -v ss="$(median < "$work/sqlite.s")" 'BEGIN {
  printf "%-8s %8.3f s %12.0f points/s\n", "ferry", fs, n / fs
  printf "%-8s %8.3f s %12.0f points/s\n", "sqlite3", ss, n / ss
  printf "ferry/sqlite3 %.2fx; ferry %s the goal of 5 M points/s\n", ss / fs, (n / fs >= 5e6 ? "meets" : "misses")
}'
if [ -n "${BENCH_BASELINE:-}" ]; then
  awk -v n="$stored" -v bs="$(median < "$work/baseline.s")" 'BEGIN {
    printf "baseline (%s) %8.3f s %12.0f points/s\n", ENVIRON["BENCH_BASELINE"], bs, n / bs }'
fi
echo "load after: $(uptime)"
