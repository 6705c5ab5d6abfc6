// Parses what scontrol and sacct say about a Slurm job and how its state reads as a Ferry run.
#pragma once

#include "targets/target.h"

#include <QString>

namespace ferry::targets {

// What Slurm says about one job.
struct SlurmJob {
    bool known = false; // false: Slurm no longer (or never) knew it
    QString state;      // PENDING, RUNNING, COMPLETED, ... (JobState; "CANCELLED by 0" cut to CANCELLED)
    QString reason;     // why it is pending ("Resources", "Priority"), or None
    int restarts = 0;   // requeues so far
    int exitCode = 0;   // ExitCode=CODE:SIGNAL
    int signal = 0;
};

// `scontrol show job ID -o` (one line of Key=Value fields); unknown when it is an error.
SlurmJob parseScontrolJob(const QString &line);
// `sacct -n -X -P -o State,ExitCode` ("COMPLETED|0:0", "CANCELLED by 0|0:15").
SlurmJob parseSacctLine(const QString &line);

// How a job's Slurm state reads as a Ferry run: PENDING, CONFIGURING, REQUEUED, REQUEUE_HOLD,
// SUSPENDED, RUNNING, COMPLETING (and PREEMPTED when the job is requeued) are running — the
// detail says where it is in the queue and why it waits; COMPLETED succeeded; FAILED,
// TIMEOUT, OUT_OF_MEMORY, NODE_FAIL, PREEMPTED, BOOT_FAIL, DEADLINE failed (the detail says
// which); CANCELLED cancelled.
struct SlurmVerdict {
    RunState state = RunState::Running;
    bool ended = false;
    bool pending = false; // waiting in the queue (PENDING, CONFIGURING, requeued): nothing of it runs yet
    QString detail;
    QString cause; // run::ExitRecord::cause: time-limit, out-of-memory, node-failure, preempted
};
SlurmVerdict judgeSlurmJob(const SlurmJob &job, int queuePosition, bool requeue);

} // namespace ferry::targets
