#!/usr/bin/env bash
# A private Slurm (Debian 12 slurm-wlm 22.05 + munge) for the Slurm target tests, without
# systemd: its own munged socket, slurmctld and slurmd on 127.0.0.1, two fake GPUs per node
# (character devices cloned from /dev/null, so --gres=gpu:N sets CUDA_VISIBLE_DEVICES), no
# accounting database (sacct -c reads the jobcomp log), state in one folder.
#   slurm.sh start DIR [NODES]  start it unless it runs; clients need SLURM_CONF=DIR/slurm.conf
#   slurm.sh stop DIR           cancel its jobs and stop the daemons this script started, by pid
# NODES (default 1): one node named after the host; 2 or more: nodes n1..nN, each its own slurmd
# (`slurmd -N nK`, Debian's build has MULTIPLE_SLURMD) on 127.0.0.1 with its own port, spool,
# pid and log (%n), sharing the host name localhost: multi-node jobs on one machine.
# Needs root, slurm-wlm and munge (packaging/install-deps.sh test).
set -euo pipefail

D=${2:-}
[ -n "$D" ] || { echo "usage: $0 start|stop DIR [NODES]" >&2; exit 2; }
NODES=${3:-1}
[[ "$NODES" =~ ^[1-8]$ ]] || { echo "slurm.sh: NODES is 1 to 8, not '$NODES'" >&2; exit 2; }
mkdir -p "$D"; D=$(cd "$D" && pwd)
export SLURM_CONF=$D/slurm.conf

alive() { # alive PIDFILE NAME: the pid in the file is a live NAME
  local pid; pid=$(cat "$1" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = "$2" ]
}

# The slurmd pid files: one, or one per node.
slurmd_pids() {
  if [ "$NODES" = 1 ]; then echo "$D/slurmd.pid"; else for n in $(seq "$NODES"); do echo "$D/slurmd-n$n.pid"; done; fi
}

running() {
  alive "$D/slurmctld.pid" slurmctld || return 1
  local p; for p in $(slurmd_pids); do alive "$p" slurmd || return 1; done
  [ "$(sinfo -h -o %T 2>/dev/null | sort -u)" = idle ]
}

node_names() {
  if [ "$NODES" = 1 ]; then hostname -s; else for n in $(seq "$NODES"); do echo "n$n"; done; fi
}

# One node named after the host, or n1..nN sharing the host name localhost, each on its own
# slurmd port after the controller's (BASE + 1 + K).
node_lines() {
  local spec; spec=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
  if [ "$NODES" = 1 ]; then echo "NodeName=$(hostname -s) $spec NodeAddr=127.0.0.1 Gres=gpu:2 State=UNKNOWN"; return; fi
  for n in $(seq "$NODES"); do
    echo "NodeName=n$n NodeHostname=localhost NodeAddr=127.0.0.1 Port=$(( $1 + 1 + n )) $spec Gres=gpu:2 State=UNKNOWN"
  done
}

start() {
  if running; then return 0; fi
  command -v slurmctld >/dev/null || { echo "slurm.sh: slurm-wlm missing (packaging/install-deps.sh test)" >&2; return 1; }
  [ "$(id -u)" -eq 0 ] || { echo "slurm.sh: needs root" >&2; return 1; }
  stop
  local H base; H=$(hostname -s)
  # Ports from the folder's name, so two build folders never share a cluster.
  base=$(( 30000 + ($(printf %s "$D" | cksum | cut -d' ' -f1) % 1000) * 10 ))
  mkdir -p "$D"/{munge,state,log,fakegpu}
  chmod 755 "$D/munge"
  [ -f "$D/munge/munge.key" ] || mungekey --create --keyfile="$D/munge/munge.key"
  alive "$D/munge/munged.pid" munged || \
    munged --socket="$D/munge/munge.sock" --key-file="$D/munge/munge.key" \
      --pid-file="$D/munge/munged.pid" --log-file="$D/munge/munged.log" --seed-file="$D/munge/munged.seed"
  for i in 0 1; do [ -c "$D/fakegpu/nvidia$i" ] || mknod "$D/fakegpu/nvidia$i" c 1 3; done
  cat > "$D/slurm.conf" <<CONF
ClusterName=ferrytest
SlurmctldHost=$H(127.0.0.1)
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$D/munge/munge.sock
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$D/state
SlurmctldPidFile=$D/slurmctld.pid
SlurmctldLogFile=$D/log/slurmctld.log
$(if [ "$NODES" = 1 ]; then
    printf 'SlurmdSpoolDir=%s/spool\nSlurmdPidFile=%s/slurmd.pid\nSlurmdLogFile=%s/log/slurmd.log\n' "$D" "$D" "$D"
  else
    printf 'SlurmdSpoolDir=%s/spool-%%n\nSlurmdPidFile=%s/slurmd-%%n.pid\nSlurmdLogFile=%s/log/slurmd-%%n.log\n' "$D" "$D" "$D"
  fi)
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/filetxt
JobCompLoc=$D/log/jobcomp.txt
MpiDefault=none
MailProg=/bin/true
SchedulerType=sched/backfill
SchedulerParameters=batch_sched_delay=0
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
MinJobAge=3600
KillWait=5
ReturnToService=2
GresTypes=gpu
$(node_lines "$base")
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
  { echo AutoDetect=off
    for n in $(node_names); do echo "NodeName=$n Name=gpu File=$D/fakegpu/nvidia[0-1]"; done; } > "$D/gres.conf"
  slurmctld
  if [ "$NODES" = 1 ]; then
    mkdir -p "$D/spool"; slurmd
  else
    for n in $(node_names); do mkdir -p "$D/spool-$n"; slurmd -N "$n"; done
  fi
  for _ in $(seq 120); do
    [ "$(sinfo -h -o %T 2>/dev/null | sort -u)" = idle ] && return 0; sleep 0.5
  done
  echo "slurm.sh: the nodes did not become idle" >&2; tail -20 "$D"/log/*.log >&2; return 1
}

stop() {
  if alive "$D/slurmctld.pid" slurmctld; then
    squeue -h -o %i 2>/dev/null | xargs -r scancel 2>/dev/null || true
  fi
  local p name pid
  for p in $(for f in "$D"/slurmd.pid "$D"/slurmd-*.pid; do [ -f "$f" ] && echo "slurmd:$f"; done) \
           slurmctld:"$D/slurmctld.pid" munged:"$D/munge/munged.pid"; do
    name=${p%%:*}; p=${p#*:}
    alive "$p" "$name" || continue
    pid=$(cat "$p"); kill "$pid" 2>/dev/null || continue
    for _ in $(seq 100); do
      kill -0 "$pid" 2>/dev/null || break
      [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
      sleep 0.1
    done
  done
}

case "$1" in
  start) start ;;
  stop) stop ;;
  *) echo "usage: $0 start|stop DIR [NODES]" >&2; exit 2 ;;
esac
