#!/usr/bin/env bash
# Renders Ferry's main screens to PNGs under Xvfb (a real X server, not the offscreen platform):
#   tests/gui/screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
# Look at them after a change to the window; docs/screenshots/ keeps the ones the README shows.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" --target ferry_screenshots ferry ferry_trainer >/dev/null
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: packaging/install-deps.sh test" >&2; exit 1; }
XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/gui/ferry_screenshots" "$out"
ls -l "$out"
