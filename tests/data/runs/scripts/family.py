"""Spawns a child (python) that spawns grandchildren (sh + sleep, one of them ignoring
SIGTERM), writes their pids to --ready-file, and waits: what cancel must stop entirely."""
import argparse
import os
import subprocess
import sys
import time

CHILD = r"""
import json, os, subprocess, sys, time
stubborn = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 600 & wait; sleep 600"])
plain = subprocess.Popen(["sh", "-c", "sleep 600; echo never"])
ready = sys.argv[1]
with open(ready + ".tmp", "w") as f:
    json.dump({"child": os.getpid(), "grandchildren": [stubborn.pid, plain.pid]}, f)
os.rename(ready + ".tmp", ready)
time.sleep(600)
"""

parser = argparse.ArgumentParser()
parser.add_argument("--ready-file", required=True)
parser.add_argument("--handle-term", default="false")
args, _ = parser.parse_known_args()

if args.handle_term == "true":
    import signal

    def stop(signum, frame):
        # A script that saves its work on SIGTERM (as SageMaker spot training does) and exits 0.
        with open(os.path.join(os.environ["SM_MODEL_DIR"], "model.pth"), "wb") as f:
            f.write(b"saved on SIGTERM")
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)

child = subprocess.Popen([sys.executable, "-c", CHILD, args.ready_file])
print("started child", child.pid)
deadline = time.monotonic() + 600
while time.monotonic() < deadline:
    time.sleep(0.1)
