#pragma once

#include "run/metricparser.h"
#include "run/runstore.h"
#include "secrets/redactor.h"
#include "targets/target.h"

#include <QByteArray>
#include <QList>
#include <QString>

namespace ferry::run {

// Keeps one run's record in the store in step with its run folder: new log lines become
// metric points, stored together with the log offset they end at (so a follower that
// starts again after a crash re-reads from there and neither loses nor doubles a point), and
// the target's probe becomes the run's status. Any number of Ferry processes over time may
// follow a run; one at a time should.
class RunFollower {
public:
    RunFollower(RunStore &store, targets::Target &target, QString runDir, RunRecord record);

    struct Step {
        QList<QByteArray> lines; // whole log lines read in this step
        QList<MetricPoint> points;
        targets::RunProbe probe;
        bool finished = false; // the run is over and everything of it is stored
    };
    // Reads what is new. Blocks only on file reads and the probe.
    Expected<Step> poll();

    const RunRecord &record() const { return m_record; }

    // Hides these secrets (the values the run was given) in the log lines a step returns and in
    // the error stored when the run ends. Metric parsing still sees the lines as written.
    void setRedactor(secrets::Redactor redactor) { m_redactor = std::move(redactor); }

private:
    Expected<bool> drainLog(Step &step, bool untilEnd);
    void recordEnd(const targets::RunProbe &probe);

    RunStore &m_store;
    targets::Target &m_target;
    QString m_runDir;
    RunRecord m_record;
    MetricParser m_parser;
    qint64 m_offset = 0;
    secrets::Redactor m_redactor;
};

RunStatus storedStatus(targets::RunState state);

} // namespace ferry::run
