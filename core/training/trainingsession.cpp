#include "training/trainingsession.h"

#include "store/runstore.h"
#include "training/embeddedrun.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::run {

// Where the trainer reports: the run's folder, and the caller's progress event.
class TrainingSession::Sink final : public TrainingSink {
public:
    Sink(EmbeddedRun &run, const Events &events) : m_run(run), m_events(events) {}

    void record(const MetricRecord &record) override { m_run.record(record); }
    void message(const QString &text) override { m_run.message(text); }
    void progress(const TrainingProgress &progress) override
    {
        m_run.progress(progress);
        if (m_events.progress)
            m_events.progress(progress);
    }

private:
    EmbeddedRun &m_run;
    const Events &m_events;
};

TrainingSession::TrainingSession(RunStore &store, QString runsDir, QString workspaceRoot)
    : m_store(store), m_runsDir(std::move(runsDir)), m_root(std::move(workspaceRoot))
{
}

TrainingSession::~TrainingSession() = default;

void TrainingSession::applyRunSettings(const RunSpec &spec, Request &request)
{
    for (const Hyperparameter &hp : spec.hyperparameters) {
        if (!request.config.set(hp.name, hp.value))
            (void)setDataOption(request.load, hp.name, hp.value);
    }
    if (request.dataPath.isEmpty() && !spec.channels.isEmpty())
        request.dataPath = spec.channels.first().path;
}

QString TrainingSession::runName(const QString &dataPath)
{
    return u"train "_s + QFileInfo(dataPath).fileName();
}

TrainingProgress TrainingSession::progress() const
{
    const std::lock_guard lock(m_mutex);
    return m_run ? m_run->lastProgress() : TrainingProgress{};
}

Expected<data::Dataset> TrainingSession::loadData(Request &request, const Events &events)
{
    request.load.cancelled = [this] { return m_control.isCancelled(); };
    if (events.loading)
        request.load.progress = events.loading;
    auto dataset = data::loadDataset(request.dataPath, request.load);
    if (dataset && m_control.isCancelled()) // after the last look the loader took
        return Error{u"loading was cancelled"_s, request.dataPath, 0, 0, {}};
    return dataset;
}

Expected<std::shared_ptr<EmbeddedRun>> TrainingSession::beginRun(const Request &request, const data::Dataset &dataset,
                                                                 const Events &events)
{
    RunSpec spec = embeddedRunSpec(request.dataPath, request.config, request.load, m_root);
    spec.rerunOf = request.rerunOf;
    auto started = EmbeddedRun::start(m_store, m_runsDir, spec, runName(request.dataPath));
    if (!started)
        return started.error();
    std::shared_ptr<EmbeddedRun> embedded(std::move(*started));
    for (const QString &note : dataset.notes) // what loading did, kept with the run
        embedded->message(u"note: "_s + note);
    {
        const std::lock_guard lock(m_mutex);
        m_run = embedded;
    }
    if (events.started)
        events.started(Started{spec, embedded->runDir(), &dataset});
    return embedded;
}

Expected<TrainingSession::Outcome> TrainingSession::run(const EngineProvider &engine, Request request,
                                                        const Events &events)
{
    // The trainer first: libtorch loads now, not at start-up.
    const auto trainer = engine();
    if (!trainer)
        return trainer.error();
    const auto dataset = loadData(request, events);
    if (!dataset)
        return dataset.error();
    const auto embedded = beginRun(request, *dataset, events);
    if (!embedded)
        return embedded.error();
    EmbeddedRun &trainingRun = **embedded;

    TrainingConfig config = request.config;
    config.modelDir = trainingRun.modelDir();
    config.checkpointDir = trainingRun.checkpointDir();
    Sink sink(trainingRun, events);
    Outcome outcome;
    outcome.result = (*trainer)->train(*dataset, config, m_control, sink);
    outcome.recorded = trainingRun.finish(outcome.result);
    outcome.runDir = trainingRun.runDir();
    outcome.runId = QFileInfo(outcome.runDir).fileName();
    outcome.modelDir = config.modelDir;
    return outcome;
}

} // namespace ferry::run
