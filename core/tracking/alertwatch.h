// AlertWatch: a run's alert rules evaluated against its stored points and its status, for
// `ferry runs watch` and the window alike.
#pragma once

// What raises an alert while a run goes, in one place for the command line (`ferry runs watch
// --alert RULE`) and the window (its run monitor, ui/session): the rules of tracking/alertrule.h
// over the points the store holds (whichever follower stored them), and the run's end. Each rule
// fires when it comes true and again only after it was false in between (a point that no longer
// meets it, a new point after a stall), so a loss hovering over a threshold says so once per
// crossing; a run's end fires once. Built in, without a rule: a run on an SSH host or a Slurm
// cluster that has a budget is said once at 80 % of it (BudgetUsed), as the local supervisor says
// a local run's; nothing of Ferry's beside such a run could say it.
#include "store/runstore.h"
#include "tracking/alertrule.h"
#include "tracking/idlegpu.h"

#include <QHash>
#include <QList>
#include <QString>

#include <cmath>
#include <limits>

namespace ferry::run {

struct Alert {
    enum class Kind {
        Ended,      // the run is over: `status` says how
        Crossed,    // a point of `metric` met a threshold rule
        NotFinite,  // a point of `metric` was NaN or infinite
        Stalled,    // no new point for the rule's duration
        GpuIdle,    // a GPU at 0 % for the rule's duration: `metric` its utilisation, `detail` since when
        BudgetUsed, // kBudgetWarningShare of a remote run's budget used (no rule): `detail` the cap
    };
    Kind kind = Kind::Ended;
    QString runId;
    QString runName;
    QString sweepId; // the sweep whose trial the run is; empty: none
    QString rule;    // the rule's text (AlertRule::text); empty for Ended
    QString metric;  // Crossed, NotFinite
    double value = std::numeric_limits<double>::quiet_NaN();
    double step = std::numeric_limits<double>::quiet_NaN();
    RunStatus status = RunStatus::Running; // Ended: how the run ended
    QString detail;                        // Ended: the run's error, if any; Stalled: since when
    qint64 atMs = 0;                       // when it fired (ms since the epoch)
    bool operator==(const Alert &) const = default;

    // One line for a terminal and a notification's title: "run NAME: val_loss = 2.61 > 2.5 at step
    // 300", "run NAME failed (exit code 1)".
    QString summary() const;
    // A second line for a notification's body: the error, the rule; may be empty.
    QString body() const;
    // Whether this is bad news (a failure, a lost run, a rule): a notification's urgency.
    bool isWarning() const;
};

class AlertWatch {
public:
    // `rules`: what to watch besides the end. Nothing is read until observe().
    AlertWatch(const RunStore &store, QString runId, QList<AlertRule> rules = {});

    // The rules from now on, each once: rules kept from before keep their state (a crossing is not
    // said again), new ones start fresh.
    void setRules(QList<AlertRule> rules);
    const QList<AlertRule> &rules() const { return m_rules; }

    // What fired since the last call: the points stored meanwhile are read when `newPoints` (the
    // follower saw lines or points; the first call reads every point the run has), then the stall
    // and the end, from `record` (the run as it is now). `queued`: the run waits for its resources
    // (a pending Slurm job, RunProbe::queued): its budget's clock has not started. Blocking: reads
    // the store.
    QList<Alert> observe(const RunRecord &record, qint64 nowMs, bool newPoints = true, bool queued = false);

    bool ended() const { return m_ended; }

    // The run's folder here (a remote run's local copy): the budget's word, once said, is
    // remembered there (run::BudgetClock::claimWarning), so a Ferry that follows the run later (a
    // window opened again, another `ferry runs watch`) does not say it again. Empty: remembered in
    // this watch only.
    void setRunDir(const QString &runDir) { m_runDir = runDir; }

private:
    void checkPoint(const AlertRule &rule, qsizetype index, const QString &name, double step, double value,
                    qint64 nowMs, QList<Alert> &fired);
    void checkIdleGpu(const AlertRule &rule, const QString &name, const SeriesColumns &points, qint64 nowMs,
                      QList<Alert> &fired);
    Alert alertFor(Alert::Kind kind, qint64 nowMs) const;
    void checkBudget(const RunRecord &record, qint64 nowMs, bool queued, QList<Alert> &fired);

    const RunStore &m_store;
    QString m_runId;
    QString m_runName;
    QString m_sweepId;
    bool m_readSpec = false;
    RunBudget m_budget;         // a remote run's (SSH, Slurm); none for a local one: its supervisor says it
    qint64 m_budgetSinceMs = 0; // its clock's start: the record's start, or when last seen queued
    bool m_budgetWarned = false;
    QString m_runDir;
    QList<AlertRule> m_rules;
    RunStore::MetricCursor m_cursor;
    QHash<qint64, IdleGpuWatch> m_idleGpus; // per gpu_idle rule's duration
    bool m_readOnce = false;
    // Per rule (index in m_rules) and metric: whether the last point met the rule.
    QList<QHash<QString, bool>> m_met;
    qint64 m_lastPointMs = 0;    // the newest point's wall time, or when it was seen
    qint64 m_runningSinceMs = 0; // when the run started (or was first seen running)
    bool m_ended = false;
};

// "0.000123", "2.61", "nan", "inf": a value as an alert says it.
QString alertValueText(double value);

} // namespace ferry::run
