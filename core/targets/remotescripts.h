// The bash scripts Ferry runs on a host (runner, watcher, multi-node launch), kept together to be
// read as scripts.
#pragma once

// The bash scripts Ferry runs on a host, kept together so they can be read as scripts. Each
// is sent on stdin (`bash -s -- ARGS`) or written into the run folder; values reach them only
// as arguments or through shellQuote, never pasted in by hand.
namespace ferry::targets::scripts {

// The runner's body, after `RUN=<folder>`, `COMMAND=(<env NAME=VALUE... interpreter script args>)`
// and `BUDGET_S=<seconds>` (0: no cap; else BUDGET_WARN_MS, BUDGET_GRACE_S, BUDGET_REASON, BUDGET_WARNING and
// BUDGET_REASON_JSON, run::RunBudget's texts): log redirection, pid file, heartbeat, the script in
// its own session, its cap (SIGTERM to its group, or to every rank of a run across nodes; SIGKILL
// after the grace), the exit record.
extern const char runnerBody[];

// POSIX sh: defines ferry_watch LOG TIMES SAMPLES GROUPFILE ALIVE_PID [HEARTBEAT], which runs
// while ALIVE_PID lives: every second the log's size in TIMES (run/logtimes.h) and the time in
// HEARTBEAT, every 5 s a block of SAMPLES (metrics/systemsamples.h) for the process group in
// GROUPFILE (no file: every process it sees, a container's). Where no supervisor watches the
// script: the SSH and Slurm runners, a container's entry.
extern const char watcher[];

// A run across nodes (run/distribution.h), after the runner's variables and FERRY_NODES,
// FERRY_TASKS_PER_NODE and FERRY_TRAINING_ENV (SM_TRAINING_ENV with @FERRY_CURRENT_HOST@ and 0 GPUs,
// made per rank): ferry_ranks_start (srun of every rank, MASTER_ADDR from Slurm's node address,
// a free MASTER_PORT), ferry_ranks_failure, and the rank's own part, run by srun as
// `runner.sh --ferry-rank`.
extern const char ranks[];

// ARGS: RUN OFFSET MAX TIMES_OFFSET SAMPLES_OFFSET JOBID [PATH SIZE]... "key value" lines, then
// "--ferry-log--", then log bytes.
extern const char status[];

// ARGS: RUN RUNID GRACE_S. TERM, grace, KILL to the run's groups and every process that
// carries FERRY_RUN_ID=RUNID; prints "left PID..." for what survived.
extern const char kill[];

// ARGS: RUNID. Prints the pids of processes carrying FERRY_RUN_ID=RUNID.
extern const char marked[];

// A kernel's run on a host (kernelhost/kernellink.h, docs/kernels.md). ARGS: KERNEL_DIR OFFSET
// [INTERPRETER...]. With an interpreter: `INTERPRETER KERNEL_DIR/keeper.py follow KERNEL_DIR
// OFFSET` in the background, the journal's bytes on stdout, and the keeper's records on stderr,
// each as a line "ferry-record NAME BASE64" (keeper.json, status.json, kernel-exit.json; at most
// 1 MiB each), every second and once more after `follow` ended; its exit code is follow's. Sent
// on stdin, which the caller then keeps open: its end (the caller or its connection gone) ends
// `follow` and the script, as does a write that fails. Without an interpreter: the records once
// on stdout, then "ferry-journal SIZE" (the journal's size there).
extern const char kernelMirror[];

// ARGS: PID START_TICKS BOOT_ID SIGNAL [RUNID]. Sends SIGNAL (HUP, USR1...) to PID when it is still
// the process keeper.json names (its start ticks, this boot) and prints "sent"; "gone" otherwise.
// With RUNID (a keeper in the environment's image, whose pid is the container's): to the running
// container labelled with it, `docker kill --signal` (its init hands the signal to the keeper).
extern const char kernelSignal[];

// ARGS: KERNEL_DIR MS. Writes KERNEL_DIR/stop-request (MS: when), unless one is there.
extern const char kernelStopRequest[];

// ARGS: SOCKET_DIR. Removes a kernel's socket folder, when it is a folder of this user's (not a link).
extern const char kernelSocketsRemove[];

// No ARGS. "key=value" lines about the host, then "--gpus--" and nvidia-smi's answer.
extern const char hostProbe[];

} // namespace ferry::targets::scripts
