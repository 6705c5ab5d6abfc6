#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// `ferry runs rerun ID [--hp K=V ...] [--target T] [--follow]`: the run again with the code of
// its snapshot (not the source folder as it is now; snapshot::rerunSourceDir says where it is
// written), its parameters (those --hp names changed), on its target or another; the new run
// records which run it reproduces.
int rerunRun(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);

} // namespace ferry::cli
