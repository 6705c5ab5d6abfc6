// SlurmTarget: submits a run as an sbatch job (across nodes with srun), follows it and cancels it
// with scancel.
#pragma once

#include "targets/remotetarget.h"
#include "targets/sshshell.h"

#include <QStringList>

namespace ferry::targets {

// `slurm:HOST` (a login node over SSH) or `slurm:local` (sbatch on this machine): the runner
// script becomes the batch script (#SBATCH lines first), submitted with `sbatch --parsable`;
// the job writes its own exit.json (accounting may be off), its state comes from scontrol
// (sacct once the controller has forgotten the job), cancel is scancel. A requeued job is the
// same run again: the log goes on, `attempt` counts SLURM_RESTART_COUNT.
// Target options: "gpus" (--gres=gpu:N), "partition", "time" (HH:MM:SS or D-HH:MM:SS; a budget's
// cap gives one too, budgetTimeLimit),
// "cpus" (--cpus-per-task), "mem" (e.g. 4G), "requeue" (bool), and those of SshTarget. A run
// across nodes (run/distribution.h: "nodes", "tasksPerNode", "gpusPerNode") is one job with
// --nodes and --ntasks-per-node whose batch script starts every rank with srun, each with the
// contract's names of its own (RANK, WORLD_SIZE, MASTER_ADDR, SM_CURRENT_HOST, ...); rank 0's log
// is the run's, rank K's is ranks/K.log; a rank that fails stops the others and fails the run.
class SlurmTarget final : public RemoteTarget {
public:
    explicit SlurmTarget(const QString &host, SshOptions options = SshOptions::defaults());

    Expected<void> start(const QString &runDir, const run::RunSpec &spec) override;
    Expected<RunProbe> cancel(const QString &runDir, int graceMs) override;

    // The #SBATCH options for a run (without "#SBATCH "); refused values name the option.
    static Expected<QStringList> sbatchOptions(const run::RunSpec &spec, const QString &remoteDir);
    // The --time a run's budget gives it (docs/cost.md): its cap plus its grace, rounded up to whole
    // minutes ("0:02:00"); empty without a cap. A shorter "time" option is kept instead.
    static QString budgetTimeLimit(const run::RunBudget &budget);

protected:
    Expected<RunProbe> judge(const QString &runDir, RemoteRun &run, const RemoteRecord &record,
                             const RemoteStatus &status) override;
};

} // namespace ferry::targets
