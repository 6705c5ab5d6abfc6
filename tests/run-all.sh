#!/usr/bin/env bash
# Installs what is missing, builds Ferry twice and runs every test:
#   build/        the full application (GUI, trainer plugin, package), warnings are errors
#   build-nogui/  core + command line only (FERRY_GUI=OFF): proves core needs no widget library
# Usage: tests/run-all.sh            (from anywhere; needs root or sudo for missing packages)
set -euo pipefail # pipefail: a failing ctest or fuzz run fails its `| tee`
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
log=$(mktemp)
trap 'rm -f "$log"' EXIT
echo "== tests: core and command line without widgets"
ctest --test-dir build-nogui --output-on-failure -j "$jobs" 2>&1 | tee -a "$log" || status=1
echo "== tests: full build"
ctest --test-dir build --output-on-failure -j "$jobs" 2>&1 | tee -a "$log" || status=1
echo "== fuzzing"
tests/fuzz/run.sh 2>&1 | tee -a "$log" || status=1

# One closing line for everything: ctest's test counts plus one per fuzz target.
total=$(sed -n 's/.* tests failed out of \([0-9]*\)$/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
failed=$(sed -n 's/.*, \([0-9]*\) tests failed out of [0-9]*$/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
fuzz_ok=$(grep -c 'nothing found$' "$log" || true)
fuzz_failed=$(grep -c ': FAILED (libFuzzer' "$log" || true)
echo "== run-all: $(( $(date +%s) - started )) s"
echo "$(( total - failed + fuzz_ok )) passed, $(( failed + fuzz_failed )) failed"
exit $status
