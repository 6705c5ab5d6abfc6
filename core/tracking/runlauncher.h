// launchRun: checks a run's spec, records it in the store, creates its folder and starts it on its
// target.
#pragma once

#include "store/runstore.h"
#include "targets/target.h"

namespace ferry::run {

// Starts a run: checks the spec (every problem at once), records it in the store, creates
// its folder under `runsDir` and starts it on the target. A run that could not start stays
// in the store as failed, with the reason, so nothing the user launched disappears. A start
// that failed while the target still finds the run alive (not confirmed in time) is running,
// with the reason in the record's `error` (show it as a warning). Before anything, the rate in force
// and the run's caps are recorded in its spec, and a launch once the workspace's month budget is
// spent is refused with the numbers (cost/budget.h, Ferry's settings).
Expected<RunRecord> launchRun(RunStore &store, targets::Target &target, const QString &runsDir, RunSpec spec);

} // namespace ferry::run
