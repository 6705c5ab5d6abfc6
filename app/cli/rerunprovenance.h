#pragma once

// What `ferry runs rerun` does besides the code: a container run's environment as the run had
// it (its recorded spec, its image rebuilt when gone, with that said, and the rebuilt image's
// packages compared with the original's), and a warning when a channel's data changed since.
#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// Before the launch: `spec` (the rerun's) gets an environment file holding the original run's
// environment (beside the original file, or at its place in `folder`, the snapshot's copy);
// says when the image is gone and will be rebuilt. False: the rerun cannot go on (said).
bool prepareContainerRerun(const run::RunRecord &original, run::RunSpec &spec, const QString &originalSourceDir,
                           const QString &folder, Io &io);

// After the launch: warns when the rerun's image resolved other packages than the original's.
void comparePackages(const RunContext &context, const QString &originalId, const QString &rerunId, Io &io);

// After the launch: warns for each channel whose data is not the same as the original run's.
void compareData(const run::RunSpec &original, const run::RunSpec &rerun, Io &io);

} // namespace ferry::cli
