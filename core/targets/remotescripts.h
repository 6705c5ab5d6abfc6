#pragma once

// The bash scripts Ferry runs on a host, kept together so they can be read as scripts. Each
// is sent on stdin (`bash -s -- ARGS`) or written into the run folder; values reach them only
// as arguments or through shellQuote, never pasted in by hand.
namespace ferry::targets::scripts {

// The runner's body, after `RUN=<folder>` and `COMMAND=(<env NAME=VALUE... interpreter script args>)`:
// log redirection, pid file, heartbeat, the script in its own session, the exit record.
extern const char runnerBody[];

// ARGS: RUN OFFSET MAX [JOBID]. "key value" lines, then "--ferry-log--", then log bytes.
extern const char status[];

// ARGS: RUN RUNID GRACE_S. TERM, grace, KILL to the run's groups and every process that
// carries FERRY_RUN_ID=RUNID; prints "left PID..." for what survived.
extern const char kill[];

// ARGS: RUNID. Prints the pids of processes carrying FERRY_RUN_ID=RUNID.
extern const char marked[];

// No ARGS. "key=value" lines about the host, then "--gpus--" and nvidia-smi's answer.
extern const char hostProbe[];

} // namespace ferry::targets::scripts
