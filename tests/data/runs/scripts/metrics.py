# Prints N metric records slowly (N and the delay from the arguments), then saves a model.
import argparse, json, os, time
p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=40)
p.add_argument("--delay", type=float, default=0.05)
p.add_argument("--model-dir", default=os.environ["SM_MODEL_DIR"])
a = p.parse_args()
for step in range(a.steps):
    print(json.dumps({"step": step, "loss": 1.0 / (step + 1)}), flush=True)
    print(f"step={step} acc={step / a.steps:.4f} noise: not a number", flush=True)
    time.sleep(a.delay)
with open(os.path.join(a.model_dir, "model.pth"), "w") as f:
    f.write("weights")
