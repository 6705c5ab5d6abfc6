"""Prints --lines numbered lines, unbuffered (each line in two writes, so a reader often
meets a line without its newline yet)."""
import argparse

parser = argparse.ArgumentParser()
parser.add_argument("--lines", type=int, required=True)
args, _ = parser.parse_known_args()
for i in range(args.lines):
    print(f"step={i} loss={1.0 / (i + 1):.6f}")
