# What a job's script sees: its arguments, the contract's variables and its data channel.
import argparse
import json
import os

parser = argparse.ArgumentParser()
parser.add_argument("--epochs", type=int)
parser.add_argument("--lr", type=float)
parser.add_argument("--data")
parser.add_argument("--seed", type=int, default=-1)
parser.add_argument("--tag")
parser.add_argument("--verbose", action="store_true")
args = parser.parse_args()
seen = {
    "args": vars(args),
    "files": sorted(os.listdir(args.data)),
    "channel": os.environ.get("SM_CHANNEL_TRAINING"),
    "hps": json.loads(os.environ.get("SM_HPS", "{}")),
    "mode": os.environ.get("TINY_MODE"),
}
with open(os.path.join(os.environ["SM_OUTPUT_DATA_DIR"], "seen.json"), "w") as f:
    json.dump(seen, f)
for epoch in range(args.epochs):
    print(json.dumps({"loss": 1.0 / (epoch + 1), "step": epoch}))
