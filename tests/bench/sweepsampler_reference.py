"""The peer of ferry_sweepsamplerbench: Optuna's TPESampler (its defaults, seeded) on the same
objectives (sweepobjectives.h); prints "FUNCTION optuna-tpe SEED BEST" lines.
Usage: sweepsampler_reference.py TRIALS SEEDS"""
import math
import sys

import optuna

optuna.logging.set_verbosity(optuna.logging.WARNING)

A = [[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14], [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]]
P = [[0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886], [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
     [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650], [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381]]
ALPHA = [1.0, 1.2, 3.0, 3.2]


def branin(t):
    x1, x2 = t.suggest_float("x1", -5, 10), t.suggest_float("x2", 0, 15)
    b, c, s = 5.1 / (4 * math.pi ** 2), 5 / math.pi, 1 / (8 * math.pi)
    return (x2 - b * x1 * x1 + c * x1 - 6) ** 2 + 10 * (1 - s) * math.cos(x1) + 10


def log_lr(t):
    x = math.log10(t.suggest_float("lr", 1e-6, 1, log=True))
    return (x + 3) ** 2 + 0.1 * math.sin(1000 * x)


def hartmann6(t):
    x = [t.suggest_float(f"x{i}", 0, 1) for i in range(6)]
    return -sum(ALPHA[i] * math.exp(-sum(A[i][j] * (x[j] - P[i][j]) ** 2 for j in range(6))) for i in range(4))


def main():
    trials, seeds = int(sys.argv[1]), int(sys.argv[2])
    for name, f in (("branin", branin), ("log-lr", log_lr), ("hartmann6", hartmann6)):
        for seed in range(seeds):
            study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
            study.optimize(f, n_trials=trials)
            print(f"{name} optuna-tpe {seed} {study.best_value:.6f}", flush=True)


main()
