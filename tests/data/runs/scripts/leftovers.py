"""Leaves a process running in its group (ignoring SIGTERM) and exits 0: the run ends with
its script, so the supervisor must stop what it left."""
import json
import os
import subprocess

stray = subprocess.Popen(["sh", "-c", "trap '' TERM; sleep 600 & wait; sleep 600"])
with open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "stray.json"), "w") as f:
    json.dump({"pid": stray.pid}, f)
print("leaving", stray.pid)
