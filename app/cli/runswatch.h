// `ferry runs watch ID [--until-done] [--alert RULE]...`: a run followed, its alerts printed and
// shown on the desktop, the exit code its end's.
#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"
#include "tracking/alertrule.h"

#include <QList>
#include <QStringList>

#include <optional>

namespace ferry::cli {

// `ferry runs watch`'s exit codes besides kExitOk (the run succeeded), kExitUserError (a bad
// rule, no such run) and kExitInternalError; docs/metrics.md, *Alerts*, lists them.
enum WatchExitCode : int {
    kWatchFailed = 3,
    kWatchLost = 4,
    kWatchCancelled = 5,     // cancelled, or stopped early by its sweep
    kWatchAlerted = 10,      // without --until-done: a rule fired, the run goes on
    kWatchInterrupted = 130, // Ctrl-C: the run goes on
};

void addWatchOptions(QCommandLineParser &parser);

// Follows the run until it ends (or, unless `untilDone`, until a rule fires); prints each alert
// on stdout as it fires and sends it to the desktop's notification service when the session bus
// has one (nothing is said when none). The run's end is said on stderr, as `runs attach` says it.
int watchRun(RunContext &context, const run::RunRecord &record, const QList<run::AlertRule> &rules, bool untilDone,
             Io &io);

// The rules of every --alert (each a rule or a list of them); a bad one is printed with a caret
// under its column.
std::optional<QList<run::AlertRule>> alertRulesOf(const QStringList &values, Io &io);

} // namespace ferry::cli
