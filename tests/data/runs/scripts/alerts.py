# The alert tests' run: prints `step=N loss=V` for each value it is given (nan and inf too), may
# stay silent a while after the first point, then ends with the exit code it is given.
import argparse, sys, time
p = argparse.ArgumentParser()
p.add_argument("--losses", default="1,0.5")
p.add_argument("--delay", type=float, default=0.05)
p.add_argument("--pause", type=float, default=0)  # seconds without a point, after the first
p.add_argument("--code", type=int, default=0)
a = p.parse_args()
for step, value in enumerate(a.losses.split(":")):
    print(f"step={step} loss={value}", flush=True)
    time.sleep(a.pause if step == 0 else a.delay)
sys.exit(a.code)
