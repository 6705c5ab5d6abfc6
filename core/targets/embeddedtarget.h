// EmbeddedTarget: probes and cancels embedded-trainer runs, which live in the Ferry process that
// trains them.
#pragma once

#include "targets/target.h"

namespace ferry::targets {

// Runs of the embedded trainer (target `embedded`): they live in the Ferry process that
// trains them (`ferry train`, the Train panel), which supervisor.json names. Any Ferry can
// probe one (running while that process lives, lost when it vanished without exit.json) and
// cancel it: SIGTERM asks the trainer to stop within one step, KILL after the grace period.
class EmbeddedTarget final : public Target {
public:
    // Refused: an embedded run starts in-process, through run::EmbeddedRun.
    Expected<void> start(const QString &runDir, const run::RunSpec &spec) override;
    Expected<RunProbe> probe(const QString &runDir) override;
    Expected<RunProbe> cancel(const QString &runDir, int graceMs) override;
};

} // namespace ferry::targets
