// The bash scripts Ferry runs on a host (runner, watcher, multi-node launch), kept together to be
// read as scripts.
#pragma once

// The bash scripts Ferry runs on a host, kept together so they can be read as scripts. Each
// is sent on stdin (`bash -s -- ARGS`) or written into the run folder; values reach them only
// as arguments or through shellQuote, never pasted in by hand.
namespace ferry::targets::scripts {

// The runner's body, after `RUN=<folder>` and `COMMAND=(<env NAME=VALUE... interpreter script args>)`:
// log redirection, pid file, heartbeat, the script in its own session, the exit record.
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

// No ARGS. "key=value" lines about the host, then "--gpus--" and nvidia-smi's answer.
extern const char hostProbe[];

} // namespace ferry::targets::scripts
