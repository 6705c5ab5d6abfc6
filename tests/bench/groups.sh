#!/usr/bin/env bash
# Groups benchmark, run by hand (not by CI):
#   tests/bench/groups.sh [BUILD_DIR] [--points N] [--columns C] [--changes K] [--store]
# 32 runs x 1,000,000 points (in memory, as the chart keeps them) grouped into 4 bands: the time of
# a view change (regroup, zoom) to the picture at a chart's columns, p50 and p99 (goal p99 <= 100 ms),
# against the exact aggregate over every step of the union measured in the same run; --store also
# times `ferry runs aggregate`'s exact work from a real run store. See groupsbench.cpp. Then the
# chart itself (groupschartbench.cpp, where the build has the GUI): the same runs in a LossChart
# grouped into 4 bands, a view change (regroup, zoom, reset, band or line, log y) to the exact
# picture rendered on the calling (GUI) thread, p50 and p99 (goal p99 <= 100 ms), against the same
# chart ungrouped in the same run. Then the histogram half (histograms.sh, where the build has the
# GUI): 1,000 histogram steps x 30 bins drawn, the frame's p99 (goal <= 16 ms) against a naive
# drawPolyline of every step measured in the same run.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
cmake --build "$build" --target ferry_groupsbench >/dev/null
status=0
"$build/bin/ferry_groupsbench" "$@" || status=$?
if cmake --build "$build" --target ferry_groupschartbench >/dev/null 2>&1; then
    echo
    points=()
    for ((i = 1; i <= $#; i++)); do
        [[ ${!i} == --points ]] && { j=$((i + 1)); points=(--points "${!j}"); }
    done
    QT_QPA_PLATFORM=offscreen "$build/bin/ferry_groupschartbench" "${points[@]}" || status=$?
fi
if cmake --build "$build" --target ferry_histogramsbench >/dev/null 2>&1; then
    echo
    tests/bench/histograms.sh "$build" || status=$?
fi
exit $status
