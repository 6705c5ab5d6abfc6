#!/usr/bin/env bash
# The runs table, a failed run's details, the compare window and an empty workspace, as PNGs under Xvfb:
#   tests/gui/runs-screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" --target ferry_runsscreenshots ferry >/dev/null
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: packaging/install-deps.sh test" >&2; exit 1; }
XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/gui/ferry_runsscreenshots" "$out"
ls -l "$out"/runs-*.png
