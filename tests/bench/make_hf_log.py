#!/usr/bin/env python3
"""A Hugging Face Trainer-style log for tests/bench/logparse.sh: LINES lines, each two tqdm
redraws (carriage returns, the bar's block characters, counters, times and rate) and the dict
the Trainer prints after the bar; every tenth dict quotes its numbers, as newer releases do.
    make_hf_log.py LINES OUT"""
import random
import sys

lines, out = int(sys.argv[1]), sys.argv[2]
rng = random.Random(20241203)
total = lines * 2
with open(out, "w", encoding="utf-8") as f:
    for i in range(lines):
        for k in (2 * i, 2 * i + 1):
            pct = k * 100 // total
            bar = "\u2588" * (pct // 4) + "\u258f" + " " * (25 - pct // 4)
            f.write(f"\r {pct:3d}%|{bar}| {k}/{total} [{k // 60:02d}:{k % 60:02d}<10:00:00,  7.03s/it]")
        loss = 4.0 / (1 + i / 1000) + rng.random() * 0.1
        record = {"loss": round(loss, 4), "grad_norm": rng.random() * 10, "learning_rate": 7e-05 * (1 - i / lines),
                  "epoch": round(i / lines * 3, 2)}
        if i % 10 == 9:
            record = {k: str(v) for k, v in record.items()}
        f.write(repr(record) + "\n")
