#!/usr/bin/env bash
# Installs what is missing, builds Ferry twice and runs every test:
#   build/        the full application (GUI, trainer plugin, package) under gcc, warnings are
#                 errors; every test (CTest, `ctest -j`, the slowest first)
#   build-asan/   core and the command line under clang with AddressSanitizer and
#                 UndefinedBehaviorSanitizer (FERRY_GUI=OFF, FERRY_TRAINER=OFF: it proves the
#                 command line needs neither): core's unit tests and the fuzz corpus, then each
#                 libFuzzer target for FERRY_FUZZ_SECONDS (default here 10; a fixed seed, so CI
#                 explores the same inputs each time: fuzz longer by hand, tests/fuzz/run.sh)
# The sanitizer build, its tests and the fuzzing start with the full build, the build and the
# fuzzing at the lowest priority (they take what the full build and its tests, which mostly wait
# on containers, ssh and Slurm, leave idle); the services the tests need start while the full
# build compiles. Each phase's time is printed at the end (README.md, Build times).
# Usage: tests/run-all.sh            (from anywhere; needs root or sudo for missing packages)
set -euo pipefail # pipefail: a failing ctest or fuzz run fails its `| tee`
cd "$(dirname "$0")/.."
started=$(date +%s)

packaging/install-deps.sh test

jobs=${FERRY_JOBS:-$(nproc)}
# Tests at once: twice the cores, as most of them wait on containers, ssh, Slurm or a child
# process (the shared services keep to their lanes and locks, tests/CMakeLists.txt).
test_jobs=${FERRY_TEST_JOBS:-$((jobs * 2))}
# Cache hits across clones in different folders; the precompiled headers are cacheable too.
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

work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-run-all.XXXXXX")
holder="$PWD/run-all"
cleanup() {
  tests/services/docker.sh stop "$holder" >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT

# The services the tests share, while the compiler works: the Docker engine and its debootstrap
# base image, and the Dev Containers CLI (on a fresh machine, downloads and disk, no compiler).
# Their CTest fixtures then find them ready; a failure here is reported by those fixtures.
(
  s=$(date +%s)
  { tests/services/docker.sh start "$holder" && tests/services/docker.sh base-image &&
    tests/services/devcontainer-cli.sh; } >"$work/services.log" 2>&1 || true
  echo "services_seconds=$(($(date +%s) - s))" >>"$work/services.log"
) &
services_pid=$!

# The second build, its tests and the fuzzing, from the start: at the lowest priority, the build
# takes only the moments the full build leaves a core idle (a link, a configure), then runs beside
# the full tests, which mostly wait on containers, ssh and Slurm; neither waits for it. Its
# phases are written to $work/asan.phases.
(
  s=$(date +%s)
  rc=0
  {
    echo "== sanitizer build (clang, ASan and UBSan, no GUI, no trainer)"
    nice -n 19 cmake --preset asan >/dev/null && nice -n 19 cmake --build build-asan -j "$jobs"
  } >"$work/asan-build.log" 2>&1 || rc=1
  echo "sanitizer build $(($(date +%s) - s)) s" >>"$work/asan.phases"
  s=$(date +%s)
  if [ $rc -eq 0 ]; then
    echo "== tests: core's unit tests and the fuzz corpus under the sanitizers" >"$work/asan-tests.log"
    # At the normal priority: a test waits for its processes with time limits, which a starved
    # test could miss (the build and the fuzzing have none and stay at the lowest).
    ctest --preset asan -j "$jobs" >>"$work/asan-tests.log" 2>&1 || rc=1
  fi
  echo "sanitizer tests $(($(date +%s) - s)) s" >>"$work/asan.phases"
  s=$(date +%s)
  if [ $rc -eq 0 ] || [ -x build-asan/bin/fuzz_notebook ]; then
    FERRY_FUZZ_SECONDS=${FERRY_FUZZ_SECONDS:-10} nice -n 19 tests/fuzz/run.sh >"$work/fuzz.log" 2>&1 || rc=1
  fi
  echo "fuzzing $(($(date +%s) - s)) s" >>"$work/asan.phases"
  exit $rc
) &
asan_pid=$!

echo "== full build"
cmake --preset dev >/dev/null
cmake --build build -j "$jobs"
phase_done "full build"
wait "$services_pid" || true
phases+=("services (beside the build) $(sed -n 's/^services_seconds=//p' "$work/services.log") s")

status=0
log="$work/ctest.log"
echo "== tests: full build (the sanitizer build, its tests and the fuzzing beside them)"
ctest --preset dev -j "$test_jobs" 2>&1 | tee -a "$log" || status=1
phase_done "full tests"
asan_status=0
wait "$asan_pid" || asan_status=1
phase_done "sanitizer lane (after the tests: what was left of it)"
while read -r line; do phases+=("  $line (from the start, beside the rest)"); done <"$work/asan.phases"

for part in asan-build asan-tests fuzz; do
  [ -f "$work/$part.log" ] || continue
  if [ "$part" = asan-build ] && [ $asan_status -eq 0 ]; then
    tail -n 1 "$work/$part.log" # the build's last line is enough when all went well
  else
    cat "$work/$part.log"
  fi
done | tee -a "$log"
[ $asan_status -eq 0 ] || status=1

# One closing line for everything: ctest's test counts plus one per fuzz target.
total=$(sed -n 's/.* tests failed out of \([0-9]*\)$/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
failed=$(sed -n 's/.*, \([0-9]*\) tests failed out of [0-9]*$/\1/p' "$log" | awk '{s += $1} END {print s + 0}')
fuzz_ok=$(grep -c 'nothing found$' "$log" || true)
fuzz_failed=$(grep -c ': FAILED (libFuzzer' "$log" || true)
if [ $asan_status -ne 0 ] && [ $((failed + fuzz_failed)) -eq 0 ]; then
  fuzz_failed=1 # the sanitizer build itself failed: counted once
fi
echo "== run-all: $(($(date +%s) - started)) s"
printf '   %s\n' "${phases[@]}"
echo "$((total - failed + fuzz_ok)) passed, $((failed + fuzz_failed)) failed"
exit $status
