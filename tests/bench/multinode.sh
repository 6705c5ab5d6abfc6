#!/usr/bin/env bash
# Multi-node run benchmark (issue 20), run by hand (not by CI):
#   REPEATS=R tests/bench/multinode.sh [BUILD_DIR]         (defaults: 3 repeats, build)
# On a real two-node Slurm on this machine (tests/services/slurm.sh start DIR 2, started here
# in a temporary folder and stopped at the end, unless SLURM_CONF already names a cluster of two
# or more idle nodes), one DDP-style script across 2 nodes, 1 task each:
#   - ferry: `ferry run bench.py --target slurm:local --nodes 2` (the runner's sbatch, its
#     `srun --kill-on-bad-exit`, the per-rank contract, the free MASTER_PORT probe);
#   - the peer: `sbatch -N2 --ntasks-per-node=1 --wrap 'srun python3 bench.py'` with
#     MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE set by hand, what a user writes without Ferry.
# Time from submit to all ranks running = the later of the two ranks' first-line time.time()
# minus the wall clock just before `ferry run` / `sbatch` (the script stamps before it imports
# torch, so both sides pay the same import afterwards). Then both sides time gloo all_reduce of
# 1, 16 and 64 MB (3 calls each after a warm-up) and print the bus bandwidth,
# 2·(n−1)/n · size / time, as nccl-tests define it. Prints medians over REPEATS of each side and
# their difference and ratio.
# Measured 2026-12-06 (2 cores, 5 repeats): 2.19 s for ferry against 0.73 s bare; all_reduce
# 16 MB 565 / 598 MB/s (docs/multi-node.md).
# Needs root (the cluster), slurm-wlm, munge and python3-torch (packaging/install-deps.sh test).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
build=${1:-build}
repeats=${REPEATS:-3}
ferry="$root/$build/bin/ferry"
[ -x "$ferry" ] || { echo "no $ferry: build first (see README)" >&2; exit 1; }
[[ "$repeats" =~ ^[1-9][0-9]*$ ]] || { echo "REPEATS must be a positive number" >&2; exit 1; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "no python3-torch: packaging/install-deps.sh test" >&2; exit 1; }

ws=$(mktemp -d)
chmod 755 "$ws" # munged wants its socket folder reachable by all
own_cluster=
cleanup() {
  [ -n "$own_cluster" ] && bash "$root/tests/services/slurm.sh" stop "$ws/cluster" 2 >/dev/null 2>&1 || true
  rm -rf "$ws"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$ws/config" XDG_RUNTIME_DIR="$ws/run"
mkdir -p "$XDG_RUNTIME_DIR" "$ws/cluster-runs" "$ws/peer" && chmod 700 "$XDG_RUNTIME_DIR"

nodes_idle() { [ "$(sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" -ge 2 ]; }
if [ -z "${SLURM_CONF:-}" ] || ! nodes_idle; then
  echo "starting a two-node Slurm in $ws/cluster"
  bash "$root/tests/services/slurm.sh" start "$ws/cluster" 2 >/dev/null
  own_cluster=1
  export SLURM_CONF="$ws/cluster/slurm.conf"
fi
nodes_idle || { echo "the cluster has fewer than two idle nodes: sinfo says" >&2; sinfo >&2; exit 1; }

cat >"$ws/bench.py" <<'PY'
import time
t0 = time.time()
import argparse, os
p = argparse.ArgumentParser()
p.add_argument("--stamps", required=True)
a, _ = p.parse_known_args()
with open(a.stamps, "a") as f:
    f.write(f"running {os.environ.get('RANK', '?')} {t0!r}\n")
import torch
import torch.distributed as dist
dist.init_process_group("gloo")
rank, world = dist.get_rank(), dist.get_world_size()
for mb in (1, 16, 64):
    t = torch.ones(mb * 1024 * 1024 // 4)
    dist.all_reduce(t)
    start = time.perf_counter()
    for _ in range(3):
        dist.all_reduce(t)
    seconds = (time.perf_counter() - start) / 3
    if rank == 0:
        print("allreduce %d %.6f %.1f" % (mb, seconds, mb * 2 * (world - 1) / world / seconds), flush=True)
dist.barrier()
dist.destroy_process_group()
PY
printf 'ferry: 1\nname: host\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n' >"$ws/env.yml"
# What a user writes by hand: the rendezvous from Slurm's own variables.
cat >"$ws/peer.sh" <<'SH'
#!/bin/bash
export MASTER_ADDR=$(scontrol show node "$(scontrol show hostnames "$SLURM_JOB_NODELIST" | head -n1)" | sed -n 's/.*NodeAddr=\([^ ]*\).*/\1/p')
export MASTER_PORT=$((29500 + SLURM_JOB_ID % 2000)) WORLD_SIZE=$SLURM_NTASKS
srun --kill-on-bad-exit bash -c 'RANK=$SLURM_PROCID LOCAL_RANK=$SLURM_LOCALID exec /usr/bin/python3 "$0" "$@"' "$@"
SH
chmod +x "$ws/peer.sh"

now() { date +%s.%N; }
# The later rank's start minus T0 (the stamps file of one attempt).
all_running() {
  /usr/bin/python3 - "$1" "$2" <<'PY'
import sys
lines = [l.split() for l in open(sys.argv[1]) if l.startswith("running ")]
if len(lines) != 2:
    sys.exit(f"{sys.argv[1]}: {len(lines)} ranks started, expected 2")
print("%.3f" % (max(float(t) for _, _, t in lines) - float(sys.argv[2])))
PY
}
wait_queue_empty() {
  for _ in $(seq 600); do [ -z "$(squeue -h -o %i)" ] && return 0; sleep 0.1; done
  echo "the queue did not empty: squeue says" >&2; squeue >&2; exit 1
}

results="$ws/results.txt"
for k in $(seq "$repeats"); do
  wait_queue_empty
  # Ferry
  stamps="$ws/ferry-$k.txt"
  t0=$(now)
  (cd "$ws" && "$ferry" run bench.py --env env.yml --target slurm:local --nodes 2 \
      --remote-dir "$ws/cluster-runs" --hp "stamps=$stamps" --follow >"$ws/ferry-$k.out" 2>"$ws/ferry-$k.err") || {
    echo "ferry run failed; its output:" >&2; cat "$ws/ferry-$k.out" "$ws/ferry-$k.err" >&2; exit 1; }
  id=$(head -n1 "$ws/ferry-$k.out" | tr -d '[:space:]')
  echo "ferry $(all_running "$stamps" "$t0")" >>"$results"
  (cd "$ws" && "$ferry" runs logs "$id") | sed -n 's/^allreduce /ferry-bw /p' >>"$results"
  wait_queue_empty
  # The peer
  stamps="$ws/peer-$k.txt"
  t0=$(now)
  job=$(cd "$ws/peer" && sbatch --parsable -N2 --ntasks-per-node=1 -o "$ws/peer-$k.log" \
      "$ws/peer.sh" "$ws/bench.py" --stamps "$stamps")
  while squeue -h -j "$job" -o %i 2>/dev/null | grep -q .; do sleep 0.1; done
  grep -q '^allreduce ' "$ws/peer-$k.log" || { echo "the sbatch job failed; its log:" >&2; cat "$ws/peer-$k.log" >&2; exit 1; }
  echo "peer $(all_running "$stamps" "$t0")" >>"$results"
  sed -n 's/^allreduce /peer-bw /p' "$ws/peer-$k.log" >>"$results"
done

/usr/bin/python3 - "$results" "$repeats" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]) if l.strip()]
start = {side: [float(r[1]) for r in rows if r[0] == side] for side in ("ferry", "peer")}
print(f"== submit to both ranks running, 2 nodes x 1 task, {sys.argv[2]} repeats (seconds)")
print(f"{'':<44} {'median':>8} {'min':>8} {'max':>8}")
names = {"ferry": "ferry run --nodes 2 (slurm:local)", "peer": "sbatch -N2 + srun, rendezvous by hand"}
for side in ("ferry", "peer"):
    v = start[side]
    print(f"{names[side]:<44} {statistics.median(v):>8.3f} {min(v):>8.3f} {max(v):>8.3f}")
f, p = statistics.median(start["ferry"]), statistics.median(start["peer"])
print(f"ferry - peer: {f - p:+.3f} s ({f / p:.2f}x)")
print("== gloo all_reduce across the two nodes, rank 0's view (median over repeats)")
print(f"{'size':>6} {'ferry s':>10} {'ferry MB/s':>11} {'peer s':>10} {'peer MB/s':>11}")
for mb in ("1", "16", "64"):
    cells = []
    for side in ("ferry-bw", "peer-bw"):
        got = [r for r in rows if r[0] == side and r[1] == mb]
        cells += [statistics.median(float(r[2]) for r in got), statistics.median(float(r[3]) for r in got)]
    print(f"{mb + ' MB':>6} {cells[0]:>10.4f} {cells[1]:>11.1f} {cells[2]:>10.4f} {cells[3]:>11.1f}")
PY
