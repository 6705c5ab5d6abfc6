// RunMonitorWorker: drives run::RunMonitor on its own thread, so the GUI thread never reads a log
// or probes a run.
#pragma once

#include "sweep/sweepwatch.h"
#include "tracking/runmonitor.h"

#include <QObject>
#include <QStringList>

#include <memory>

class QTimer;

namespace ferry::ui {

// Drives a run::RunMonitor from its own thread (moveToThread): every 500 ms it follows the
// workspace's unfinished runs (log lines into stored points, probes into statuses) and says
// which runs changed and what alerts fired. So a restarted window re-attaches, and live runs stay
// live, without the GUI thread ever reading a log or probing a container. Every 5 s it also
// looks at the workspace's sweeps, for those that ended.
class RunMonitorWorker : public QObject {
    Q_OBJECT
public:
    // `sweepsDir`: the workspace's sweeps (Workspace::sweepsDir); empty: none are looked at.
    RunMonitorWorker(run::RunStore &store, const QString &runsDir, run::RunMonitor::TargetFactory factory,
                     const QString &sweepsDir = {});
    ~RunMonitorWorker() override;

public Q_SLOTS:
    void start(int intervalMs = 500); // call through a queued connection, in the worker's thread
    void poll();
    void stop();
    // The values of a run's secrets (secretsNeeded), read by the window's keychain.
    void setRunSecrets(const QString &runId, const QStringList &values);
    // The alert rules of every run, and a run's own (run::RunMonitor::setAlertRules).
    void setAlertRules(const QList<ferry::run::AlertRule> &everyRun);
    void setRunAlertRules(const QString &runId, const QList<ferry::run::AlertRule> &rules);

Q_SIGNALS:
    // Runs with new points, lines or another status; `finished`: those now over; `replaced`:
    // those whose stored points were replaced (to be read again, not only what is new).
    void changed(const QStringList &runIds, const QStringList &finished, const QStringList &replaced);
    void logLines(const QString &runId, const QList<QByteArray> &lines);
    // What the target says about a run not over yet (Slurm: queue position and reason).
    void detailChanged(const QString &runId, const QString &detail);
    // How far a run not over yet is, when it moved (tracking/progress.h); `known` false: nothing
    // in its log gives a total.
    void progressChanged(const QString &runId, bool known, const ferry::run::Progress &progress);
    // A run with secret variables waits (nothing of it is shown) until setRunSecrets.
    void secretsNeeded(const QString &runId, const QStringList &secretNames);
    // What fired in a round: rules crossed, runs ended (tracking/alertwatch.h).
    void alerted(const QList<ferry::run::Alert> &alerts);
    // Sweeps that ended since the last look (sweep/sweepwatch.h).
    void sweepsEnded(const QList<ferry::sweep::SweepState> &sweeps);

private:
    run::RunMonitor m_monitor;
    std::unique_ptr<sweep::SweepWatch> m_sweeps;
    int m_rounds = 0;
    QTimer *m_timer = nullptr;
};

} // namespace ferry::ui
