#!/usr/bin/env bash
# The metric chart as a new user meets it, as PNGs under Xvfb on a 1600×1000 screen (about a
# minute: a training and five script runs):
#   tests/gui/chart-screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
# docs/screenshots/ keeps them (docs/metrics.md shows them).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" --target ferry_chartscreenshots ferry ferry_trainer >/dev/null
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: packaging/install-deps.sh test" >&2; exit 1; }
XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1600x1000x24 -nolisten tcp" \
  "$build/tests/gui/ferry_chartscreenshots" "$out"
ls -l "$out"/chart-*.png
