// LocalTarget: runs a script on this machine under a detached supervisor that outlives Ferry.
#pragma once

#include "targets/target.h"

#include <QString>

namespace ferry::targets {

// Runs the script as a process on this machine, owned by a detached supervisor
// (`ferry __supervise RUN_DIR`, see run/supervisor.h) that outlives Ferry. Probe and cancel
// work from the run folder alone: supervisor.json names the supervisor and the script's
// process group, with start ticks and the boot id so that a reused pid is never taken for
// the run's.
class LocalTarget final : public Target {
public:
    // `ferryProgram`: the ferry executable that provides `__supervise` (in the app, its own
    // path). `startTimeoutMs`: how long start() waits for the supervisor to report.
    explicit LocalTarget(QString ferryProgram, int startTimeoutMs = 60000);

    Expected<void> start(const QString &runDir, const run::RunSpec &spec) override;
    Expected<RunProbe> probe(const QString &runDir) override;
    Expected<RunProbe> cancel(const QString &runDir, int graceMs) override;

private:
    Expected<RunProbe> cancelUnconfirmed(const run::RunDirectory &dir, int graceMs);

    QString m_ferryProgram;
    int m_startTimeoutMs;
};

} // namespace ferry::targets
