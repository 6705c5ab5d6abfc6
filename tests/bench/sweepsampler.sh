#!/usr/bin/env bash
# Sweep sampler benchmark, run by hand (not by CI):
#   tests/bench/sweepsampler.sh [BUILD_DIR] [TRIALS] [SEEDS]      (defaults: build 50 20)
# On three known objectives (tests/bench/sweepobjectives.h: Branin, a rugged quadratic in
# log10(lr), Hartmann-6), the best value a sweep of TRIALS trials reaches, median over SEEDS
# seeds, for Ferry's TPE (core/sweep/sampler.h), Ferry's random search and Debian's
# python3-optuna TPESampler with its defaults, in one run.
# Goal: Ferry's TPE no worse than Optuna's on any objective, better than random on all; each
# difference is given with its bootstrap 95% interval (20 seeds leave the medians of samplers
# that propose alike a chance apart).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
trials=${2:-50}
seeds=${3:-20}
/usr/bin/python3 -c "import optuna" 2>/dev/null || { echo "python3-optuna missing: packaging/install-deps.sh bench" >&2; exit 1; }
cmake --build "$build" --target ferry_sweepsamplerbench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/bin/ferry_sweepsamplerbench" "$trials" "$seeds" > "$work/ferry.out"
start=$(date +%s.%N)
/usr/bin/python3 tests/bench/sweepsampler_reference.py "$trials" "$seeds" > "$work/optuna.out"
optuna_s=$(echo "$(date +%s.%N) - $start" | bc)
grep -v '^sampling' "$work/ferry.out" | cat - "$work/optuna.out" > "$work/all"
echo "== best value after $trials trials, median over $seeds seeds (lower is better)"
/usr/bin/python3 - "$work/all" <<'PY'
import random, statistics, sys
best = {}
for line in open(sys.argv[1]):
    f, method, _, value = line.split()
    best.setdefault(f, {}).setdefault(method, []).append(float(value))
# "No worse" is read statistically: over 20 seeds two samplers that propose alike differ in
# their medians by chance, so Ferry is worse only when the bootstrap's 95% interval of the
# difference of medians (ferry - other) lies above 0; better when it lies below.
def interval(a, b, rounds=4000):
    r = random.Random(1)
    d = sorted(statistics.median(r.choices(a, k=len(a))) - statistics.median(r.choices(b, k=len(b)))
               for _ in range(rounds))
    return d[int(0.025 * rounds)], d[int(0.975 * rounds)]
ok = True
print(f"{'objective':<10} {'ferry-tpe':>10} {'optuna-tpe':>11} {'random':>10}  ferry - optuna (95%)   ferry - random (95%)")
for f, by in best.items():
    m = {k: statistics.median(v) for k, v in by.items()}
    lo, hi = interval(by["ferry-tpe"], by["optuna-tpe"])
    rlo, rhi = interval(by["ferry-tpe"], by["random"])
    verdict = []
    if lo > 0:
        verdict.append("WORSE than optuna"); ok = False
    if not rhi < 0:
        verdict.append("NOT better than random"); ok = False
    print(f"{f:<10} {m['ferry-tpe']:>10.4f} {m['optuna-tpe']:>11.4f} {m['random']:>10.4f}  [{lo:+.3f}, {hi:+.3f}]"
          f"     [{rlo:+.3f}, {rhi:+.3f}]  {', '.join(verdict) or 'ok'}")
print("goal met: no worse than optuna on any, better than random on all" if ok else "goal NOT met")
PY
grep '^sampling' "$work/ferry.out"
echo "optuna's $((seeds * 3)) sweeps took ${optuna_s} s"
