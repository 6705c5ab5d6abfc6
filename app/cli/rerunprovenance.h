// What `ferry runs rerun` warns of after launching: the rebuilt image's packages or a data channel
// differing from the original run's.
#pragma once

// What `ferry runs rerun` says after its launch (the rerun itself: tracking/rerun.h): a container
// run's rebuilt image's packages compared with the original's, and a warning when a channel's
// data changed since.
#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// After the launch: warns when the rerun's image resolved other packages than the original's.
void comparePackages(const RunContext &context, const QString &originalId, const QString &rerunId, Io &io);

// After the launch: warns for each channel whose data is not the same as the original run's.
void compareData(const run::RunSpec &original, const run::RunSpec &rerun, Io &io);

} // namespace ferry::cli
