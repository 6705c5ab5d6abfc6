// BudgetClock: what a run's budget asks for as its script's time passes, and the words said then.
#pragma once

#include "run/runspec.h"

#include <QString>

namespace ferry::run {

// The steps of a run's budget (RunSpec::budget), each taken once and in order, as the script's time
// (ms since it started) passes: the word at kBudgetWarningShare of its first cap, the stop at the
// cap (SIGTERM, the run recorded cancelled with RunBudget::reachedText()), and SIGKILL once the
// grace has passed. Whoever holds a cap on this machine asks it (the local supervisor,
// run/supervisor.h; a container run's watcher, targets/containerbudget.h), so every one says the
// same, in the log and on the desktop.
class BudgetClock {
public:
    enum class Step { None, Warn, Stop, Kill };

    explicit BudgetClock(RunBudget budget, QString runId) : m_budget(budget), m_runId(std::move(runId)) {}

    // The step due at `elapsedMs` that was not taken yet (None: nothing); call until None.
    Step next(qint64 elapsedMs);
    bool holds() const { return m_budget.limitSeconds() > 0; }
    const RunBudget &budget() const { return m_budget; }

    // The words of each step: the log's line (written "ferry: LINE"), and the notification's.
    QString logLine(Step step) const;
    QString title(Step step) const;
    QString body(Step step) const;

private:
    RunBudget m_budget;
    QString m_runId;
    bool m_warned = false;
    bool m_stopped = false;
    bool m_killed = false;
    qint64 m_stoppedAt = 0;
};

} // namespace ferry::run
