// What `ferry run` and `ferry runs` share: opening the workspace's run store, making targets,
// finding runs by id prefix and following them.
#pragma once

// What `ferry run` and `ferry runs` share: the workspace's run store, the target a run
// uses, finding a run by id prefix, and following a run until it ends or the user stops.
#include "cli/command.h"
#include "store/runstore.h"
#include "targets/target.h"
#include "tracking/progress.h"
#include "workspace/workspace.h"

#include <QHash>

#include <functional>
#include <memory>
#include <optional>

namespace ferry::cli {

struct RunContext {
    workspace::Workspace workspace;
    std::unique_ptr<run::RunStore> store;
};

// Opens the workspace (`dir`, or the current folder) and its run store; prints why not.
std::optional<RunContext> openRunContext(const QString &dir, Io &io);

// The target for a run; nullptr (with a message) for one this Ferry cannot drive yet.
std::unique_ptr<targets::Target> makeTarget(const run::TargetSpec &spec, Io &io);

// The run whose id is `idOrPart`, or starts or ends with it (run::resolveRun); prints why when
// none or several match (the several by their ids).
std::optional<run::RunRecord> findRun(const run::RunStore &store, const QString &idOrPart, Io &io);

// Brings the store up to date for runs that are not over yet (re-attach after a crash,
// `lost` for runs whose processes vanished). Returns how far each of those still running is
// (tracking/progress.h), by run id: those whose log gives a total.
QHash<QString, run::Progress> refreshUnfinishedRuns(RunContext &context, Io &io);

// Prints the run's log (and metric points) as it grows until it ends, or until Ctrl-C,
// which stops following but never the run. Returns the exit code for the command.
int followRun(RunContext &context, const run::RunRecord &record, Io &io);

// How a run is followed (followRunWith): its log printed or not, and what else is done at each
// step (the run as it is now, whether the step read anything); `afterStep` returns true to stop
// following there (the run goes on).
struct FollowOptions {
    bool printLog = true;
    std::function<bool(const run::RunRecord &now, bool newData, bool queued)> afterStep;
};
struct FollowOutcome {
    int code = kExitOk;       // followRun's exit code
    run::RunRecord end;       // the run as it was last seen (its end, when it ended)
    bool ended = false;       // the run is over
    bool interrupted = false; // Ctrl-C
};
// followRun with options; the run's end is said on stderr as followRun says it.
FollowOutcome followRunWith(RunContext &context, const run::RunRecord &record, Io &io, const FollowOptions &options);

QString runDirOf(const RunContext &context, const QString &runId);

// "2026-12-03 19:20:01", or "-" for 0.
QString timeText(qint64 ms);
// "3m07s", "1h05m" from a start to an end (0: still going, until now); "-" when not started.
QString durationText(qint64 startedMs, qint64 finishedMs);

} // namespace ferry::cli
