#!/usr/bin/env bash
# Cost and time in the window (issue 38), as PNGs under Xvfb: the runs table's Progress, ETA and
# Cost columns with a running run's details, and the Costs window per run and per target:
#   tests/gui/cost-screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" --target ferry_costscreenshots ferry >/dev/null
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: packaging/install-deps.sh test" >&2; exit 1; }
XDG_CONFIG_HOME=$(mktemp -d) QT_QPA_PLATFORM=xcb xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/gui/ferry_costscreenshots" "$out"
ls -l "$out"/cost-*.png
