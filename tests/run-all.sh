#!/usr/bin/env bash
# Installs what is missing, builds Ferry twice and runs every test:
#   build/        the full application (GUI, trainer plugin, package), warnings are errors
#   build-nogui/  core + command line only (FERRY_GUI=OFF): proves core needs no widget library
# Usage: tests/run-all.sh            (from anywhere; needs root or sudo for missing packages)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$(date +%s)

packaging/install-deps.sh test

jobs=${FERRY_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD" # cache hits across clones in different folders

echo "== full build"
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFERRY_WERROR=ON
cmake --build build -j "$jobs"

echo "== core and command line without widgets"
cmake -S . -B build-nogui -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFERRY_WERROR=ON \
  -DFERRY_GUI=OFF -DFERRY_TRAINER=OFF
cmake --build build-nogui -j "$jobs"

status=0
echo "== tests: core and command line without widgets"
ctest --test-dir build-nogui --output-on-failure -j "$jobs" || status=1
echo "== tests: full build"
ctest --test-dir build --output-on-failure -j "$jobs" || status=1
tests/fuzz/run.sh || status=1

echo "== run-all: $(( $(date +%s) - started )) s, $([ $status -eq 0 ] && echo passed || echo FAILED)"
exit $status
