#!/usr/bin/env bash
# The metric store's benchmark, run by hand (not by CI; docs/metric-store.md has its figures):
#   tests/bench/metricstore.sh [BUILD_DIR] [RUNS METRICS POINTS]    (a RelWithDebInfo or Release build)
# Prints, each beside its peer measured in the same run:
#   bytes    bytes per point of the corpus' logs (event files; text logs, trainer_state.json,
#            metrics.csv), a synthetic 1 M-step run printed at 4, 5 and 6 significant digits, and
#            full-entropy noise; in the blocks and on disk (the previous release: 64.6 on disk)
#   ingest   tests/bench/ingest.sh: `ferry runs attach` of a finished run's 2 M points and its
#            `ferry runs metrics --csv`; parse + store in process; against Python + sqlite3 and
#            sqlite3's .import
#   load     one series of 1 M points into memory, against reading its rows from a row per point
#   workspace  a workspace of RUNS x METRICS x POINTS (default 1,000 x 10 x 100,000 = 1 G points,
#            about 3 GB and a quarter of an hour to write; it is kept in $FERRY_BENCH_WORKSPACE
#            when set), then opened in a new process: the runs table's data
#   overlay  32 runs x 1 M points from the store to the chart's first exact frame, against the same
#            points given to the chart from memory
# Figures: tests/bench/metricstore.sh build 2>&1 | tee /tmp/metricstore.txt
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-1000}
metrics=${3:-10}
points=${4:-100000}
corpus=${FERRY_CORPUS:-$PWD/../shared/corpus}
cmake --build "$build" --target ferry_metricstorebench ferry_ingestbench >/dev/null
bench=$(find "$build" -name ferry_metricstorebench -type f -perm -u+x | head -1)
export QT_QPA_PLATFORM=offscreen

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "== bytes per point"
"$bench" bytes "$corpus" "$work/bytes"
rm -rf "$work/bytes"
echo "== ingest (tests/bench/ingest.sh $build: 2 M points, attach and metrics --csv, 5 runs)"
tests/bench/ingest.sh "$build"
echo "== load one series"
"$bench" load "$work/load" 1000000
rm -rf "$work/load"
echo "== workspace of $runs runs x $metrics metrics x $points points"
workspace=${FERRY_BENCH_WORKSPACE:-$work/workspace}
if [ ! -e "$workspace/.ferry/runs.sqlite" ]; then
  "$bench" make "$workspace" "$runs" "$metrics" "$points"
fi
# A new process: what the window does when the workspace is opened (the page cache is warm).
"$bench" open "$workspace"
"$bench" open "$workspace"
echo "== overlay 32 runs x 1 M points"
"$bench" overlay "$work/overlay" 32 1000000
