#!/usr/bin/env bash
# Duration estimate benchmark, run by hand (not by CI):
#   TRIALS=N tests/bench/estimate.sh [BUILD_DIR]        (defaults: 32 trials, build; KEEP=1 keeps
#                                                        the workspace, for ferry_estimatebench again)
# On the history of a real sweep of the embedded trainer, how close the estimate before a run
# (core/cost/estimate.h, docs/cost.md) comes to what the run took, next to the peer the issue
# names, the last run's duration, measured on the same runs:
#   - `ferry sweep start --wait` of a random search of TRIALS trials (max_parallel 1, so no trial
#     slows another) over epochs (int_uniform 2..20) and the learning rate; each trial is a Python
#     script that runs `ferry train --data DATA.csv --epochs E --lr LR` into the same workspace,
#     on a table of 40,000 rows of 32 features (made here, seeded);
#   - then ferry_estimatebench reads the store: every run of the embedded trainer (target
#     embedded: the training alone, its data loaded) and every trial (target local: Python and a
#     Ferry starting, the data loading, the training), each estimated from all the others
#     (leave-one-out) and from the runs before it alone (what the estimate said at its launch).
# Prints the median and 90th percentile of |estimate - actual| / actual for the estimate's typical
# value, the last run's duration and the last run's scaled by epochs, and how often the actual
# time fell inside the estimate's [low, high]. Goal: the estimate's median at most 15 %.
# Measured 2026-12-07 (2 cores shared with other builds), leave-one-out: the embedded trainer's
# runs 14.8 % (the last run's duration 52.4 %), the trials 10.0 % (34.7 %); docs/cost.md has all.
# Again 2026-12-07 20:52 on a quiet machine: 1.2 % (42.2 %), the trials 2.9 % (26.3 %); and
# 2026-12-07 23:49, quiet: 0.6 % (41.4 %), the trials 4.1 % (32.5 %); at launch 0.5 % and 5.3 %.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
trials=${TRIALS:-32}
ferry="$PWD/$build/bin/ferry"
cmake --build "$build" --target ferry ferry_trainer ferry_estimatebench >/dev/null
bench="$PWD/$build/tests/bench/ferry_estimatebench"
[ -x "$bench" ] || bench=$(find "$PWD/$build" -name ferry_estimatebench -type f -perm -u+x | head -n 1)
[ -x "$ferry" ] && [ -x "$bench" ] || { echo "no $ferry or ferry_estimatebench: build first (see README)" >&2; exit 1; }
[ "$trials" -ge 30 ] || { echo "TRIALS must be at least 30" >&2; exit 1; }

ws=$(mktemp -d)
if [ -n "${KEEP:-}" ]; then echo "workspace kept: $ws"; else trap 'rm -rf "$ws"' EXIT; fi
export XDG_CONFIG_HOME="$ws/config" XDG_RUNTIME_DIR="$ws/run"
mkdir -p "$XDG_RUNTIME_DIR" "$ws/sweeps" && chmod 700 "$XDG_RUNTIME_DIR"
export PATH="/usr/bin:$PATH"

/usr/bin/python3 - "$ws/data.csv" <<'PY'
import random, sys
random.seed(7)
rows, features = 40000, 32
weights = [random.gauss(0, 1) for _ in range(features)]
with open(sys.argv[1], "w") as f:
    f.write(",".join(f"x{i}" for i in range(features)) + ",label\n")
    for _ in range(rows):
        x = [random.gauss(0, 1) for _ in range(features)]
        y = int(sum(a * b for a, b in zip(x, weights)) + random.gauss(0, 0.5) > 0)
        f.write(",".join(f"{v:.4f}" for v in x) + f",{y}\n")
PY

cat >"$ws/trial.py" <<'PY'
# One trial: the embedded trainer on the sweep's data, recorded in the same workspace.
import argparse, subprocess, sys
parser = argparse.ArgumentParser()
parser.add_argument("--ferry")
parser.add_argument("--data")
parser.add_argument("--workspace")
parser.add_argument("--epochs")
parser.add_argument("--lr")
args = parser.parse_args()
done = subprocess.run([args.ferry, "train", "--data", args.data, "--epochs", args.epochs, "--lr", args.lr,
                       "--threads", "1", "--workspace", args.workspace, "--json"], stdout=subprocess.DEVNULL)
print('{"step": 1, "done": %d}' % (done.returncode == 0), flush=True)
sys.exit(done.returncode)
PY

cat >"$ws/sweeps/trainer.yml" <<EOF
ferry-sweep: 1
script: trial.py
hyperparameters: {ferry: "$ferry", data: "$ws/data.csv", workspace: "$ws"}
method: random
metric: {name: done, goal: maximize}
parameters:
  epochs: {distribution: int_uniform, min: 2, max: 20}
  lr: {distribution: log_uniform, min: 1.0e-4, max: 1.0e-2}
max_trials: $trials
max_parallel: 1
seed: 11
EOF

echo "== a sweep of $trials trials of the embedded trainer ($(nproc) cores), one at a time"
t0=$(date +%s)
if ! id=$(/usr/bin/env -C "$ws" "$ferry" sweep start sweeps/trainer.yml --wait 2>"$ws/ferry.err"); then
  echo "ferry sweep start failed; its stderr:" >&2
  cat "$ws/ferry.err" >&2
  for log in "$ws"/.ferry/sweeps/*/log; do
    [ -f "$log" ] && { echo "== $log" >&2; cat "$log" >&2; }
  done
  exit 1
fi
echo "sweep $(echo "$id" | tail -n 1): $(( $(date +%s) - t0 )) s"
"$bench" "$ws"
