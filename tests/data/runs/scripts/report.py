"""Writes what the script sees of its process (ids, folder, stdin) to the output data folder,
and prints a few lines."""
import json
import os
import sys

report = {
    "pid": os.getpid(),
    "pgid": os.getpgid(0),
    "sid": os.getsid(0),
    "cwd": os.getcwd(),
    "stdin": sys.stdin.read(),
    "argv": sys.argv[1:],
}
with open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "report.json"), "w") as f:
    json.dump(report, f)
os.makedirs(os.path.join(os.environ["SM_MODEL_DIR"], "sub"))
with open(os.path.join(os.environ["SM_MODEL_DIR"], "sub", "weights.bin"), "wb") as f:
    f.write(bytes(range(256)) * 4096)
with open(os.path.join(os.environ["SM_MODEL_DIR"], "model.pth"), "wb") as f:
    f.write(b"model")
print("hello from the script")
print("to stderr", file=sys.stderr)
