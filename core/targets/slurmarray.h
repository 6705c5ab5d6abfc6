// Runs a sweep's trials as one Slurm job array, the cluster's scheduler holding the queue and the
// cap on trials at once.
#pragma once

// A sweep's trials as one Slurm job array (`sbatch --array=0-N%P`): the cluster's scheduler,
// not Ferry, holds the queue and the cap on trials at once. The array has a folder of its own on
// the host (ROOT/sweep-ID, beside the runs); each task, as it starts, says so
// (tasks/T.waiting) and waits for its trial: the controller then chooses the trial's parameters
// (TPE from the trials finished so far), prepares the trial's run as any Slurm run (its own
// folder, upload, runner) and places it (tasks/T.run names the run folder); the task runs that
// runner. The trial's run is followed as the array task JOB_T (scontrol, sacct, scancel take
// that form). Cancel is one scancel of the array; an early-stopped trial is its task's scancel.
#include "common/error.h"
#include "run/runspec.h"
#include "targets/remoteshell.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::targets {

struct SlurmArrayJob {
    QString jobId; // the array's job id (its tasks are JOBID_T)
    QString dir;   // its folder on the host, absolute
};

// What a trial's run spec carries when it is a task of an array (target option "arrayTask").
struct SlurmArrayTask {
    SlurmArrayJob job;
    int task = 0;
    static std::optional<SlurmArrayTask> of(const run::RunSpec &spec);
    void addTo(run::RunSpec &spec) const;
};

class SlurmArray {
public:
    explicit SlurmArray(RemoteShell &shell) : m_shell(shell) {}

    // The array's folder (ROOT/sweep-ID, ROOT as the runs' remoteDir option) and its script,
    // without submitting it; a folder made before (a controller that died) is used again.
    Expected<QString> makeFolder(const run::RunSpec &trialTemplate, const QString &sweepId);
    // Submits `tasks` tasks, at most `parallel` at once, each with the resources the trial
    // template asks for (gpus, partition, time, cpus, mem). The job id, or the one an earlier
    // submission of this folder got (recorded there).
    Expected<SlurmArrayJob> submit(const run::RunSpec &trialTemplate, const QString &dir, const QString &sweepId,
                                   int tasks, int parallel);
    // The tasks that started and wait for their trial (none placed yet), in task order.
    Expected<QList<int>> waitingTasks(const SlurmArrayJob &job);
    // The tasks still to start end at once without a trial (the search has no more).
    Expected<void> closeRest(const SlurmArrayJob &job);
    // Every trial's run folder on the host told it is cancelled, then one scancel of the array;
    // returns once squeue lists none of its tasks (or after `waitMs`, an Error).
    Expected<void> cancel(const SlurmArrayJob &job, const QStringList &runFolders, int waitMs = 120000);
    // Whether task `task`'s trial was placed (its task runs it, or will).
    Expected<bool> placed(const SlurmArrayJob &job, int task);
    // One task ends without its trial (the trial could not be made).
    Expected<void> cancelTask(const SlurmArrayJob &job, int task);
    // The array's tasks squeue lists now, as squeue prints them ("12_3", "12_[4-11%2]").
    Expected<QStringList> queued(const SlurmArrayJob &job);

    // The batch script of the array (its #SBATCH lines and the wait for the trial).
    static Expected<QByteArray> script(const run::RunSpec &trialTemplate, const QString &dir, const QString &sweepId,
                                       int tasks, int parallel);

private:
    RemoteShell &m_shell;
};

} // namespace ferry::targets
