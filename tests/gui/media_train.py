"""A small training script for tests/gui/media-screenshots.sh: as a script without TensorBoard logs
them (docs/metrics.md, "Images, histograms and text"), an image of its samples every 10 x seed steps (the runs
side by side at a step show the latest at or before it) in
$SM_OUTPUT_DIR/images/samples/<step>.png and the histogram of a layer's weights every step in
$SM_OUTPUT_DIR/histograms.jsonl, with the loss on stdout. Standard library only."""
import argparse
import json
import math
import os
import random
import struct
import zlib

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--steps", type=int, default=200)
a = p.parse_args()
rng = random.Random(a.seed)
out = os.environ.get("SM_OUTPUT_DIR", "output")
images = os.path.join(out, "images", "samples")
os.makedirs(images, exist_ok=True)


def png(width, height, pixel):
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\0" + b"".join(bytes(pixel(x, y)) for x in range(width)) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) +
            chunk(b"IDAT", zlib.compress(rows, 6)) + chunk(b"IEND", b""))


def sample(step):
    """A 'generated' picture that sharpens as training goes: rings blurred by noise that fades."""
    noise = 1.0 / (1.0 + step * a.lr * 2)
    phase = a.seed * 0.7

    def pixel(x, y):
        r = math.hypot(x - 48, y - 48) / 6.0
        v = 0.5 + 0.5 * math.sin(r + phase)
        v = (1 - noise) * v + noise * rng.random()
        return (int(255 * v), int(255 * (1 - v) * 0.6 + 60), int(160 + 80 * math.cos(r / 3 + phase)))
    return png(96, 96, pixel)


with open(os.path.join(out, "histograms.jsonl"), "a") as hist:
    for step in range(a.steps + 1):
        loss = 2.0 * math.exp(-step * a.lr * 3) + 0.1 + rng.gauss(0, 0.01)
        print(json.dumps({"step": step, "loss": loss}), flush=True)
        if step % (10 * a.seed) == 0:
            with open(os.path.join(images, "%d.tmp" % step), "wb") as f:
                f.write(sample(step))
            os.replace(os.path.join(images, "%d.tmp" % step), os.path.join(images, "%d.png" % step))
        # The weights spread out and drift as the model trains: 30 buckets over [-1.5, 1.5].
        spread = 0.15 + 0.35 * (1 - math.exp(-step / 60.0))
        centre = 0.2 * math.sin(step / 40.0 + a.seed)
        limits = [-1.5 + (i + 1) * 0.1 for i in range(30)]
        counts = [round(1000 * math.exp(-(((l - 0.05) - centre) / spread) ** 2 / 2) * 0.1 / spread, 1) for l in limits]
        hist.write(json.dumps({"tag": "weights/fc1", "step": step, "bucket_limit": limits, "bucket": counts,
                               "min": -1.5, "max": 1.5}, allow_nan=False) + "\n")
