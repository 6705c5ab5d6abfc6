# Plays back what other people's training scripts left (../shared/corpus/logs/), as their
# scripts did it: --log prints a captured stdout (progress bars and all) line by line, --copy
# writes a file the way a logger does, in pieces into the working folder (SRC=DEST).
import argparse, os, sys, time

p = argparse.ArgumentParser()
p.add_argument("--log")
p.add_argument("--copy", action="append", default=[])
p.add_argument("--pieces", type=int, default=20)
p.add_argument("--delay", type=float, default=0.02)
a = p.parse_args()
if a.log:
    with open(a.log, "rb") as f:
        for line in f:
            sys.stdout.buffer.write(line)
            sys.stdout.flush()
for spec in a.copy:
    src, dest = spec.split("=", 1)
    data = open(src, "rb").read()
    os.makedirs(os.path.dirname(dest) or ".", exist_ok=True)
    step = max(1, len(data) // a.pieces + 1)
    with open(dest, "ab") as out:
        for at in range(0, len(data), step):
            out.write(data[at:at + step])
            out.flush()
            time.sleep(a.delay)
