#!/usr/bin/env bash
# Builds the libFuzzer targets in the sanitizer build (build-asan/: clang, ASan and UBSan, the
# "asan" preset of CMakePresets.json, CI's second build) and runs each for FERRY_FUZZ_SECONDS
# (default 30). The seeds are the files under tests/data/env/ (whole, line by line and field by
# field), plus whatever fuzzing found before (tests/data/fuzz-regressions/<target>/); they are
# copied into a temporary corpus, so the repository is never written while fuzzing.
# Prints libFuzzer's "Done N runs" for each target. If a target crashes (or leaks, hangs or runs
# out of memory), the input is copied to tests/data/fuzz-regressions/<target>/, where the
# ordinary build replays it (ctest -R <target>_replay), and the script exits 1.
# Usage: tests/fuzz/run.sh [TARGET...]   (default: every target in tests/fuzz/targets.cmake)
# Environment: FERRY_FUZZ_SECONDS, FERRY_FUZZ_SEED (0: random), FERRY_JOBS (build jobs),
# FERRY_FUZZ_PARALLEL (targets at once; default: the number of cores).
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FERRY_FUZZ_SECONDS:-30}
jobs=${FERRY_JOBS:-$(nproc)}
export CCACHE_BASEDIR="$PWD"

echo "== fuzzing: ${seconds} s per target"
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  mapfile -t targets < <(sed -n 's/^ferry_fuzz_target(\([A-Za-z0-9_]*\).*/\1/p' tests/fuzz/targets.cmake)
fi

[ -f build-asan/CMakeCache.txt ] || cmake --preset asan >/dev/null
cmake --build build-asan -j "$jobs" --target "${targets[@]}"

work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-fuzz.XXXXXX")
trap 'rm -rf "$work"' EXIT

# The seed corpus: each file, each of its lines and each tab-separated field (small files only).
mkdir -p "$work/seeds"
n=0
while IFS= read -r -d '' file; do
  n=$((n + 1))
  cp "$file" "$work/seeds/file-$n"
  awk -v prefix="$work/seeds/line-$n-" 'BEGIN { FS = "\t" }
    FNR <= 2000 && NF > 0 {
      out = prefix FNR; printf "%s", $0 > out; close(out)
      for (i = 1; NF > 1 && i <= NF; i++) if ($i != "") { out = prefix FNR "-" i; printf "%s", $i > out; close(out) }
    }' "$file"
done < <(find tests/data/env tests/data/notebooks -type f -size -1024k -print0 2>/dev/null)

# libFuzzer's options: inputs up to 64 KiB, a hang is an input that takes over 10 s; a target
# may have a dictionary of its syntax's tokens in tests/fuzz/<target>.dict.
# A fixed seed by default: CI explores the same sequence each time, so a failure there is one
# that reproduces, not a new find by chance; set FERRY_FUZZ_SEED=0 (random) to explore.
options=(-max_total_time="$seconds" -max_len=65536 -timeout=10 -print_final_stats=1 -seed="${FERRY_FUZZ_SEED:-1337}")
# One target: runs it, prints its line (and, when it found something, the input it saved);
# returns 1 when it found something.
fuzz_one() {
  local target=$1 corpus artifacts regressions dict log result runs found input
  corpus="$work/$target/corpus" # libFuzzer adds what it finds to the first folder
  artifacts="$work/$target/artifacts/"
  regressions="tests/data/fuzz-regressions/$target"
  mkdir -p "$corpus" "$artifacts" "$work/$target/regressions"
  if [ -d "$regressions" ]; then
    find "$regressions" -type f ! -name '*.md' -exec cp {} "$work/$target/regressions/" \;
  fi
  dict=()
  if [ -f "tests/fuzz/$target.dict" ]; then dict=(-dict="tests/fuzz/$target.dict"); fi
  log="$work/$target/log"
  result=0
  "build-asan/bin/$target" "${options[@]}" "${dict[@]}" -artifact_prefix="$artifacts" \
    "$corpus" "$work/seeds" "$work/$target/regressions" >"$log" 2>&1 || result=$?
  runs=$(grep -o 'Done [0-9]* runs in [0-9]* second(s)' "$log" | tail -n 1 || true)
  found=$(find "$artifacts" -type f \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \))
  if [ "$result" -eq 0 ] && [ -z "$found" ]; then
    echo "$target: ${runs:-no run count (see libFuzzer output)}, nothing found"
    return 0
  fi
  echo "$target: FAILED (libFuzzer exit $result) ${runs:+after ${runs}}"
  tail -n 40 "$log"
  mkdir -p "$regressions"
  for input in $found; do
    cp "$input" "$regressions/"
    echo "$target: input saved as $regressions/$(basename "$input")"
  done
  echo "$target: the ordinary build now replays it (ctest -R ${target}_replay). Fix the parser, then pin" \
    "the input in a named regression test next to the parser's own tests."
  return 1
}

# The targets run side by side, one per core (FERRY_FUZZ_PARALLEL), each for its full time: the
# same exploration per target as one after another, in a fraction of the wall time. Each
# target's lines are printed together, in the order of targets.cmake.
parallel=${FERRY_FUZZ_PARALLEL:-$(nproc)}
status=0
for ((first = 0; first < ${#targets[@]}; first += parallel)); do
  batch=("${targets[@]:first:parallel}")
  for target in "${batch[@]}"; do
    fuzz_one "$target" >"$work/$target.out" 2>&1 &
  done
  for target in "${batch[@]}"; do
    wait -n || status=1
  done
  for target in "${batch[@]}"; do
    cat "$work/$target.out"
  done
done
exit $status
