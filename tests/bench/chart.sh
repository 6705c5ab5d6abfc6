#!/usr/bin/env bash
# Loss chart benchmark, run by hand (not by CI):
#   tests/bench/chart.sh [BUILD_DIR] [chartbench options...]     (a RelWithDebInfo or Release build)
# Renders 32 runs x 1 M points plus 8 live series (1 k points/s each) in a 1600x900 window for
# 60 s, frames back to back, timing each refresh()+repaint(); then 100 k points/s arriving from
# another thread at 60 Hz frames; then the same data in Qt Charts (fewer points per run: it
# cannot draw 1 M in useful time) and QCustomPlot (packaging/install-deps.sh bench). Prints
# p50/p99/max frame times, frames over 16 ms, and the ratios. Under Xvfb when it is installed
# (frames then include the X flush), else on Qt's offscreen platform.
#   --seconds S  shorter runs for trying; --points P, --runs N, --qtcharts-points Q: the load.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
cmake --build "$build" --target chartbench >/dev/null
bench="$build/tests/bench/chartbench"
if command -v xvfb-run >/dev/null; then
  exec xvfb-run -a -s "-screen 0 1920x1080x24 -nolisten tcp" "$bench" "$@"
fi
echo "chart.sh: xvfb-run missing (packaging/install-deps.sh bench); using the offscreen platform" >&2
QT_QPA_PLATFORM=offscreen exec "$bench" "$@"
