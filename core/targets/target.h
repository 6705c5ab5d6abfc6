// Target: where a run executes (this machine, a container, SSH, Slurm), started detached and probed
// from its folder alone.
#pragma once

#include "common/error.h"
#include "run/logtail.h"
#include "run/rundirectory.h"
#include "run/runspec.h"

#include <QString>

#include <optional>

namespace ferry::targets {

enum class RunState {
    Running,
    Succeeded,
    Failed,
    Cancelled,
    Lost, // the run's processes are gone and it left no exit record: never shown as running
};

QString stateName(RunState state); // "running", "succeeded", ...

struct RunProbe {
    RunState state = RunState::Lost;
    std::optional<run::ExitRecord> exit; // once the run has ended (a lost run has none)
    bool archived = false;               // model.tar.gz and output.tar.gz are in the run folder
    std::optional<qint64> heartbeatMs;   // the run's last sign of life (ms since the epoch)
    QString detail;                      // why a run is lost, or what failed while finishing it
    bool queued = false;                 // running, but still waiting for its resources (a pending Slurm job)

    bool finished() const { return state != RunState::Running; }
};

// The state an exit record stands for: cancelled, succeeded (exit code 0) or failed.
RunState stateOf(const run::ExitRecord &exit);

// "12, 13, 20": pids for messages.
QString pidList(const QList<qint64> &pids);

// The error for a folder that holds no run (no spec.json).
Error noRunFolder(const run::RunDirectory &dir);
// What every cancel asks first: whether the run in `dir` has ended (it has an exit record: there
// is nothing to cancel, its probe says how it ended); an Error when `dir` is no run folder or its
// exit record cannot be read.
Expected<bool> runHasEnded(const run::RunDirectory &dir);

// Where every cancel starts: ended already (nothing to cancel: its probe says how it ended), or
// the record of what to stop as `read` gives it (supervisor.json, remote.json; none: the start
// never confirmed, and the cancel ends the run before it can).
template <typename Record> struct CancelStart {
    bool ended = false;
    std::optional<Record> record;
};
template <typename Record, typename Read>
Expected<CancelStart<Record>> cancelStart(const run::RunDirectory &dir, Read read)
{
    const auto hasEnded = runHasEnded(dir);
    if (!hasEnded)
        return hasEnded.error();
    if (*hasEnded)
        return CancelStart<Record>{true, std::nullopt};
    Expected<std::optional<Record>> record = read();
    if (!record)
        return record.error();
    return CancelStart<Record>{false, std::move(*record)};
}

// The probe of a run whose process is named by supervisor.json (a local supervisor, or the
// Ferry process of an embedded training): ended (exit.json, archives packed if the process
// died before it could), running (the process lives; or it is gone but the script's group
// lives; or it was launched (launch.json), lives and has not reported yet), or lost. `who`
// names that process in the detail, e.g. "the run's supervisor".
Expected<RunProbe> probeSupervisedRun(const QString &runDir, const QString &who);

// Whether a target of `kind` (`place` names it in the message, e.g. "this machine") may start
// `spec`: the spec is for it and passes validateRunSpec (the first problem, with a count of
// the rest).
Expected<void> checkSpecFor(const run::RunSpec &spec, run::TargetKind kind, const QString &place);

// Where a run executes: this machine, a container, an SSH host, a Slurm cluster. Every target
// starts the run detached from Ferry, and the run writes into its run folder (log, heartbeat,
// exit.json, archives — see RunDirectory), which Ferry only reads. So a target keeps no
// state between calls: any Ferry process, started at any time, can probe or cancel any run
// from its folder alone. Calls block (on process start-up, on a grace period): call them off
// the GUI thread.
class Target {
public:
    virtual ~Target() = default;

    // Claims `runDir` (RunDirectory::claim: created if needed, refused if it holds any run
    // marker, spec.json written) and launches the run; returns once it is running, or with the
    // reason it could not start (also recorded in exit.json when the run got as far as the folder).
    virtual Expected<void> start(const QString &runDir, const run::RunSpec &spec) = 0;
    // The run's state now. An Error only when `runDir` is not a readable run folder.
    virtual Expected<RunProbe> probe(const QString &runDir) = 0;
    // Stops the run and everything it started: TERM, `graceMs` to finish, then KILL; returns
    // once nothing of it is left, with the final status (cancelled, unless it had ended).
    virtual Expected<RunProbe> cancel(const QString &runDir, int graceMs) = 0;
    // Complete log lines from a stored byte offset (see LogTail). Here: the run folder's
    // `log`; a remote target reads the remote one.
    virtual Expected<run::LogChunk> readLog(const QString &runDir, qint64 offset, run::LogTail::Limits limits);
    // Adds what this target must know again to probe or cancel the run later (the container
    // engine) to the run's target options, which the run store keeps; launchRun calls it
    // before the run is stored. By default nothing.
    virtual void recordIn(run::TargetSpec &target) const { (void)target; }
};

} // namespace ferry::targets
