#include "run/runfollower.h"

#include <QDateTime>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

QList<MetricDefinition> definitionsOf(const RunRecord &record)
{
    const auto spec = RunSpec::fromJson(record.spec);
    return spec ? spec->metricDefinitions : QList<MetricDefinition>{};
}

} // namespace

RunStatus storedStatus(targets::RunState state)
{
    switch (state) {
    case targets::RunState::Running:
        return RunStatus::Running;
    case targets::RunState::Succeeded:
        return RunStatus::Succeeded;
    case targets::RunState::Failed:
        return RunStatus::Failed;
    case targets::RunState::Cancelled:
        return RunStatus::Cancelled;
    case targets::RunState::Lost:
        break;
    }
    return RunStatus::Lost;
}

RunFollower::RunFollower(RunStore &store, targets::Target &target, QString runDir, RunRecord record)
    : m_store(store), m_target(target), m_runDir(std::move(runDir)), m_record(std::move(record)),
      m_parser(definitionsOf(m_record)), m_offset(m_record.logOffset)
{
    // Lines without a step number are counted per metric; carry on counting where the stored
    // points end, so a re-attached run continues its x axis instead of starting again.
    for (const QString &name : m_store.metricNames(m_record.id))
        m_parser.setCount(name, m_store.metricCount(m_record.id, name));
}

Expected<bool> RunFollower::drainLog(Step &step, bool untilEnd)
{
    const run::LogTail::Limits limits;
    do {
        const auto chunk = m_target.readLog(m_runDir, m_offset, limits);
        if (!chunk)
            return chunk.error();
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        QList<MetricPoint> points;
        for (const LogLine &line : chunk->lines) {
            if (!line.isWhole())
                continue; // a piece of a huge line carries no metrics worth reading
            m_parser.parseLine(QString::fromUtf8(line.text), now, points);
            step.lines << m_redactor.redact(line.text);
        }
        if (chunk->nextOffset != m_offset) {
            m_offset = chunk->nextOffset;
            step.points << points;
            m_store.appendMetrics(m_record.id, std::move(points), m_offset);
        }
        if (chunk->atEnd)
            break;
    } while (untilEnd || step.lines.size() < 100000);
    m_record.logOffset = m_offset;
    return true;
}

void RunFollower::recordEnd(const targets::RunProbe &probe)
{
    const RunStatus status = storedStatus(probe.state);
    std::optional<int> exitCode;
    QString error = probe.detail;
    qint64 finished = QDateTime::currentMSecsSinceEpoch();
    if (probe.exit) {
        if (probe.exit->exitCode >= 0)
            exitCode = probe.exit->exitCode;
        if (!probe.exit->error.isEmpty())
            error = probe.exit->error;
        else if (probe.exit->signal != 0 && !probe.exit->cancelled)
            error = u"ended by signal %1"_s.arg(probe.exit->signal);
        finished = probe.exit->finishedMs;
    }
    error = m_redactor.redact(error);
    m_store.setStatus(m_record.id, status, exitCode, error, finished);
    for (const auto &[name, kind] : {std::pair{u"model.tar.gz"_s, u"model"_s},
                                     std::pair{u"output.tar.gz"_s, u"output"_s}, std::pair{u"log"_s, u"log"_s}}) {
        const QFileInfo file(m_runDir + u'/' + name);
        if (file.isFile())
            m_store.addArtifact(m_record.id, Artifact{name, kind, file.size()});
    }
    m_record.status = status;
    m_record.exitCode = exitCode;
    m_record.error = error;
    m_record.finishedMs = finished;
}

Expected<RunFollower::Step> RunFollower::poll()
{
    Step step;
    // Probe first, then read: a run seen finished has written all its log, so one final read
    // to the end takes everything.
    const auto probe = m_target.probe(m_runDir);
    if (!probe)
        return probe.error();
    step.probe = *probe;
    const bool over = probe->finished();
    const auto drained = drainLog(step, over);
    if (!drained)
        return drained.error();
    if (over) {
        if (m_record.status != storedStatus(probe->state) || !isFinished(m_record.status))
            recordEnd(*probe);
        step.finished = true;
    } else if (m_record.status != RunStatus::Running || m_record.error != probe->detail) {
        // A running run's detail is the probe's: "starting", "its supervisor is gone", or none.
        m_store.setStatus(m_record.id, RunStatus::Running, std::nullopt, probe->detail);
        m_record.status = RunStatus::Running;
        m_record.error = probe->detail;
    }
    return step;
}

} // namespace ferry::run
