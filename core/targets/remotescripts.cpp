#include "targets/remotescripts.h"

namespace ferry::targets::scripts {

const char watcher[] = R"SH(
ferry_watch() {
  w_log=$1; w_times=$2; w_samples=$3; w_group=$4; w_alive=$5; w_beat=${6:-}
  w_hz=$(getconf CLK_TCK 2>/dev/null || echo 100); w_page=$(getconf PAGESIZE 2>/dev/null || echo 4096)
  w_last=; w_i=0; w_n=0
  while kill -0 "$w_alive" 2>/dev/null; do
    w_now=$(date +%s%3N)
    [ -n "$w_beat" ] && echo "$w_now" > "$w_beat.tmp" && mv -f "$w_beat.tmp" "$w_beat"
    w_size=$(wc -c < "$w_log" 2>/dev/null | tr -dc 0-9)
    if [ -n "$w_size" ] && [ "$w_size" != "$w_last" ]; then echo "$w_size $w_now" >> "$w_times"; w_last=$w_size; fi
    if [ "$w_n" = 0 ] || [ $((w_i % 5)) = 0 ]; then # the first as soon as there is a group
      w_g=; [ -n "$w_group" ] && w_g=$(cat "$w_group" 2>/dev/null | tr -dc 0-9)
      if [ -z "$w_group" ] || [ -n "$w_g" ]; then
        # /proc/PID/stat after "(comm) ": state, ppid, pgrp; utime stime cutime cstime; rss. Read
        # by cat: a process gone since the glob is skipped (mawk would stop at its missing file).
        # The block is gathered in memory, then appended: no temp file, so no name in a folder
        # shared with other users that one of them could plant a link at (review L5).
        w_block=$({ cat /proc/[0-9]*/stat 2>/dev/null | awk -v g="$w_g" -v n="$w_n" -v ms="$w_now" -v hz="$w_hz" -v page="$w_page" '
            { sub(/^.*\) /, ""); if (g == "" || $3 == g) { t += $12 + $13 + $14 + $15; r += $22 } }
            END { printf "sample %d %s %.3f %d\n", n, ms, t / hz, r * page }'
          command -v nvidia-smi >/dev/null 2>&1 &&
            timeout 3 nvidia-smi --query-gpu=index,utilization.gpu,memory.used,power.draw --format=csv,nounits 2>/dev/null
          echo end; }) && printf '%s\n' "$w_block" >> "$w_samples" && w_n=$((w_n + 1))
      fi
    fi
    w_i=$((w_i + 1)); sleep 1
  done
}
)SH";

const char runnerBody[] = R"BASH(
cd "$RUN" || exit 1
exec </dev/null >>"$RUN/log" 2>&1
note() { printf 'ferry: %s\n' "$*"; }
stamp() { date +%s%3N; }
attempt=${SLURM_RESTART_COUNT:-0}
echo "$$" > "$RUN/pid.tmp" && mv -f "$RUN/pid.tmp" "$RUN/pid"
echo "$attempt" > "$RUN/attempt"
[ "$attempt" != 0 ] && note "attempt $((attempt + 1)): the job was requeued"
# Cancelled before it started: the cancel wrote the record, or asked for one while the run was
# being launched (it touches cancel-requested before it looks for processes: one of us sees the
# other). Nothing of the script runs then, and the secrets go.
[ -e "$RUN/exit.json" ] && { rm -rf "$RUN/secrets"; exit 0; }
if [ -e "$RUN/cancel-requested" ]; then
  note "cancelled before it started"
  printf '{"exitCode": -1, "signal": 0, "finishedMs": %s, "cancelled": true, "error": "cancelled before it started"}\n' \
    "$(stamp)" > "$RUN/exit.json.$$"
  ln "$RUN/exit.json.$$" "$RUN/exit.json" 2>/dev/null
  rm -f "$RUN/exit.json.$$"
  rm -rf "$RUN/secrets"
  exit 0
fi
rm -f "$RUN/child"
# The node as the run sees it (run/hostfacts.h), beside the start: nvidia-smi may take a while.
( ferry_host_facts > "$RUN/host.txt.$$" 2>/dev/null && mv -f "$RUN/host.txt.$$" "$RUN/host.txt" ) &
# The heartbeat, log.times and system.samples end with the runner ($$ is the runner's pid in the
# subshell too).
( trap 'exit 0' TERM; ferry_watch "$RUN/log" "$RUN/log.times" "$RUN/system.samples" "$RUN/child" $$ "$RUN/heartbeat" ) &
beat=$!
child=
signalled=0
# SIGTERM to the script: its group, or every rank of a run across nodes through Slurm
# (ferry_ranks_signal: srun would make it SIGKILL).
ferry_term_script() {
  declare -F ferry_ranks_signal >/dev/null && ferry_ranks_signal TERM && return 0
  kill -TERM -- "-$child" 2>/dev/null
}
# A stop for this runner (Slurm's, a cancel's).
stop() { signalled=1; [ -n "$child" ] && ferry_term_script; }
trap stop TERM INT HUP
# Secret variables (remoterun.h): the entry takes a copy and deletes it. An SSH run's file goes
# now; a Slurm job keeps it for a requeued attempt until the run ends.
if [ -e "$RUN/secrets/variables.json" ]; then
  cp -f "$RUN/secrets/variables.json" "$RUN/secrets/attempt.json" || note "cannot hand the script its secret variables"
  [ -z "${SLURM_JOB_ID:-}" ] && rm -f "$RUN/secrets/variables.json"
fi
cd "$RUN/code" || { note "no code folder in $RUN"; exit 1; }
# Its own session and process group, as a local run: a cancel stops the group. A run across
# nodes starts its ranks with srun instead (ferry_ranks_start, scripts::ranks).
if declare -F ferry_ranks_start >/dev/null; then ferry_ranks_start; else setsid "${COMMAND[@]}" & fi
child=$!
echo "$child" > "$RUN/child"
# The run's cap (an SSH or Slurm run's budget, BUDGET_S seconds of the script's time): held here,
# so it holds with Ferry closed. A word in the log at 80 %, at the cap the stop a cancel makes (TERM
# to the script's group, KILL after BUDGET_GRACE_S), and budget-reached for the exit record. A run
# across nodes sends its TERM to every rank through Slurm (ferry_ranks_signal), not to srun.
rm -f "$RUN/budget-reached"
ferry_budget_container() { # an SSH run in an image (remoteimage.h): its container too
  command -v docker >/dev/null 2>&1 || return 0
  [ -n "$(timeout 5 docker ps -q --filter "label=ferry.run-id=$FERRY_RUN_ID" 2>/dev/null)" ] &&
    timeout 10 docker kill --signal "$1" "ferry-$FERRY_RUN_ID" >/dev/null 2>&1
  return 0
}
if [ "${BUDGET_S:-0}" -gt 0 ]; then
  ( trap 'exit 0' TERM
    b_start=$(stamp); b_warned=0
    while kill -0 "$child" 2>/dev/null; do
      b_used=$(($(stamp) - b_start))
      if [ "$b_warned" = 0 ] && [ "$b_used" -ge "$BUDGET_WARN_MS" ]; then note "$BUDGET_WARNING"; b_warned=1; fi
      if [ "$b_used" -ge $((BUDGET_S * 1000)) ]; then
        : > "$RUN/budget-reached"
        note "$BUDGET_REASON: stopping the run (SIGTERM now, SIGKILL in $BUDGET_GRACE_S s)"
        ferry_term_script
        ferry_budget_container TERM
        b_end=$(($(stamp) + BUDGET_GRACE_S * 1000))
        while kill -0 -- "-$child" 2>/dev/null && [ "$(stamp)" -lt "$b_end" ]; do sleep 0.2; done
        if kill -0 -- "-$child" 2>/dev/null; then
          note "the budget's grace of $BUDGET_GRACE_S s has passed: SIGKILL"
          kill -KILL -- "-$child" 2>/dev/null
        fi
        ferry_budget_container KILL
        exit 0
      fi
      sleep 0.5
    done ) &
  budget=$!
fi
while :; do
  wait "$child"; rc=$?
  kill -0 "$child" 2>/dev/null || break
done
# Whether a signal stopped the script (a TERM after this is no stop of it).
stopped_by_signal=$signalled
kill "$beat" ${budget:-} 2>/dev/null
size=$(wc -c < "$RUN/log" 2>/dev/null | tr -dc 0-9); [ -n "$size" ] && echo "$size $(stamp)" >> "$RUN/log.times"
# What the script left running in its group goes with it.
kill -TERM -- "-$child" 2>/dev/null
sleep 0.2
kill -KILL -- "-$child" 2>/dev/null
cancelled=false
[ -e "$RUN/cancel-requested" ] && cancelled=true
# Stopped at its cap: cancelled, the budget's reason as its error (as the local supervisor's).
budget_stop=0
[ -e "$RUN/budget-reached" ] && [ "$cancelled" = false ] && { cancelled=true; budget_stop=1; }
# A rank that failed (not stopped by Slurm or a cancel) fails the run with its own reason.
why=
if [ "$rc" != 0 ] && [ "$cancelled" = false ] && [ "$stopped_by_signal" = 0 ] && declare -F ferry_ranks_failure >/dev/null; then
  read -r frank fcode fnode < <(ferry_ranks_failure) || true
  if [ -n "${frank:-}" ]; then
    rc=$fcode
    if [ "$fcode" -gt 128 ]; then why="rank $frank on $fnode was killed by signal $((fcode - 128))"
    else why="rank $frank on $fnode exited with code $fcode"; fi
    note "$why: the other ranks were stopped (its log: ferry runs logs ID --rank $frank)"
  fi
fi
# Under Slurm a signal we did not ask for is the scheduler's (time limit, preemption, a
# requeue): Ferry reads the outcome from Slurm, and a requeued job runs this again. So is the end
# of a script that saved its work on Slurm's SIGTERM to this runner and exited.
if [ "$cancelled" = false ] && [ -z "$why" ] && [ -n "${SLURM_JOB_ID:-}" ] &&
  { [ "$rc" -gt 128 ] || [ "$stopped_by_signal" = 1 ]; }; then
  if [ "$rc" -gt 128 ]; then note "stopped by signal $((rc - 128)) from Slurm"
  else note "stopped by a signal from Slurm (the script exited with code $rc)"; fi
  exit "$rc"
fi
code=$rc; sig=0
if [ "$rc" -gt 128 ]; then code=-1; sig=$((rc - 128)); fi
why_json="\"$why\""
[ "$budget_stop" = 1 ] && why_json=$BUDGET_REASON_JSON
printf '{"exitCode": %d, "signal": %d, "finishedMs": %s, "cancelled": %s, "error": %s}\n' \
  "$code" "$sig" "$(stamp)" "$cancelled" "$why_json" > "$RUN/exit.json.$$"
ln "$RUN/exit.json.$$" "$RUN/exit.json" 2>/dev/null
rm -f "$RUN/exit.json.$$"
rm -rf "$RUN/secrets"
exit 0
)BASH";

const char ranks[] = R"BASH(
# A run across nodes (run/distribution.h). The batch script (this file, on the first node)
# starts every rank with srun; each rank runs this file again with --ferry-rank.
ferry_ranks_start() {
  local nodes first addr port
  nodes=$(scontrol show hostnames "$SLURM_JOB_NODELIST" 2>/dev/null | tr -dc 'A-Za-z0-9._\n-')
  first=$(printf '%s\n' "$nodes" | head -1)
  FERRY_HOSTS_JSON="[$(printf '%s\n' "$nodes" | awk 'NF { printf "%s\"%s\"", (n++ ? "," : ""), $0 }')]"
  # Slurm's address of the first node (a node name may not resolve: several share a host).
  addr=$(scontrol show node "$first" -o 2>/dev/null | tr ' ' '\n' | sed -n 's/^NodeAddr=//p' | head -1 | tr -dc 'A-Za-z0-9.:_-')
  [ -n "$addr" ] || addr=$first
  # A port of this job's own that nothing listens on there (rank 0 runs on this node).
  port=$((29500 + ${SLURM_JOB_ID:-0} % 2000))
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/$addr/$port") 2>/dev/null || break
    port=$((port + 1))
  done
  export MASTER_ADDR=$addr MASTER_PORT=$port FERRY_HOSTS_JSON
  # The job's hosts in the contract's resourceconfig.json: one file all nodes share, so its
  # current_host is the first node's (each rank's own is SM_CURRENT_HOST).
  if [ -d "$RUN/input/config" ]; then
    printf '{"current_host": "%s", "hosts": %s, "network_interface_name": "eth0"}\n' "$first" "$FERRY_HOSTS_JSON" \
      > "$RUN/input/config/resourceconfig.json.tmp" && mv -f "$RUN/input/config/resourceconfig.json.tmp" "$RUN/input/config/resourceconfig.json"
  fi
  export WORLD_SIZE=$((FERRY_NODES * FERRY_TASKS_PER_NODE)) LOCAL_WORLD_SIZE=$FERRY_TASKS_PER_NODE
  mkdir -p "$RUN/ranks"
  rm -f "$RUN"/ranks/*.exit
  # (No NAME=NUMBER in a note: the run's log is its metrics' source.)
  note "$FERRY_NODES nodes ($(echo $nodes)), $FERRY_TASKS_PER_NODE task(s) each, $WORLD_SIZE ranks; rendezvous at $addr port $port"
  setsid srun --kill-on-bad-exit=1 --nodes="$FERRY_NODES" --ntasks="$WORLD_SIZE" \
    --ntasks-per-node="$FERRY_TASKS_PER_NODE" bash "$RUN/runner.sh" --ferry-rank &
}
# A signal to every rank, from Slurm (the job's steps, not this batch script): srun itself would
# turn a SIGTERM into SIGKILL for every rank. Fails where scancel does.
ferry_ranks_signal() {
  [ -n "${SLURM_JOB_ID:-}" ] && command -v scancel >/dev/null 2>&1 &&
    scancel --signal="$1" "$SLURM_JOB_ID" 2>/dev/null
}
# The first rank that failed, by the time it ended: "RANK CODE NODE".
ferry_ranks_failure() {
  local f c t n
  for f in "$RUN"/ranks/*.exit; do
    [ -f "$f" ] || continue
    read -r c t n < "$f" || continue
    [ "$c" != 0 ] && echo "$t $(basename "$f" .exit) $c $n"
  done | sort -n | head -1 | awk '{ print $2, $3, $4 }'
}
# One rank, on its node: rank 0 writes the run's log (its metrics), rank K ranks/K.log. The
# contract's names of this task, its own copy of the secret variables, the script.
ferry_rank() {
  local rank=${SLURM_PROCID:-0} node n cmd i te
  node=$(printf '%s' "${SLURMD_NODENAME:-$(hostname -s)}" | tr -dc 'A-Za-z0-9._-')
  if [ "$rank" = 0 ]; then exec >>"$RUN/log" 2>&1; else exec >>"$RUN/ranks/$rank.log" 2>&1; fi
  exec </dev/null
  n=0
  if [ -n "${CUDA_VISIBLE_DEVICES:-}" ] && [ "${CUDA_VISIBLE_DEVICES}" != NoDevFiles ]; then
    n=$(printf '%s\n' "$CUDA_VISIBLE_DEVICES" | tr ',' '\n' | grep -c .)
  fi
  te=${FERRY_TRAINING_ENV//'"hosts":["@FERRY_CURRENT_HOST@"]'/"\"hosts\":$FERRY_HOSTS_JSON"}
  te=${te//'@FERRY_CURRENT_HOST@'/"$node"}
  te=${te//'"num_gpus":0'/"\"num_gpus\":$n"}
  export RANK=$rank LOCAL_RANK=${SLURM_LOCALID:-0} NODE_RANK=${SLURM_NODEID:-0} SM_CURRENT_HOST=$node \
    SM_HOSTS=$FERRY_HOSTS_JSON SM_NUM_GPUS=$n SM_TRAINING_ENV=$te
  cmd=("${COMMAND[@]}")
  if [ -e "$RUN/secrets/variables.json" ]; then # each rank its own copy, which its entry deletes
    cp -f "$RUN/secrets/variables.json" "$RUN/secrets/rank-$rank.json"
    for i in "${!cmd[@]}"; do
      [ "${cmd[$i]}" = "$RUN/secrets/attempt.json" ] && cmd[$i]=$RUN/secrets/rank-$rank.json
    done
  fi
  cd "$RUN/code" || exit 1
  # A SIGTERM for every rank (a stop: the budget's, a cancel's, Slurm's) is the script's to handle:
  # this shell waits for it and records how it ended (a handler, not an ignore: the script gets the
  # default), then ends well, so that srun's --kill-on-bad-exit does not SIGKILL the ranks still
  # saving their work: the run's end is the stop's, not this rank's.
  local termed=0
  trap 'termed=1' TERM
  "${cmd[@]}"
  local rc=$?
  echo "$rc $(date +%s%3N) $node" > "$RUN/ranks/$rank.exit"
  [ "$termed" = 1 ] && return 0
  return "$rc"
}
[ "${1:-}" = --ferry-rank ] && { ferry_rank; exit $?; }
)BASH";

const char status[] = R"BASH(
RUN=$1; OFF=$2; MAX=$3; TOFF=$4; SOFF=$5; JOB=${6:-}
if ! cd "$RUN" 2>/dev/null; then echo "folder 0"; echo "--ferry-log--"; exit 0; fi
echo "folder 1"
if [ -n "$JOB" ]; then
  # The scheduler first, exit.json after: a job seen ended has written its record.
  echo "job $(scontrol show job "$JOB" -o 2>&1 | head -1)"
  squeue -h -t PD -o '%i' --sort=-p,i 2>/dev/null | awk -v j="$JOB" '$1 == j { print "position " NR }'
  if ! scontrol show job "$JOB" -o >/dev/null 2>&1; then
    echo "sacct $(sacct -n -X -P -j "$JOB" -o State,ExitCode 2>/dev/null | head -1)"
  fi
else
  pid=$(cat pid 2>/dev/null)
  if [ -n "$pid" ]; then
    echo "started 1"
    # The runner, not a process that got its pid later.
    if tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qF "$RUN/runner.sh"; then echo "alive 1"; fi
  else
    # Launched, its pid not written yet (a start not confirmed in time, M4): the runner carries
    # the run's marker from its launch on (the folder is named after the run).
    ID=${RUN##*/}
    for p in /proc/[0-9]*; do
      [ "${p#/proc/}" = "$$" ] && continue
      if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qxF "FERRY_RUN_ID=$ID"; then echo "alive 1"; break; fi
    done
  fi
fi
# What the run's script can write is cut to digits (heartbeat, attempt) or one bounded line
# (exit.json): no value can end its line early or hold the log marker as a line of its own.
echo "attempt $(head -c 32 attempt 2>/dev/null | tr -dc 0-9)"
echo "heartbeat $(head -c 32 heartbeat 2>/dev/null | tr -dc 0-9)"
[ -f exit.json ] && echo "exit $(head -c 65536 exit.json | tr -d '\n\r')"
[ -f host.txt ] && echo "host $(head -c 16384 host.txt | base64 -w0)"
# log.times and system.samples from where the local copies end, their lines joined by ';' (the
# characters their writers use only: no value can end its line early).
[ -f log.times ] && echo "times $(tail -c "+$((TOFF + 1))" log.times | head -c 65536 | tr -dc '0-9 \n' | tr '\n' ';')"
[ -f system.samples ] && echo "samples $(tail -c "+$((SOFF + 1))" system.samples | head -c 65536 | tr -dc '0-9A-Za-z .,%/_\n\133\135-' | tr '\n' ';')"
# The metric files the script wrote since it started (the source's own, copied with their old
# times, are not its; tracking/metricsources.h): an event file's or histograms.jsonl's bytes
# after the local copy's size, a rewritten metrics.csv or trainer_state.json whole; base64, at most 4 MiB a call. The
# local copies' sizes come as PATH SIZE pairs after the job.
shift 6 2>/dev/null || set --
if [ -f pid ]; then
  left=4194304
  find code model output checkpoints -newer pid -type f \( -name 'events.out.tfevents.*' -o -name metrics.csv \
      -o -name trainer_state.json -o -name histograms.jsonl \) 2>/dev/null | head -n 256 | {
    while IFS= read -r f; do
      case "$f" in *[!A-Za-z0-9._/-]* | *..*) continue ;; esac
      have=$(printf '%s\n' "$@" | awk -v f="$f" 'NR % 2 == 1 { p = $0 } NR % 2 == 0 && p == f { print; exit }')
      size=$(wc -c < "$f" 2>/dev/null | tr -dc 0-9)
      [ -n "$size" ] || continue
      [ -n "$have" ] || have=0
      case "$f" in
        */events.out.tfevents.* | */histograms.jsonl)
          [ "$size" -gt "$have" ] || continue
          n=$((size - have)); [ "$n" -gt 1048576 ] && n=1048576; [ "$n" -gt "$left" ] && n=$left
          [ "$n" -gt 0 ] || break
          echo "file $have $f $(tail -c "+$((have + 1))" "$f" | head -c "$n" | base64 -w0)"
          left=$((left - n)) ;;
        *)
          [ "$size" != "$have" ] && [ "$size" -le 8388608 ] && [ "$size" -le "$left" ] || continue
          echo "whole $size $f $(head -c "$size" "$f" | base64 -w0)"
          left=$((left - size)) ;;
      esac
    done
  }
fi
echo "--ferry-log--"
[ -f log ] && tail -c "+$((OFF + 1))" log | head -c "$MAX"
exit 0
)BASH";

const char marked[] = R"BASH(
ID=$1
for p in /proc/[0-9]*; do
  [ "${p#/proc/}" = "$$" ] && continue
  if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qxF "FERRY_RUN_ID=$ID"; then
    state=$(awk '{ print $3 }' "$p/stat" 2>/dev/null)
    [ "$state" = Z ] || echo "${p#/proc/}"
  fi
done
exit 0
)BASH";

const char kill[] = R"BASH(
RUN=$1; ID=$2; GRACE=$3
touch "$RUN/cancel-requested" 2>/dev/null
rm -rf "$RUN/secrets"
marked() {
  for p in /proc/[0-9]*; do
    [ "${p#/proc/}" = "$$" ] && continue
    if tr '\0' '\n' < "$p/environ" 2>/dev/null | grep -qxF "FERRY_RUN_ID=$ID"; then
      [ "$(awk '{ print $3 }' "$p/stat" 2>/dev/null)" = Z ] || echo "${p#/proc/}"
    fi
  done
}
signal() {
  for f in child pid; do
    g=$(cat "$RUN/$f" 2>/dev/null)
    [ -n "$g" ] && kill "-$1" -- "-$g" 2>/dev/null
  done
  for p in $(marked); do kill "-$1" "$p" 2>/dev/null; done
}
container() { command -v docker >/dev/null && docker ps -q --filter "label=ferry.run-id=$ID" 2>/dev/null; }
[ -n "$(container)" ] && docker kill --signal TERM "ferry-$ID" >/dev/null 2>&1
signal TERM
for _ in $(seq $((GRACE * 10))); do
  [ -z "$(marked)" ] && break
  sleep 0.1
done
[ -n "$(container)" ] && docker rm -f "ferry-$ID" >/dev/null 2>&1
if [ -n "$(marked)" ]; then
  signal KILL
  for _ in $(seq 100); do [ -z "$(marked)" ] && break; sleep 0.1; done
fi
left="$(marked) $(container)"
if [ -n "${left// /}" ]; then echo "left" $left; exit 0; fi
# The host's record of the cancel, unless the runner wrote its own: a runner that starts later
# finds it and does not run the script.
if [ -d "$RUN" ] && [ ! -e "$RUN/exit.json" ]; then
  if [ -e "$RUN/pid" ]; then sig=15; why=""; else sig=0; why="cancelled before it started"; fi
  printf '{"exitCode": -1, "signal": %d, "finishedMs": %s, "cancelled": true, "error": "%s"}\n' \
    "$sig" "$(date +%s%3N)" "$why" > "$RUN/exit.json.$$"
  ln "$RUN/exit.json.$$" "$RUN/exit.json" 2>/dev/null
  rm -f "$RUN/exit.json.$$"
fi
exit 0
)BASH";

const char kernelMirror[] = R"BASH(
records() {
  for n in keeper.json status.json kernel-exit.json; do
    if [ -f "$K/$n" ] && [ ! -L "$K/$n" ]; then
      printf 'ferry-record %s %s\n' "$n" "$(head -c 1048576 "$K/$n" | base64 -w0)" >&2
    fi
  done
}
mirror() {
  K=$1; OFF=$2; shift 2
  if [ $# = 0 ]; then
    records 2>&1
    echo "ferry-journal $(wc -c < "$K/journal" 2>/dev/null | tr -dc 0-9)"
    return 0
  fi
  "$@" "$K/keeper.py" follow "$K" "$OFF" &
  f=$!
  # Ferry keeps stdin open (after this script) while it reads: its end, whoever's side closed
  # the connection, ends `follow` and us; so does a write that fails.
  exec 3<&0
  ( cat <&3 >/dev/null 2>&1; kill "$f" 2>/dev/null ) >/dev/null 2>&1 &
  w=$!
  exec 3<&-
  trap 'kill "$f" "$w" 2>/dev/null; exit 1' PIPE HUP TERM INT
  i=0
  while kill -0 "$f" 2>/dev/null; do
    [ $((i % 5)) = 0 ] && records
    i=$((i + 1)); sleep 0.2
  done
  wait "$f"; rc=$?
  kill "$w" 2>/dev/null
  records
  return "$rc"
}
# Read whole before it runs (bash reads a script on stdin as it goes): the rest of stdin is Ferry's.
mirror "$@"; exit $?
)BASH";

const char kernelSignal[] = R"BASH(
PID=$1; TICKS=$2; BOOT=$3; SIG=$4; ID=$5
if [ -n "$ID" ]; then
  running=$(command -v docker >/dev/null && docker ps -q --filter "label=ferry.run-id=$ID" 2>/dev/null)
  if [ -n "$running" ] && docker kill --signal "$SIG" "ferry-$ID" >/dev/null 2>&1; then echo sent; else echo gone; fi
  exit 0
fi
case "$PID$TICKS" in *[!0-9]*) echo gone; exit 0 ;; esac
[ "$(cat /proc/sys/kernel/random/boot_id 2>/dev/null)" = "$BOOT" ] || { echo gone; exit 0; }
# Field 22 of /proc/PID/stat (the 20th after the command's name, which may hold spaces).
now=$(sed 's/^.*) //' "/proc/$PID/stat" 2>/dev/null | awk '{ print $20 }')
[ -n "$now" ] && [ "$now" = "$TICKS" ] || { echo gone; exit 0; }
kill "-$SIG" "$PID" && echo sent
)BASH";

const char kernelStopRequest[] = R"BASH(
[ -d "$1" ] || exit 0
[ -e "$1/stop-request" ] || [ -L "$1/stop-request" ] || printf '%s' "$2" > "$1/stop-request"
)BASH";

const char kernelSocketsRemove[] = R"BASH(
if [ -d "$1" ] && [ ! -L "$1" ] && [ -O "$1" ]; then rm -rf -- "$1"; fi
[ ! -e "$1" ]
)BASH";

const char hostProbe[] = R"BASH(
echo "os=$(. /etc/os-release 2>/dev/null && echo "$PRETTY_NAME")"
echo "kernel=$(uname -sr)"
echo "home=$HOME"
echo "uid=$(id -u)"
echo "gid=$(id -g)"
echo "diskFreeKiB=$(df -Pk "$HOME" 2>/dev/null | awk 'NR == 2 { print $4 }')"
echo "cpus=$(getconf _NPROCESSORS_ONLN 2>/dev/null || nproc)"
if command -v python3 >/dev/null; then echo "python=$(python3 -c 'import sys; print(sys.version.split()[0])' 2>&1)"; fi
# Bounded: a Slurm client whose slurm.conf is missing retries for a minute (or looks the cluster
# up in DNS), a docker client may wait on an engine that does not answer.
if command -v docker >/dev/null; then echo "docker=$(timeout 5 docker version --format '{{.Server.Version}}' 2>/dev/null)"; fi
if command -v sbatch >/dev/null; then echo "slurm=$(timeout 5 sbatch --version 2>/dev/null)"; fi
echo "--gpus--"
if command -v nvidia-smi >/dev/null; then "$@" 2>&1; fi
exit 0
)BASH";

} // namespace ferry::targets::scripts
