// `ferry runs logs`: prints a run's log (or one rank's of a multi-node run) as a terminal shows it,
// or raw.
#pragma once

// `ferry runs logs ID [--rank K] [--raw]`: a run's log as it is now, each line as a terminal shows
// it (run::terminalText; --raw: the bytes as they are), or one rank's of a run across nodes (rank
// 0's is the run's log; rank K's comes from the host while the run goes on).
#include "cli/command.h"
#include "cli/runsupport.h"

#include <QCommandLineParser>

namespace ferry::cli {

int printRunLog(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);

} // namespace ferry::cli
