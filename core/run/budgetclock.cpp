#include "run/budgetclock.h"

#include "common/safefile.h"
#include "run/rundirectory.h"

using namespace Qt::StringLiterals;

namespace ferry::run {

BudgetClock::Step BudgetClock::next(qint64 elapsedMs)
{
    const qint64 limitMs = m_budget.limitSeconds() * 1000;
    if (limitMs <= 0)
        return Step::None;
    if (!m_warned && elapsedMs >= m_budget.warningMs()) {
        m_warned = true;
        if (m_runDir.isEmpty() || claimWarning(m_runDir))
            return Step::Warn;
    }
    if (!m_stopped && elapsedMs >= limitMs) {
        m_warned = m_stopped = true;
        m_stoppedAt = elapsedMs;
        return Step::Stop;
    }
    if (m_stopped && !m_killed && elapsedMs >= m_stoppedAt + qint64(m_budget.graceSeconds) * 1000) {
        m_killed = true;
        return Step::Kill;
    }
    return Step::None;
}

bool BudgetClock::claimWarning(const QString &runDir)
{
    const QString mark = RunDirectory(runDir).budgetWarnedFile();
    if (entryKind(mark) != EntryKind::Missing)
        return false; // said already
    // Left before it is said; a mark that cannot be left (a full disk) changes nothing: said.
    (void)createNewFile(mark, {});
    return true;
}

QString BudgetClock::logLine(Step step) const
{
    switch (step) {
    case Step::Warn:
        return m_budget.warningText();
    case Step::Stop:
        return u"%1: stopping the run (SIGTERM now, SIGKILL in %2 s)"_s.arg(m_budget.reachedText())
            .arg(m_budget.graceSeconds);
    case Step::Kill:
        return u"the budget's grace of %1 s has passed: SIGKILL"_s.arg(m_budget.graceSeconds);
    case Step::None:
        break;
    }
    return {};
}

QString BudgetClock::title(Step step) const
{
    switch (step) {
    case Step::Warn:
        return u"Run %1: %2 % of its budget used"_s.arg(m_runId).arg(qRound(kBudgetWarningShare * 100));
    case Step::Stop:
        return u"Run %1 stopped: its budget is spent"_s.arg(m_runId);
    case Step::Kill:
    case Step::None:
        break;
    }
    return {};
}

QString BudgetClock::body(Step step) const
{
    switch (step) {
    case Step::Warn:
        return m_budget.warningText() + u"; it will be stopped at 100 %"_s;
    case Step::Stop:
        return u"%1; the script has %2 s to save its state"_s.arg(m_budget.reachedText()).arg(m_budget.graceSeconds);
    case Step::Kill:
    case Step::None:
        break;
    }
    return {};
}

} // namespace ferry::run
