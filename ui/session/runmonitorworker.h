// RunMonitorWorker: drives run::RunMonitor on its own thread, so the GUI thread never reads a log
// or probes a run.
#pragma once

#include "tracking/runmonitor.h"

#include <QObject>
#include <QStringList>

#include <memory>

class QTimer;

namespace ferry::ui {

// Drives a run::RunMonitor from its own thread (moveToThread): every 500 ms it follows the
// workspace's unfinished runs (log lines into stored points, probes into statuses) and says
// which runs changed. So a restarted window re-attaches, and live runs stay live, without the
// GUI thread ever reading a log or probing a container.
class RunMonitorWorker : public QObject {
    Q_OBJECT
public:
    RunMonitorWorker(run::RunStore &store, const QString &runsDir, run::RunMonitor::TargetFactory factory);
    ~RunMonitorWorker() override;

public Q_SLOTS:
    void start(int intervalMs = 500); // call through a queued connection, in the worker's thread
    void poll();
    void stop();
    // The values of a run's secrets (secretsNeeded), read by the window's keychain.
    void setRunSecrets(const QString &runId, const QStringList &values);

Q_SIGNALS:
    // Runs with new points, lines or another status; `finished`: those now over; `replaced`:
    // those whose stored points were replaced (to be read again, not only what is new).
    void changed(const QStringList &runIds, const QStringList &finished, const QStringList &replaced);
    void logLines(const QString &runId, const QList<QByteArray> &lines);
    // What the target says about a run not over yet (Slurm: queue position and reason).
    void detailChanged(const QString &runId, const QString &detail);
    // A run with secret variables waits (nothing of it is shown) until setRunSecrets.
    void secretsNeeded(const QString &runId, const QStringList &secretNames);

private:
    run::RunMonitor m_monitor;
    QTimer *m_timer = nullptr;
};

} // namespace ferry::ui
