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

    // `runDir`: the run's folder, where the 80 % word is claimed (claimWarning); empty: not.
    explicit BudgetClock(RunBudget budget, QString runId, QString runDir = {})
        : m_budget(budget), m_runId(std::move(runId)), m_runDir(std::move(runDir))
    {
    }

    // The step due at `elapsedMs` that was not taken yet (None: nothing); call until None. The
    // word at 80 % is skipped when the run's folder says it was said (claimWarning).
    Step next(qint64 elapsedMs);
    // Whether the 80 % word is still to be said for the run in `runDir`: true to whoever asks
    // first, who leaves RunDirectory::budgetWarnedFile() there; so a watcher started again, or a
    // Ferry that follows the run later, does not say it again. True when the mark cannot be left
    // (a full disk: said twice rather than never).
    static bool claimWarning(const QString &runDir);
    bool holds() const { return m_budget.limitSeconds() > 0; }
    const RunBudget &budget() const { return m_budget; }

    // The words of each step: the log's line (written "ferry: LINE"), and the notification's.
    QString logLine(Step step) const;
    QString title(Step step) const;
    QString body(Step step) const;

private:
    RunBudget m_budget;
    QString m_runId;
    QString m_runDir;
    bool m_warned = false;
    bool m_stopped = false;
    bool m_killed = false;
    qint64 m_stoppedAt = 0;
};

} // namespace ferry::run
