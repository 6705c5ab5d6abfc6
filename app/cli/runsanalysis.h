// `ferry runs aggregate` and `ferry runs importance`: many runs compared at once, groups of runs'
// statistics at each step and which parameters mattered.
#pragma once

// `ferry runs aggregate ID... --group-by hp.lr --metric val_loss [--band std|minmax] [--csv|--json]`
// and `ferry runs importance ID... --metric val_loss [--json]` (core/analysis, docs/metrics.md). The
// runs: ids (any unique start of one), or those `--where QUERY` selects, or both (the named runs
// the query selects).
#include "cli/command.h"
#include "cli/runsupport.h"

#include <QCommandLineParser>

namespace ferry::cli {

// The options only these two actions take (--group-by, --metric, --band, --x).
void addAnalysisOptions(QCommandLineParser &parser);
// The usage lines of `ferry runs --help` for them.
QString analysisUsage();

// Runs `ferry runs aggregate` or `ferry runs importance` (`action`); the exit code.
int analyseRuns(const QString &action, const QCommandLineParser &parser, RunContext &context, Io &io);

} // namespace ferry::cli
