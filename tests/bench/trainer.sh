#!/usr/bin/env bash
# Trainer benchmark, run by hand (not by CI): samples/s of Ferry's embedded trainer next to a
# bare libtorch loop and PyTorch eager (Debian's python3-torch: the same libtorch), on the same
# model, data and initial weights, one thread, runs alternated, medians of ROUNDS.
#   tests/bench/trainer.sh [BUILD_DIR] [ROUNDS]
# Also: achieved GFLOP/s of the medium MLP next to single-thread sgemm peak (same run).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-5}
cmake --build "$build" --target trainerbench ferry_trainer >/dev/null
bench="$PWD/$build/tests/bench/trainerbench"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 FERRY_TRAINER_PLUGIN_DIR="$PWD/$build/bin"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A epochs=([small]=5 [medium]=10) # a short training each: set-up is part of it
for size in small medium; do
  : >"/tmp/ferry-bench-$size.ferry"; : >"/tmp/ferry-bench-$size.bare"; : >"/tmp/ferry-bench-$size.py"
  for round in $(seq "$rounds"); do
    "$bench" ferry "$size" "${epochs[$size]}" 2>/dev/null >>"/tmp/ferry-bench-$size.ferry"
    "$bench" bare "$size" "${epochs[$size]}" 2>>"/tmp/ferry-bench-$size.check" >>"/tmp/ferry-bench-$size.bare"
    /usr/bin/python3 tests/bench/trainer_reference.py "$size" "${epochs[$size]}" 2>>"/tmp/ferry-bench-$size.check" >>"/tmp/ferry-bench-$size.py"
  done
done
peak=$(for i in 1 2 3; do "$bench" sgemm; done | median)

printf '%-8s %14s %14s %14s %10s %10s\n' size "ferry s/s" "bare s/s" "pytorch s/s" "vs pytorch" "vs bare"
for size in small medium; do
  f=$(median <"/tmp/ferry-bench-$size.ferry"); b=$(median <"/tmp/ferry-bench-$size.bare"); p=$(median <"/tmp/ferry-bench-$size.py")
  printf '%-8s %14.0f %14.0f %14.0f %9.2fx %9.2fx\n' "$size" "$f" "$b" "$p" \
    "$(awk -v a="$f" -v b="$p" 'BEGIN { print a / b }')" "$(awk -v a="$f" -v b="$b" 'BEGIN { print a / b }')"
done
# Medium MLP: forward 2*(784*256 + 256*256 + 256*10) FLOP per sample, training about 3x that.
f=$(median <"/tmp/ferry-bench-medium.ferry")
achieved=$(awk -v s="$f" 'BEGIN { printf "%.2f", s * 3 * 2 * (784*256 + 256*256 + 256*10) / 1e9 }')
printf 'medium MLP: %s GFLOP/s achieved, single-thread sgemm peak %.2f GFLOP/s (%.0f%%)\n' "$achieved" "$peak" \
  "$(awk -v a="$achieved" -v p="$peak" 'BEGIN { print 100 * a / p }')"
echo "same data and initial weights (checksums, bare libtorch and Python alike):"
sort -u /tmp/ferry-bench-small.check /tmp/ferry-bench-medium.check
rm -f /tmp/ferry-bench-*
