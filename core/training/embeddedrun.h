// EmbeddedRun: the run folder an in-process training writes, so it is followed and shown like any
// script run.
#pragma once

#include "common/error.h"
#include "run/rundirectory.h"
#include "store/runstore.h"
#include "training/training.h"

#include <QString>

#include <memory>
#include <mutex>
#include <optional>

namespace ferry::run {

// The run folder of an embedded training (target `embedded`), written by the Ferry process
// that trains: spec.json, supervisor.json naming this process (so any other Ferry can tell
// a live training from a lost one, and cancel it with SIGTERM), the contract folders, a
// heartbeat, and the log. Metrics go into the log as JSON lines ({"step": 120, "loss": 0.31})
// that the usual follower turns into stored points, so an embedded run is ingested, re-attached
// and shown exactly like a script run. finish() writes exit.json and packs model.tar.gz.
class EmbeddedRun final : public TrainingSink {
public:
    static Expected<std::unique_ptr<EmbeddedRun>> begin(const QString &runDir, const RunSpec &spec);
    // Records the run in `store` (named `name`, with its parameters), then begins its folder
    // under `runsDir` and marks it running. A run that cannot begin stays in the store as failed.
    static Expected<std::unique_ptr<EmbeddedRun>> start(RunStore &store, const QString &runsDir, const RunSpec &spec,
                                                        const QString &name);

    QString runDir() const { return m_dir.path(); }
    QString modelDir() const { return m_modelDir; }
    QString checkpointDir() const { return m_checkpointDir; }

    void record(const MetricRecord &record) override;
    void progress(const TrainingProgress &progress) override;
    void message(const QString &text) override;

    TrainingProgress lastProgress() const;
    // The end: the result becomes exit.json (a failure's reason as the run's error), then the
    // archives are packed. Once only.
    Expected<void> finish(const TrainingResult &result);

private:
    explicit EmbeddedRun(const QString &runDir);
    void append(const QByteArray &line);

    RunDirectory m_dir;
    QString m_modelDir;
    QString m_checkpointDir;
    mutable std::mutex m_mutex;
    TrainingProgress m_progress;
    qint64 m_lastHeartbeatMs = 0;
};

// The spec of an embedded training on `dataPath`: the data as the `training` channel, the
// settings and the data options as parameters (so it can be shown, resumed and re-run).
RunSpec embeddedRunSpec(const QString &dataPath, const TrainingConfig &config, const data::LoadOptions &load,
                        const QString &workspaceRoot);

// The JSON line of a metric record, as the metric parser reads it back: {"step": 120, "loss": 0.31}
// for a step's record, {"step": 150, "epoch": 3, "train_loss": 0.25, ...} for an epoch's.
QByteArray metricRecordLine(const MetricRecord &record);
// A line of the log read back as the record metricRecordLine wrote (its values in no particular
// order; epoch NaN for a step's record); nothing for any other line (Ferry's messages, a line cut
// short). What shows a run's epochs reads them with this, never by the line's first bytes.
std::optional<MetricRecord> readMetricRecordLine(QByteArrayView line);

} // namespace ferry::run
