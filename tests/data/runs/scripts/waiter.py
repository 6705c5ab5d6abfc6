"""Runs until the test creates --go-file, then saves a model: lets a test act mid-run."""
import argparse
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--go-file", required=True)
parser.add_argument("--model-dir", default=os.environ["SM_MODEL_DIR"])
args, _ = parser.parse_known_args()

print("waiting for", args.go_file)
deadline = time.monotonic() + 600  # never outlive a test run that died
while not os.path.exists(args.go_file) and time.monotonic() < deadline:
    time.sleep(0.05)
with open(os.path.join(args.model_dir, "model.pth"), "wb") as f:
    f.write(b"weights")
print("done")
