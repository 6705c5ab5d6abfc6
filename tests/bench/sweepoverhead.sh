#!/usr/bin/env bash
# Sweep controller overhead benchmark, run by hand (not by CI):
#   TRIALS=N tests/bench/sweepoverhead.sh [BUILD_DIR]      (defaults: 20 trials, build)
# The time the sweep controller (core/sweep/sweepcontroller.h) adds between one trial's end and
# the next one's start on the local target, next to its floor measured in the same run:
#   - ferry: `ferry sweep start --wait` on a grid of TRIALS trials, max_parallel 1, of a script
#     that does nothing (0.2 s of sleep) but stamp its start and end into an absolute file;
#   - the peer: a plain shell loop running the same script TRIALS times, one after another
#     (Python start-up and interpreter exit, nothing else).
# Gap = start(i+1) - end(i), both clocks the trials' own time.time(). Prints median, mean and
# max gap of each, the difference of medians (the controller's overhead per trial) and their
# ratio, and each whole run's wall time. The controller polls local trials every
# ControllerOptions::localPollMs (50 ms): expect about that plus a run's start-up. Measured
# 2026-12-04 (2 cores): 75 ms median gap against the loop's 18 ms, 57 ms of overhead a trial
# (205 ms when it polled every 200 ms).
# Both sides run Debian's /usr/bin/python3: Ferry's local target runs `python3` from PATH, so
# /usr/bin goes first (a pyenv shim earlier on PATH would add its own start-up to Ferry's side).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
trials=${TRIALS:-20}
ferry="$PWD/$build/bin/ferry"
[ -x "$ferry" ] || { echo "no $ferry: build first (see README)" >&2; exit 1; }
[ "$trials" -ge 2 ] || { echo "TRIALS must be at least 2 (a gap needs two trials)" >&2; exit 1; }

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
export XDG_CONFIG_HOME="$ws/config" XDG_RUNTIME_DIR="$ws/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
export PATH="/usr/bin:$PATH"

mkdir -p "$ws/sweeps"
cat >"$ws/trial.py" <<'PY'
import time
t0 = time.time()
import argparse, json, os, sys
parser = argparse.ArgumentParser()
parser.add_argument("--stamps")
parser.add_argument("--lr")
args, _ = parser.parse_known_args()
stamps = args.stamps or os.environ.get("STAMP_FILE")
if stamps:
    with open(stamps, "a") as f:
        f.write(f"start {t0!r}\n")
print(json.dumps({"step": 1, "val_loss": 0.5}), flush=True)
time.sleep(0.2)
if stamps:
    with open(stamps, "a") as f:
        f.write(f"end {time.time()!r}\n")
PY
values=$(seq -s ', ' 1 "$trials")
cat >"$ws/sweeps/bench.yml" <<EOF
ferry-sweep: 1
script: trial.py
hyperparameters: {stamps: $ws/ferry-stamps.txt}
method: grid
metric: val_loss
parameters:
  lr: [$values]
max_parallel: 1
EOF

now() { date +%s.%N; }

# Ferry: one sweep of $trials trials, one at a time.
t0=$(now)
if ! id=$(/usr/bin/env -C "$ws" "$ferry" sweep start sweeps/bench.yml --wait 2>"$ws/ferry.err"); then
  echo "ferry sweep start failed; its stderr:" >&2
  cat "$ws/ferry.err" >&2
  for log in "$ws"/.ferry/sweeps/*/log; do
    [ -f "$log" ] && { echo "== $log" >&2; cat "$log" >&2; }
  done
  exit 1
fi
ferry_s=$(echo "$(now) - $t0" | bc)
id=$(echo "$id" | tail -n 1)

# The peer: the same script, a plain shell loop.
t0=$(now)
for k in $(seq "$trials"); do
  (cd "$ws" && /usr/bin/python3 trial.py --stamps "$ws/peer-stamps.txt" --lr "$k" >/dev/null)
done
peer_s=$(echo "$(now) - $t0" | bc)

/usr/bin/python3 - "$trials" "$ws/ferry-stamps.txt" "$ws/peer-stamps.txt" "$ferry_s" "$peer_s" "$id" <<'PY'
import statistics, sys
trials = int(sys.argv[1])
def gaps(path):
    try:
        lines = [l.split() for l in open(path) if l.strip()]
    except FileNotFoundError:
        sys.exit(f"{path}: no stamps (did the trials run?)")
    starts = sorted(float(t) for k, t in lines if k == "start")
    ends = sorted(float(t) for k, t in lines if k == "end")
    if len(starts) != trials or len(ends) != trials:
        sys.exit(f"{path}: {len(starts)} starts and {len(ends)} ends, expected {trials} of each")
    if any(ends[i] < starts[i] or (i + 1 < trials and starts[i + 1] < ends[i]) for i in range(trials)):
        sys.exit(f"{path}: trials overlap")
    return [1000 * (starts[i + 1] - ends[i]) for i in range(trials - 1)]
rows = [("ferry sweep (max_parallel 1)", gaps(sys.argv[2]), float(sys.argv[4])),
        ("shell loop", gaps(sys.argv[3]), float(sys.argv[5]))]
print(f"== gap between one trial's end and the next one's start, {trials} trials (sweep {sys.argv[6]})")
print(f"{'':<30} {'median ms':>10} {'mean ms':>10} {'max ms':>10} {'whole run s':>12}")
for name, g, whole in rows:
    print(f"{name:<30} {statistics.median(g):>10.1f} {statistics.mean(g):>10.1f} {max(g):>10.1f} {whole:>12.2f}")
f, p = statistics.median(rows[0][1]), statistics.median(rows[1][1])
print(f"controller overhead per trial: {f - p:.1f} ms (median gaps {f:.1f} / {p:.1f} ms: {f / p:.1f}x the shell loop)")
PY
