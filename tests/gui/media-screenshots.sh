#!/usr/bin/env bash
# The Media tab (images by step, distributions) as PNGs under Xvfb, from 3 real runs (about a minute):
#   tests/gui/media-screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" --target ferry_mediascreenshots ferry >/dev/null
xvfb=""
config=$(mktemp -d)
trap '[ -n "$xvfb" ] && kill "$xvfb" 2>/dev/null; rm -rf "$config"' EXIT
source tests/gui/xvfb.sh
start_xvfb 1920x1080x24
XDG_CONFIG_HOME=$config QT_QPA_PLATFORM=xcb "$build/tests/gui/ferry_mediascreenshots" "$out"
ls -l "$out"/media-*.png
