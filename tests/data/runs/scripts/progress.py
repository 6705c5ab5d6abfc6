# The progress tests' run: real tqdm bars, and Hugging Face's Trainer's header and log dicts
# (written as its ProgressCallback writes them, through tqdm.write), stopping at a step until
# --go-file exists (so that a test sees the run mid-way), then running to the end.
#   --mode hf       the Trainer's "Total optimization steps = N" and a bar of N steps, a dict each 10
#   --mode bar      a plain loop's bar of --steps
#   --mode nototal  a bar over an iterable of unknown length ("50it [...]")
import argparse, os, sys, time
from tqdm import tqdm

p = argparse.ArgumentParser()
p.add_argument("--mode", default="hf")
p.add_argument("--steps", type=int, default=200)
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--stop-at", type=int, default=-1)
p.add_argument("--go-file", default="")
p.add_argument("--delay", type=float, default=0.002)
a = p.parse_args()


def wait_for_go(bar):
    bar.refresh()
    sys.stdout.flush()
    deadline = time.monotonic() + 600  # never outlive a test that died
    while a.go_file and not os.path.exists(a.go_file) and time.monotonic() < deadline:
        time.sleep(0.05)


def items():  # an iterable without a length
    yield from range(a.steps)


if a.mode == "hf":
    print("***** Running training *****")
    print(f"  Num examples = {a.steps * 8:,}")
    print(f"  Num Epochs = {a.epochs:,}")
    print("  Instantaneous batch size per device = 8")
    print(f"  Total optimization steps = {a.steps:,}", flush=True)
bar = tqdm(items() if a.mode == "nototal" else range(a.steps), total=None if a.mode == "nototal" else a.steps,
           mininterval=0, file=sys.stdout)  # one stream: the order a log has
for step in bar:
    time.sleep(a.delay)
    done = step + 1
    if a.mode == "hf" and done % 10 == 0:
        bar.n = done  # the bar says the steps done, as the Trainer's does when it logs
        bar.refresh()
        logs = {"loss": round(2.0 / done, 4), "learning_rate": 5e-05, "epoch": round(done * a.epochs / a.steps, 2)}
        bar.write(str(logs))
    if done == a.stop_at:
        bar.n = done  # the bar shows this step while the test looks
        wait_for_go(bar)
bar.close()
