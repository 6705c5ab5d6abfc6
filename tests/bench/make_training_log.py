#!/usr/bin/env python3
"""Writes a training log as scripts print it, for tests/bench/ingest.sh:
   make_training_log.py LINES OUT
Mixed: `step=N loss=X acc=Y` lines, JSON lines, and noise that carries no metric."""
import random
import sys

lines, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(42)
noise = [
    "2024-01-01 12:30:01 INFO data loader worker 3 ready",
    "Downloading: 45% of 10MB, ETA 3s",
    "WARNING: gradient clipping applied",
    "",
    "checkpoint saved to /opt/ml/checkpoints/last.pt",
]
with open(out, "w") as f:
    for i in range(lines):
        r = i % 10
        loss = 2.0 / (1 + i * 1e-4) + rng.random() * 0.01
        if r < 6:
            f.write(f"step={i} loss={loss:.6f} acc={rng.random():.4f}\n")
        elif r < 8:
            f.write(f'{{"step": {i}, "loss": {loss:.6f}, "lr": {1e-3 * (1 - i / lines):.6g}, '
                    f'"grad_norm": {rng.random() * 5:.5f}}}\n')
        else:
            f.write(noise[i % len(noise)] + "\n")
