// RunMonitor: follows every unfinished run of a workspace, so a restarted Ferry re-attaches to what
// still runs.
#pragma once

#include "secrets/redactor.h"
#include "store/runstore.h"
#include "tracking/alertwatch.h"
#include "tracking/runfollower.h"

#include <QHash>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace ferry::run {

// Keeps every unfinished run of a workspace followed: what `ferry runs list` does once, the
// window does all the time. New runs in the store are picked up, each gets a RunFollower (log
// lines into metric points, the target's probe into the status), finished ones are dropped.
// So a restarted Ferry re-attaches to what still runs, and a run whose process vanished
// becomes lost. One thread at a time calls poll(); it blocks on file reads and probes.
class RunMonitor {
public:
    using TargetFactory = std::function<std::unique_ptr<targets::Target>(const TargetSpec &)>;
    RunMonitor(RunStore &store, QString runsDir, TargetFactory factory);
    ~RunMonitor();

    struct Change {
        QString runId;
        RunStatus status = RunStatus::Running;
        qsizetype newPoints = 0;
        QList<QByteArray> lines; // whole log lines read in this round
        bool finished = false;   // over, and everything of it stored
        bool replaced = false;   // points stored before were replaced (a file took a metric over from the log)
        // What the target says about a run that is not over (e.g. "pending, position 2 in the
        // queue, waiting for: Resources" on Slurm), when it changed; empty: nothing to say.
        std::optional<QString> detail;
        // What fired in this round (tracking/alertwatch.h): the rules given, and the run's end.
        QList<Alert> alerts;
        // How far the run is (tracking/progress.h), in every change of a run not over; a change is
        // listed when its fraction moved. nullopt: nothing in its log gives a total.
        std::optional<Progress> progress;
        bool onlyProgress = false; // listed for its progress alone: nothing else of it changed
    };
    // One round over the unfinished runs; only runs where something happened are listed.
    QList<Change> poll();
    // How many runs are followed now.
    qsizetype followed() const { return m_followers.size(); }

    // The alert rules of every run followed, and those of one run besides (setRunAlertRules; an
    // empty list: none). Each followed run says its end as an alert whatever the rules.
    void setAlertRules(const QList<AlertRule> &everyRun);
    void setRunAlertRules(const QString &runId, const QList<AlertRule> &rules);

    // A run with secret variables is not read until its redactor is given: nothing of it (lines,
    // points) leaves the monitor unredacted. The secrets whose values are wanted, per run id,
    // since the last call (the owner reads them from its keychain, asynchronously).
    QList<std::pair<QString, QStringList>> takeSecretRequests();
    // The values of a run's secrets (those that could be read); the run is followed from now on.
    void setRunSecrets(const QString &runId, const QStringList &values);

private:
    struct Followed;
    RunStore &m_store;
    QString m_runsDir;
    TargetFactory m_factory;
    QHash<QString, std::shared_ptr<Followed>> m_followers;
    QList<std::pair<QString, QStringList>> m_secretRequests;
    QList<AlertRule> m_alertRules;
    QHash<QString, QList<AlertRule>> m_runAlertRules;
};

} // namespace ferry::run
