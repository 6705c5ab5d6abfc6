// TrainPanel: the embedded trainer's panel, choosing dataset, model and settings and running
// training on a worker thread.
#pragma once

#include "common/error.h"
#include "training/trainerengine.h"
#include "training/training.h"
#include "training/trainingsession.h"

#include <QPointer>
#include <QWidget>

#include <functional>
#include <memory>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QThread;
class QTimer;

namespace ferry::run {
class RunStore;
} // namespace ferry::run

namespace ferry::ui {

// The embedded trainer's panel: dataset, model and the few settings that matter, Train /
// Pause / Cancel, a progress bar with the ETA. Training runs in a worker thread as an embedded
// run recorded in the workspace's store; its metrics reach the chart the way every run's do
// (log → follower → store), so the panel only starts, steers and shows progress.
class TrainPanel : public QWidget {
    Q_OBJECT
public:
    using EngineProvider = std::function<Expected<run::TrainerEngine *>()>;

    explicit TrainPanel(EngineProvider engine, QWidget *parent = nullptr);
    ~TrainPanel() override;

    // Where runs are recorded; nullptr: no workspace (Train is disabled).
    void setWorkspace(run::RunStore *store, const QString &runsDir, const QString &root);
    void setDataset(const QString &path);
    QString dataset() const;
    bool isTraining() const;
    // The settings as the form shows them (for tests and for re-runs).
    run::TrainingConfig config() const;
    void setConfig(const run::TrainingConfig &config);
    // Torch threads for the trainings started here (the settings); 0: the plugin's choice.
    void setThreads(int threads) { m_threads = threads; }

    // The embedded run of `spec` trained again as it was (its settings, seed and data: the
    // store records it as a rerun of `rerunOf`); nothing while a training is under way.
    void trainAgain(const run::RunSpec &spec, const QString &rerunOf);

public Q_SLOTS:
    void train();
    void togglePause();
    void cancel();

Q_SIGNALS:
    void runStarted(const QString &runId);
    void runFinished(const QString &runId, const QString &outcome);
    void problem(const ferry::Error &error); // "Train: " and the reason, where core said it
    void datasetChanged(const QString &path);

private:
    void start(const run::TrainingSession::Request &request); // on the worker thread
    void updateState();
    void showHint(); // what to do next, from the workspace and dataset (not while training)
    void showProgress();
    // From the training's thread, on this one.
    void started(const QString &runId);
    void failed(const Error &error);
    void finished(const run::TrainingResult &result);

    EngineProvider m_engine;
    run::RunStore *m_store = nullptr;
    QString m_runsDir;
    QString m_root;

    QLineEdit *m_dataset;
    QComboBox *m_model;
    QLineEdit *m_layers;
    QSpinBox *m_epochs;
    QSpinBox *m_batchSize;
    QDoubleSpinBox *m_learningRate;
    QComboBox *m_optimizer;
    QSpinBox *m_seed;
    QPushButton *m_trainButton;
    QPushButton *m_pauseButton;
    QPushButton *m_cancelButton;
    QProgressBar *m_progress;
    QLabel *m_status;
    QTimer *m_progressTimer;

    // The training under way (run::TrainingSession: the same as `ferry train`'s).
    QThread *m_thread = nullptr;
    std::shared_ptr<run::TrainingSession> m_session;
    QString m_runId; // empty until its run is recorded
    int m_threads = 0;
};

} // namespace ferry::ui
