#!/usr/bin/env bash
# Renders the environment editor with a realistic environment to PNGs under Xvfb:
#   tests/gui/env-screenshots.sh [BUILD_DIR] [OUTPUT_DIR]
# Look at them after a change to ui/env/.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=${2:-$build/screenshots}
cmake --build "$build" -j1 --target ferry_env_screenshots >/dev/null
command -v xvfb-run >/dev/null || { echo "xvfb-run not found: packaging/install-deps.sh test" >&2; exit 1; }
XDG_CONFIG_HOME=$(mktemp -d) xvfb-run -a -s "-screen 0 1920x1080x24 -nolisten tcp" \
  "$build/tests/gui/ferry_env_screenshots" "$out"
ls -l "$out"/env-*.png
