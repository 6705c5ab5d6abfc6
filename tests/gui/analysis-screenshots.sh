#!/usr/bin/env bash
# The Analysis tab as PNGs under Xvfb, from 14 real runs of a small script (about half a minute):
#   tests/gui/analysis-screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" --target ferry_analysisscreenshots ferry >/dev/null
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: packaging/install-deps.sh test" >&2; exit 1; }
XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1920x1080x24 -nolisten tcp" \
  "$build/tests/gui/ferry_analysisscreenshots" "$out"
ls -l "$out"/analysis-*.png
