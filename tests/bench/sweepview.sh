#!/usr/bin/env bash
# Sweep view benchmark, run by hand (not by CI):
#   tests/bench/sweepview.sh [BUILD_DIR] [--trials N] [--frames F] [--points P]   (default 1,000 trials)
# Frame times of each tab of the sweep view for a sweep of N trials (their runs in a real run
# store), against the same parallel coordinates drawn by Qt Charts in the same run; see
# sweepviewbench.cpp. Under Xvfb when it is installed, else Qt's offscreen platform.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
cmake --build "$build" --target sweepviewbench >/dev/null
bench="$build/tests/bench/sweepviewbench"
if command -v xvfb-run >/dev/null; then
  XDG_CONFIG_HOME=$(mktemp -d) exec xvfb-run -a -s "-screen 0 1920x1080x24 -nolisten tcp" "$bench" "$@"
fi
echo "sweepview.sh: xvfb-run missing (packaging/install-deps.sh test); using the offscreen platform" >&2
QT_QPA_PLATFORM=offscreen exec "$bench" "$@"
