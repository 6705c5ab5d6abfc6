// `ferry runs rerun`: runs a recorded run again from its snapshot's code, with changed parameters
// or on another target if asked.
#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// `ferry runs rerun ID [--hp K=V ...] [--target T] [--follow]`: the run again with the code of
// its snapshot (not the source folder as it is now; written into a fresh folder of
// .ferry/reruns, snapshot::materialize), its parameters (those --hp names changed), on its target
// or another; the new run records which run it reproduces. A run from elsewhere is printed first
// and needs --accept-foreign; its target, data, secrets and consents come from the flags alone.
int rerunRun(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);

} // namespace ferry::cli
