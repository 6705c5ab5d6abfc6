// `ferry runs diff A B`: prints what differs between two runs, as text or JSON.
#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// `ferry runs diff A B [--all] [--json]` (tracking/rundiff.h): what differs, A's side first.
int diffRuns(RunContext &context, const run::RunRecord &a, const run::RunRecord &b, bool all, bool json, Io &io);

} // namespace ferry::cli
