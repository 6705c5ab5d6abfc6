#pragma once

// `ferry runs logs ID [--rank K]`: a run's log as it is now, or one rank's of a run across nodes
// (rank 0's is the run's log; rank K's comes from the host while the run goes on).
#include "cli/command.h"
#include "cli/runsupport.h"

#include <QCommandLineParser>

namespace ferry::cli {

int printRunLog(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);

} // namespace ferry::cli
