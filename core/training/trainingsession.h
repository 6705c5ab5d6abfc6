// TrainingSession: one embedded training from loading the plugin and the data to the recorded end
// of the run.
#pragma once

#include "common/error.h"
#include "data/dataset.h"
#include "run/runspec.h"
#include "training/trainerengine.h"
#include "training/training.h"

#include <QString>

#include <functional>
#include <memory>
#include <mutex>

namespace ferry::run {

class EmbeddedRun;
class RunStore;

// One embedded training from the trainer to the recorded end, the one way `ferry train` and
// the train panel run it: the trainer plugin loaded, the dataset read, the run recorded
// (EmbeddedRun: spec, folder, store), trained, finished (exit.json, model.tar.gz). Core drives
// the TrainerEngine interface only; torch stays in the plugin.
//
// run() blocks the thread it is called on (never a GUI thread); cancel, pause and progress()
// may be called from any other. A cancel stops the dataset's loading as well as the training.
class TrainingSession {
public:
    using EngineProvider = std::function<Expected<TrainerEngine *>()>;

    struct Request {
        QString dataPath;
        TrainingConfig config;  // its model and checkpoint folders are the run's
        data::LoadOptions load; // its `cancelled` is the session's own
        QString rerunOf;        // the run this one repeats (`ferry runs rerun`), if any
    };

    // The run has been recorded and its training begins.
    struct Started {
        RunSpec spec;
        QString runDir;
        const data::Dataset *dataset = nullptr; // valid during the call only
    };

    // Called on the thread that runs the session.
    struct Events {
        std::function<void(qsizetype done, qsizetype total)> loading; // the dataset, as it is read
        std::function<void(const Started &started)> started;
        std::function<void(const TrainingProgress &progress)> progress; // as the trainer reports
    };

    struct Outcome {
        QString runId;
        QString runDir;
        QString modelDir;
        TrainingResult result;
        Expected<void> recorded; // the end written and packed; an Error says why not
    };

    TrainingSession(RunStore &store, QString runsDir, QString workspaceRoot);
    ~TrainingSession();
    TrainingSession(const TrainingSession &) = delete;
    TrainingSession &operator=(const TrainingSession &) = delete;

    // Every step, on the calling thread. An Error: a step before the training failed (the
    // trainer, the data, the run folder) or a cancel came first; no training ran then, and a
    // run is recorded (as failed) only when its folder could not be begun.
    Expected<Outcome> run(const EngineProvider &engine, Request request, const Events &events = {});

    void cancel() { m_control.cancel(); }
    void pause() { m_control.pause(); }
    void resume() { m_control.resume(); }
    bool isCancelled() const { return m_control.isCancelled(); }
    bool isPaused() const { return m_control.isPaused(); }
    // The training's last report; zero until it has one.
    TrainingProgress progress() const;

    // The request that trains as the embedded run of `spec` did: its settings (the seed among
    // them) and data options from its hyperparameters, and its first channel's data unless
    // `request` names other data. What `ferry train --resume`, `ferry runs rerun` and the
    // window's "Re-run exactly" share.
    static void applyRunSettings(const RunSpec &spec, Request &request);

    // The run's name in the runs table: "train <file>".
    static QString runName(const QString &dataPath);

private:
    class Sink;

    Expected<data::Dataset> loadData(Request &request, const Events &events);
    Expected<std::shared_ptr<EmbeddedRun>> beginRun(const Request &request, const data::Dataset &dataset,
                                                    const Events &events);

    RunStore &m_store;
    QString m_runsDir;
    QString m_root;
    TrainingControl m_control;
    mutable std::mutex m_mutex;
    std::shared_ptr<EmbeddedRun> m_run; // under m_mutex: progress() reads it from other threads
};

} // namespace ferry::run
