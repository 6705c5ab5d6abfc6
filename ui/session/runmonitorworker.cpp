#include "ui/session/runmonitorworker.h"

#include <QTimer>

namespace ferry::ui {

namespace {
constexpr int kSweepLookRounds = 10; // the sweeps are looked at every 10th round
} // namespace

RunMonitorWorker::RunMonitorWorker(run::RunStore &store, const QString &runsDir, run::RunMonitor::TargetFactory factory,
                                   const QString &sweepsDir)
    : m_monitor(store, runsDir, std::move(factory)),
      m_sweeps(sweepsDir.isEmpty() ? nullptr : std::make_unique<sweep::SweepWatch>(sweepsDir))
{
}

RunMonitorWorker::~RunMonitorWorker() = default;

void RunMonitorWorker::start(int intervalMs)
{
    if (!m_timer) {
        m_timer = new QTimer(this);
        connect(m_timer, &QTimer::timeout, this, &RunMonitorWorker::poll);
    }
    m_timer->start(intervalMs);
    poll();
}

void RunMonitorWorker::stop()
{
    if (m_timer)
        m_timer->stop();
}

void RunMonitorWorker::poll()
{
    QStringList changedIds;
    QStringList finished;
    QStringList replaced;
    QList<run::Alert> alerts;
    for (const run::RunMonitor::Change &change : m_monitor.poll()) {
        if (!change.finished)
            Q_EMIT progressChanged(change.runId, change.progress.has_value(),
                                   change.progress.value_or(run::Progress{}));
        if (change.onlyProgress)
            continue; // nothing to read again
        alerts += change.alerts;
        changedIds << change.runId;
        if (change.finished)
            finished << change.runId;
        if (change.replaced)
            replaced << change.runId;
        if (!change.lines.isEmpty())
            Q_EMIT logLines(change.runId, change.lines);
        if (change.detail)
            Q_EMIT detailChanged(change.runId, *change.detail);
    }
    if (!changedIds.isEmpty())
        Q_EMIT changed(changedIds, finished, replaced);
    if (!alerts.isEmpty())
        Q_EMIT alerted(alerts);
    if (m_sweeps && m_rounds++ % kSweepLookRounds == 0) {
        if (const QList<sweep::SweepState> ended = m_sweeps->poll(); !ended.isEmpty())
            Q_EMIT sweepsEnded(ended);
    }
    for (const auto &[runId, names] : m_monitor.takeSecretRequests())
        Q_EMIT secretsNeeded(runId, names);
}

void RunMonitorWorker::setAlertRules(const QList<run::AlertRule> &everyRun)
{
    m_monitor.setAlertRules(everyRun);
}

void RunMonitorWorker::setRunAlertRules(const QString &runId, const QList<run::AlertRule> &rules)
{
    m_monitor.setRunAlertRules(runId, rules);
}

void RunMonitorWorker::setRunSecrets(const QString &runId, const QStringList &values)
{
    m_monitor.setRunSecrets(runId, values);
    poll();
}

} // namespace ferry::ui
