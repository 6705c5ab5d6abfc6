// SweepController: the detached process that launches a sweep's trials, follows and early-stops
// them, and resumes after a crash.
#pragma once

// Drives a sweep (docs/sweep-format.md): the detached controller `ferry __sweep` runs
// SweepController to the sweep's end. It starts the trials as normal runs (tracking's
// launchRun, tagged with the sweep and the trial's number), at most max_parallel at once and
// no more than the machine has cores or GPUs for local and container trials (one GPU each,
// by CUDA_VISIBLE_DEVICES); follows each (its log into the run store, as the window does, so
// early stopping sees the metric with Ferry closed); stops the hopeless ones (their run
// cancelled, shown as `stopped early`); and keeps state.json up to date at every change. A
// controller that died (kill -9, a reboot) leaves a state the next one adopts: `resume` runs
// exactly the planned trials, none twice. A sweep with a budget (`budget:`) starts no trial whose
// estimate would take it past the budget (cost/budget.h): the plan ends there, the running trials
// finish, and the state's stopReason says why.
#include "store/runstore.h"
#include "sweep/earlystopping.h"
#include "sweep/sampler.h"
#include "sweep/sweepfile.h"
#include "sweep/sweepstate.h"
#include "targets/slurmarray.h"
#include "targets/target.h"
#include "workspace/workspace.h"

#include <QHash>
#include <QString>
#include <QStringList>

#include <functional>
#include <map>
#include <memory>
#include <optional>

namespace ferry::sweep {

// The run every trial starts from: the script placed (run/runenvironment.h), the target, the
// data channels and environment file (relative to the workspace), the fixed hyperparameters
// and arguments, the environment applied and its secrets checked. Errors name the sweep file.
Expected<run::RunSpec> trialTemplate(const SweepSpec &spec, const QString &sweepFile, const QString &workspaceRoot);
// Trial `trial`'s run: the template with the trial's run id, the fixed hyperparameters and then
// the trial's, the sweep's tags and its GPU (CUDA_VISIBLE_DEVICES).
run::RunSpec trialSpec(const run::RunSpec &base, const QString &sweepId, const Trial &trial);
// A trial's objective from the store: the metric's last value (highest step, the latest of
// equal ones) or its best under the goal; nullopt when the run never wrote it.
std::optional<double> trialObjective(const run::RunStore &store, const QString &runId, const SweepSpec &spec);
// The metric as early stopping judges it: made one to minimise, in step order (points without
// a step get their place in the series as their step).
TrialCurve trialCurve(const run::RunStore &store, int trial, const QString &runId, const Sampler &sampler);

// The trial's status as its run's record gives it (a cancelled run stopped early is that).
TrialStatus trialStatusOf(const run::RunRecord &record);

// The GPUs local and container trials share out: FERRY_GPUS when set ("0,1,3"; empty: none,
// documented), else one per GPU the NVIDIA driver lists.
QStringList machineGpus();

struct ControllerOptions {
    QString ferryProgram;       // for the targets (the local supervisor)
    int pollMs = 200;           // a round of the loop: follow, judge, start (remote targets: a call each)
    int localPollMs = 50;       // the same for local and container trials: files on this machine
    int cancelGraceMs = 5000;   // TERM to KILL when a trial is cancelled
    QStringList gpus;           // see machineGpus()
    int cores = 1;              // local and container trials: at most this many at once
    std::function<bool()> stop; // asked each round: true ends the loop, trials left running
};

class SweepController {
public:
    using TargetFactory = std::function<std::unique_ptr<targets::Target>(const run::TargetSpec &)>;
    SweepController(run::RunStore &store, workspace::Workspace workspace, SweepDirectory dir, TargetFactory factory,
                    ControllerOptions options);
    ~SweepController();

    // Runs the sweep until every planned trial is over (finished), a cancel is asked for
    // (every running trial cancelled: cancelled), the trials cannot be made (failed), or
    // options.stop says so (the state as it is, for a later resume). An Error only when the
    // sweep's folder cannot be read or written.
    Expected<SweepState> run();

    // How many trials run at once for this sweep on this machine, and why fewer than asked.
    static int slots(const SweepSpec &spec, const ControllerOptions &options, QString *why = nullptr);

private:
    struct Running;
    Expected<void> prepare();
    Expected<void> prepareArray();
    Expected<void> placeWaiting();
    Expected<bool> addTrial();
    Expected<std::optional<Trial>> nextTrial();
    Expected<void> adopt(Trial &trial);
    Expected<bool> adoptArrayTrial(const Trial &trial, const QString &runDir);
    Expected<bool> startNext();
    Expected<void> launch(Trial &trial);
    Expected<void> followAll();
    void judgeAll();
    Expected<void> cancelAll();
    void finishTrial(Trial &trial, const run::RunRecord &record);
    QString budgetStop(const Trial &trial) const;
    Expected<void> save();
    QString takeGpu();

    run::RunStore &m_store;
    workspace::Workspace m_workspace;
    SweepDirectory m_dir;
    TargetFactory m_factory;
    ControllerOptions m_options;
    SweepState m_state;
    SweepSpec m_spec;
    std::unique_ptr<Sampler> m_sampler;
    run::RunSpec m_base;
    std::unique_ptr<targets::Target> m_target;
    std::map<int, std::unique_ptr<Running>> m_running; // trial number → its follower
    QHash<int, TrialCurve> m_curves;                   // every trial's metric so far
    int m_slots = 1;
    bool m_exhausted = false;    // the sampler has no more trials (a grid's end)
    bool m_onThisMachine = true; // local and container trials: cores and GPUs shared out here
    // A Slurm sweep: its trials are the tasks of one job array (targets/slurmarray.h).
    std::unique_ptr<targets::SlurmArray> m_array;
    targets::SlurmArrayJob m_arrayJob;
    bool m_arrayClosed = false; // the tasks still to start were told there is no trial for them
};

// A new sweep of the file at `path` (its text `text`, read as `spec`): checked as its trials
// will be (trialTemplate), its folder made under the workspace's sweeps, its controller started
// detached (`ferryProgram __sweep FOLDER --workspace ROOT`, its output in the sweep's log).
Expected<SweepState> startSweep(const workspace::Workspace &workspace, const QString &path, const QByteArray &text,
                                const SweepSpec &spec, const QString &ferryProgram);
// Starts the controller of an existing sweep, detached (a resume); refused while one runs.
Expected<void> startController(const workspace::Workspace &workspace, const SweepDirectory &dir,
                               const QString &ferryProgram);

// Ends a sweep whose controller is gone (killed, crashed): cancels every trial not over on its
// target and marks the sweep cancelled. `ferry sweep cancel` uses it when the controller does
// not answer the cancel request in time.
Expected<SweepState> cancelOrphanedSweep(run::RunStore &store, const QString &runsDir, const SweepDirectory &dir,
                                         const SweepController::TargetFactory &factory, int graceMs);

} // namespace ferry::sweep
