#!/usr/bin/env bash
# Installs what is missing, builds Ferry twice and runs every test:
#   build/        the full application (GUI, trainer plugin, package), warnings are errors
#   build-nogui/  core + command line only (FERRY_GUI=OFF, FERRY_TRAINER=OFF): the command line
#                 works without the GUI and the plugin; it compiles nothing the full build has not
#                 (ccache), so it costs its links and its tests
#   build-fuzz/   the parsers under clang with libFuzzer, built and run beside the tests
# Usage: tests/run-all.sh            (from anywhere; needs root or sudo for missing packages)
set -euo pipefail # pipefail: a failing ctest or fuzz run fails its `| tee`
cd "$(dirname "$0")/.."
started=$(date +%s)

packaging/install-deps.sh test

jobs=${FERRY_JOBS:-$(nproc)}
# Cache hits across clones in different folders and across the build folders of one clone (the
# GUI-less build compiles core, the command line and the tests exactly as the full build does);
# the precompiled headers of the GUI and the trainer are cacheable too.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
# Each phase's wall time, for the closing summary (README.md, Build times).
phases=()
mark=$started
phase_done() {
  local now
  now=$(date +%s)
  phases+=("$1 $((now - mark)) s")
  mark=$now
}
phase_done "packages"

# Ferry's own code with line tables (-g1: a backtrace names the file and line) rather than the
# whole debug information: a quarter less compile time (README.md, Build times).
flags=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DFERRY_WERROR=ON "-DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O2 -g1 -DNDEBUG")

echo "== full build"
cmake -S . -B build -G Ninja "${flags[@]}"
cmake --build build -j "$jobs"
phase_done "full build"

echo "== core and command line without widgets"
cmake -S . -B build-nogui -G Ninja "${flags[@]}" -DFERRY_GUI=OFF -DFERRY_TRAINER=OFF
cmake --build build-nogui -j "$jobs"
phase_done "GUI-less build"

status=0
log=$(mktemp)
fuzz_log=$(mktemp)
trap 'rm -f "$log" "$fuzz_log"' EXIT
# Fuzzing (its own clang build, then each target for 30 s) runs beside the tests, which mostly
# wait on containers, ssh and Slurm; at the lowest priority, so a test never waits for it.
echo "== fuzzing, beside the tests (its output follows them)"
fuzz_started=$(date +%s)
(
  rc=0
  nice -n 19 tests/fuzz/run.sh >"$fuzz_log" 2>&1 || rc=$?
  echo "fuzz_status=$rc fuzz_seconds=$(($(date +%s) - fuzz_started))" >>"$fuzz_log"
) &
fuzz_pid=$!
echo "== tests: core and command line without widgets"
ctest --test-dir build-nogui --output-on-failure -j "$jobs" 2>&1 | tee -a "$log" || status=1
phase_done "GUI-less tests"
echo "== tests: full build"
ctest --test-dir build --output-on-failure -j "$jobs" 2>&1 | tee -a "$log" || status=1
phase_done "full tests"
echo "== fuzzing"
wait "$fuzz_pid" || true
tee -a "$log" <"$fuzz_log"
grep -q '^fuzz_status=0 ' "$fuzz_log" || status=1
phase_done "fuzzing (after the tests: what was left of it)"
phases+=("fuzzing in all (beside the tests) $(sed -n 's/.* fuzz_seconds=\([0-9]*\)$/\1/p' "$fuzz_log") s")

# One closing line for everything: ctest's test counts plus one per fuzz target.
total=$(sed -n 's/.* tests failed out of \([0-9]*\)$/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
failed=$(sed -n 's/.*, \([0-9]*\) tests failed out of [0-9]*$/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
fuzz_ok=$(grep -c 'nothing found$' "$log" || true)
fuzz_failed=$(grep -c ': FAILED (libFuzzer' "$log" || true)
echo "== run-all: $(( $(date +%s) - started )) s"
printf '   %s\n' "${phases[@]}"
echo "$(( total - failed + fuzz_ok )) passed, $(( failed + fuzz_failed )) failed"
exit $status
