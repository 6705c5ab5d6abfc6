// `ferry runs rerun` of an embedded-trainer run: the training repeated in-process with the run's
// settings, seed and data.
#pragma once

// `ferry runs rerun ID` of an embedded-trainer run (cli/traincommand.cpp): the training again
// in this process, with the run's settings (its seed among them) and data, recorded as a rerun
// of it. With the same seed on the same machine its losses are the first run's, bit for bit.
#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

int rerunTraining(RunContext &context, const run::RunRecord &record, const run::RunSpec &spec, Io &io);

} // namespace ferry::cli
