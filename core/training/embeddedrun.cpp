#include "training/embeddedrun.h"

#include "run/contract.h"
#include "run/hostfacts.h"
#include "run/supervisor.h"

#include <ferry/version.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>

#include <cmath>
#include <csignal>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

QByteArray metricRecordLine(const MetricRecord &record)
{
    // Written by hand, not through QJsonObject: the step and epoch come first and the keys keep their order.
    // The shortest text that reads back as the same double: exact, and short enough to read.
    const auto number = [](double v) { return QString::number(v, 'g', QLocale::FloatingPointShortest).toUtf8(); };
    QByteArray line = "{\"step\": " + number(record.step);
    if (!std::isnan(record.epoch))
        line += ", \"epoch\": " + number(record.epoch);
    for (const auto &[name, value] : record.values) {
        if (!std::isfinite(value))
            continue;                                            // JSON has no NaN; a missing value is no point
        line += ", \"" + name.toUtf8() + "\": " + number(value); // names are the trainer's own
    }
    return line + "}\n";
}

std::optional<MetricRecord> readMetricRecordLine(QByteArrayView line)
{
    const QJsonDocument document = QJsonDocument::fromJson(line.toByteArray());
    const QJsonObject object = document.object();
    if (!object.value(u"step"_s).isDouble())
        return std::nullopt;
    MetricRecord record;
    record.step = object.value(u"step"_s).toDouble();
    if (const QJsonValue epoch = object.value(u"epoch"_s); epoch.isDouble())
        record.epoch = epoch.toDouble();
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (it.value().isDouble() && it.key() != u"step"_s && it.key() != u"epoch"_s)
            record.values.append({it.key(), it.value().toDouble()});
    }
    return record;
}

RunSpec embeddedRunSpec(const QString &dataPath, const TrainingConfig &config, const data::LoadOptions &load,
                        const QString &workspaceRoot)
{
    RunSpec spec;
    spec.id = newRunId(u"train-"_s + QFileInfo(dataPath).completeBaseName());
    spec.sourceDir = workspaceRoot;
    spec.target.kind = TargetKind::Embedded;
    spec.channels << DataChannel{u"training"_s, QFileInfo(dataPath).absoluteFilePath()};
    spec.hyperparameters = config.toHyperparameters() + dataOptionsToHyperparameters(load);
    spec.data = fingerprintChannels(spec.channels);
    spec.ferryVersion = QString::fromLatin1(kVersion);
    return spec;
}

Expected<std::unique_ptr<EmbeddedRun>> EmbeddedRun::start(RunStore &store, const QString &runsDir, const RunSpec &spec,
                                                          const QString &name)
{
    RunRecord record = newRunRecord(spec);
    record.name = name;
    store.createRun(record);
    store.setParams(record.id, spec.hyperparameters);
    auto run = begin(QDir(runsDir).filePath(record.id), spec);
    if (!run) {
        store.setStatus(record.id, RunStatus::Failed, std::nullopt, run.error().toString());
        return run.error();
    }
    // The host it trains on: this one (run/hostfacts.h).
    if (const auto facts = writeLocalHostFacts((*run)->runDir()); !facts)
        (*run)->message(u"note: "_s + facts.error().message);
    store.setStatus(record.id, RunStatus::Running);
    return run;
}

EmbeddedRun::EmbeddedRun(const QString &runDir) : m_dir(runDir) {}

Expected<std::unique_ptr<EmbeddedRun>> EmbeddedRun::begin(const QString &runDir, const RunSpec &spec)
{
    if (spec.target.kind != TargetKind::Embedded)
        return Error{u"not an embedded run: its target is %1"_s.arg(spec.target.toString()), runDir, 0, 0, {}};
    std::unique_ptr<EmbeddedRun> run(new EmbeddedRun(runDir));
    const RunDirectory &dir = run->m_dir;
    if (const auto claimed = dir.claim(spec); !claimed)
        return claimed.error();
    Resources resources;
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    resources.cpus = cpus > 0 ? static_cast<int>(cpus) : 1;
    if (const auto prepared = prepareContractFolders(dir.path(), spec, resources); !prepared)
        return prepared.error();
    const ContractPaths paths = localContractPaths(dir.path(), spec);
    run->m_modelDir = paths.modelDir;
    run->m_checkpointDir = paths.checkpointsDir;

    SupervisorRecord self;
    self.supervisorPid = ::getpid();
    self.childPid = self.supervisorPid;
    self.processGroup = ::getpgrp(); // recorded as every supervisor's; never signalled for an embedded run
    const auto state = processState(self.supervisorPid);
    self.supervisorStartTicks = state ? state->startTicks : 0;
    self.childStartTicks = self.supervisorStartTicks;
    self.bootId = currentBootId();
    if (const auto written = dir.writeSupervisor(self); !written)
        return written.error();
    (void)dir.touchHeartbeat(nowMs());
    QFile log(dir.logFile());
    if (!log.open(QIODevice::WriteOnly | QIODevice::Append))
        return Error{u"cannot write the run's log"_s, dir.logFile(), 0, 0, u"check permissions"_s};
    return run;
}

void EmbeddedRun::append(const QByteArray &line)
{
    // One write per line, appended: a reader never sees half a line but at the end.
    QFile log(m_dir.logFile());
    if (log.open(QIODevice::WriteOnly | QIODevice::Append))
        log.write(line);
}

void EmbeddedRun::record(const MetricRecord &record)
{
    append(metricRecordLine(record));
}

void EmbeddedRun::progress(const TrainingProgress &progress)
{
    qint64 now = nowMs();
    {
        const std::lock_guard lock(m_mutex);
        m_progress = progress;
        if (now - m_lastHeartbeatMs < 1000)
            return;
        m_lastHeartbeatMs = now;
    }
    (void)m_dir.touchHeartbeat(now);
}

void EmbeddedRun::message(const QString &text)
{
    append("ferry: " + text.toUtf8() + '\n');
}

TrainingProgress EmbeddedRun::lastProgress() const
{
    const std::lock_guard lock(m_mutex);
    return m_progress;
}

Expected<void> EmbeddedRun::finish(const TrainingResult &result)
{
    ExitRecord exit;
    exit.finishedMs = nowMs();
    switch (result.outcome) {
    case TrainingResult::Outcome::Completed:
    case TrainingResult::Outcome::StoppedEarly:
        exit.exitCode = 0;
        break;
    case TrainingResult::Outcome::Cancelled:
        exit.cancelled = true;
        exit.signal = SIGTERM;
        break;
    case TrainingResult::Outcome::Failed:
        exit.exitCode = 1;
        exit.error = result.error.toString();
        break;
    }
    message(u"training %1 after %2 epoch(s)%3"_s.arg(outcomeName(result.outcome))
                .arg(result.epochsDone)
                .arg(result.error.message.isEmpty() ? QString() : u": "_s + result.error.toString()));
    if (const auto written = m_dir.writeExit(exit); !written)
        return written.error();
    return finalize(m_dir.path());
}

} // namespace ferry::run
