"""Prints what Slurm tells it (attempt, GPUs) and the contract's GPU count, then saves a model.

On its first attempt with --wait-for-requeue it waits (up to a minute) to be requeued.
"""
import argparse
import os
import time

parser = argparse.ArgumentParser()
parser.add_argument("--wait-for-requeue", default="no")
parser.add_argument("--sleep", type=float, default=0)
args, _ = parser.parse_known_args()

attempt = int(os.environ.get("SLURM_RESTART_COUNT", "0") or 0)
print(f"attempt={attempt} job={os.environ.get('SLURM_JOB_ID')}", flush=True)
print(f"CUDA_VISIBLE_DEVICES={os.environ.get('CUDA_VISIBLE_DEVICES')}", flush=True)
print(f"SM_NUM_GPUS={os.environ.get('SM_NUM_GPUS')}", flush=True)
if args.wait_for_requeue == "yes" and attempt == 0:
    time.sleep(60)
time.sleep(args.sleep)
with open(os.path.join(os.environ["SM_MODEL_DIR"], "model.pth"), "w") as f:
    f.write(f"attempt {attempt}")
print("done", flush=True)
