#!/usr/bin/env python3
"""The metrics a person reading a training log would chart, counted independently of Ferry's
parser (tests/metrics/tst_logcorpus.cpp compares the two): for each metric, how many points, and the
step, value and epoch of its last one.

    log_oracle.py FILE

Hugging Face Trainer stdout: every dict repr the Trainer printed (ast.literal_eval), numbers
bare or quoted; its step is the dict's step key, else counted per metric, its epoch the dict's
'epoch'. Keras stdout: the "- name: value" pairs of each epoch's final progress line (the redraw
after the last carriage return), the step counted per metric, no epoch. Step keys (step,
global_step, iteration, iter, batch) and the epoch are coordinates, not metrics.
"""
import ast
import json
import math
import re
import sys

STEP_KEYS = ["step", "global_step", "iteration", "iter", "batch"]
ANSI = re.compile(rb"\x1b\[[0-?]*[ -/]*[@-~]")
DICT_AT_END = re.compile(r"\{\s*'.*\}\s*$")
KERAS_PAIR = re.compile(r" - ([A-Za-z_][A-Za-z0-9_]*): ([-+0-9.eE]+|nan|inf)(?= |$)")


def number(value):
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value)
        except ValueError:
            return None
    return None


def records(data):
    for raw in data.split(b"\n"):
        raw = ANSI.sub(b"", raw.rstrip(b"\r"))
        parts = [p for p in raw.split(b"\r") if p.strip()]
        if parts:
            # What the terminal shows last (Keras' final redraw); a dict printed after a bar
            # ends its line, so it is the last part too.
            yield parts[-1].decode("utf-8", "replace")


def main(path):
    data = open(path, "rb").read()
    points = {}  # name -> [count, last step, last value, last epoch (None: none)]
    counts = {}
    for text in records(data):
        found = DICT_AT_END.search(text)
        if found:
            try:
                record = ast.literal_eval(found.group(0).strip())
            except (ValueError, SyntaxError):
                record = None
            if isinstance(record, dict):
                values = {k: number(v) for k, v in record.items()}
                x = None
                for key in STEP_KEYS:
                    if values.get(key) is not None:
                        x = values[key]
                        break
                epoch = values.get("epoch")
                for key, value in values.items():
                    if value is None or key in STEP_KEYS or key in ("epoch", "v_num", "eta"):
                        continue
                    step = x if x is not None else counts.get(key, 0)
                    counts[key] = counts.get(key, 0) + 1
                    count = points.get(key, [0])[0] + 1
                    points[key] = [count, step, value, epoch]
                continue
        if re.search(r"\d+/\d+ \[", text):
            for key, raw in KERAS_PAIR.findall(text):
                if key.lower() in ("eta",):
                    continue
                step = counts.get(key, 0)
                counts[key] = step + 1
                points[key] = [points.get(key, [0])[0] + 1, step, float(raw), None]
    for item in points.values():
        if isinstance(item[2], float) and (math.isnan(item[2]) or math.isinf(item[2])):
            item[2] = str(item[2])
    json.dump(points, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    main(sys.argv[1])
