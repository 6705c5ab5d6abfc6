// The watcher that holds a container run's budget on this machine (`ferry __container-budget`).
#pragma once

#include "common/error.h"
#include "run/supervisor.h"

#include <QJsonObject>
#include <QLatin1StringView>
#include <QString>

namespace ferry::targets {

// The hidden command ContainerTarget::start starts detached beside a container run that has a
// budget (RunSpec::budget): `ferry __container-budget RUN_DIR ENGINE`, the engine the run started
// with (never read from the run folder, as ContainerTarget says).
inline const QString kContainerBudgetCommand = QStringLiteral("__container-budget");

// Its body. It leaves Ferry's session (so the cap holds with Ferry closed) and follows the run on
// the clock of its script's time since the container started (the engine's StartedAt, so a watcher
// that a probe starts again when the first is gone keeps the cap where it was; run/budgetclock.h,
// the words the local supervisor says): at 80 % a line in the log and `hooks.notify`; at the cap the stop a
// cancel makes (ContainerTarget::stop: `stop` with the budget's grace, so SIGTERM and SIGKILL once it
// has passed; the container removed, the archives packed), the run recorded cancelled with
// RunBudget::reachedText(). It ends with the run, however that comes: cancelled (exit.json), or the
// container's own end, which it records as a probe does so the archives come with Ferry closed.
// Returns its exit code (0; 1 when the run folder cannot be read or its engine used).
int holdContainerBudget(const QString &runDir, const QString &engine, const run::SupervisorHooks &hooks = {});

// Starts the watcher of the run in `runDir` detached (`ferryProgram`'s command, its words into the
// run's log) and records it in `record` (container.json's: its pid and start ticks, so a later
// process of the same pid is not taken for it).
Expected<void> startContainerBudgetWatcher(const QString &runDir, const QString &ferryProgram, const QString &engine,
                                           QJsonObject &record);
// Whether `record` names a watcher (a run of an earlier Ferry, or without a budget, names none),
// and whether that one still lives.
bool hasContainerBudgetWatcher(const QJsonObject &record);
bool containerBudgetWatcherAlive(const QJsonObject &record);

// How often the watcher asks the engine whether the container still runs.
inline constexpr int kContainerBudgetProbeMs = 2000;

// The container's own backstop, for a watcher that is gone while nothing probes the run to start
// it again (Ferry closed and the watcher killed: the OOM killer, a logout that took the session's
// processes; the container lives on in the engine): the container's shell, before it becomes the
// script, leaves a job that waits this many seconds of the container's time, says so in the log,
// sends SIGTERM to the script and SIGKILL once the grace has passed, as Slurm's --time does for a
// Slurm run. The cap, the grace and kContainerBackstopSlackSeconds: a watcher that lives has
// stopped the container by then. 0 without a cap.
inline constexpr qint64 kContainerBackstopSlackSeconds = 5;
qint64 containerBackstopSeconds(const run::RunBudget &budget);
// That job, a line of the container's shell (`log` the run's log as the container sees it); empty
// without a cap.
Expected<QString> containerBackstopShell(const run::RunBudget &budget, const QString &log);
// Whether a container that the engine says ran from `startedMs` to `finishedMs` was ended by it:
// it ran for the backstop's whole wait (a script that ends by itself before is not).
bool endedByContainerBackstop(const run::RunBudget &budget, qint64 startedMs, qint64 finishedMs);

} // namespace ferry::targets
