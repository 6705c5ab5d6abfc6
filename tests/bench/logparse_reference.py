#!/usr/bin/env python3
"""The peer of tests/bench/logparsebench.cpp: the same log read line by line in Python, the last
carriage-return part of each line kept, its dict read with ast.literal_eval, its numeric fields
counted. Prints "python POINTS SECONDS" (file reading included, interpreter start left out).
    logparse_reference.py LOG"""
import ast
import sys
import time

start = time.perf_counter()
points = 0
with open(sys.argv[1], "r", encoding="utf-8", errors="replace", newline="\n") as f:
    for line in f:
        text = line.rstrip("\n").split("\r")[-1]
        at = text.find("{")
        if at < 0:
            continue
        record = ast.literal_eval(text[at:])
        for key, value in record.items():
            if key == "epoch":
                continue
            try:
                float(value)
                points += 1
            except (TypeError, ValueError):
                pass
print(f"python {points} {time.perf_counter() - start:.3f}")
