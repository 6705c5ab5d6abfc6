# The budget tests' run: works (sleeps) far longer than its cap; on SIGTERM, the grace signal, it
# writes a checkpoint file into its model folder and ends, unless --ignore-term makes it keep on
# until SIGKILL.
import argparse, os, signal, sys, time
p = argparse.ArgumentParser()
p.add_argument("--seconds", type=float, default=120)
p.add_argument("--ignore-term", type=int, default=0)
a, _ = p.parse_known_args()
model = os.environ["SM_MODEL_DIR"]

def on_term(signum, frame):
    with open(os.path.join(model, "checkpoint.txt"), "w") as f:
        f.write("saved at the grace signal\n")
    print("checkpoint written", flush=True)
    if not a.ignore_term:
        sys.exit(143)

signal.signal(signal.SIGTERM, on_term)
print("working", flush=True)
deadline = time.monotonic() + a.seconds
while time.monotonic() < deadline:
    time.sleep(0.05)
print("done", flush=True)
