#include "ui/session/runmonitorworker.h"

#include <QTimer>

namespace ferry::ui {

RunMonitorWorker::RunMonitorWorker(run::RunStore &store, const QString &runsDir, run::RunMonitor::TargetFactory factory)
    : m_monitor(store, runsDir, std::move(factory))
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
    for (const run::RunMonitor::Change &change : m_monitor.poll()) {
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
    for (const auto &[runId, names] : m_monitor.takeSecretRequests())
        Q_EMIT secretsNeeded(runId, names);
}

void RunMonitorWorker::setRunSecrets(const QString &runId, const QStringList &values)
{
    m_monitor.setRunSecrets(runId, values);
    poll();
}

} // namespace ferry::ui
