// The embedded trainer's vocabulary as plain value types: configuration, progress, control and
// model cards.
#pragma once

#include "common/error.h"
#include "common/setting.h"
#include "data/dataset.h"
#include "run/runspec.h"

#include <QJsonObject>
#include <QLatin1StringView>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <vector>

// The embedded trainer's vocabulary, in plain value types: what to train (TrainingConfig),
// what it reports (MetricRecord, TrainingProgress through a TrainingSink), how it is steered
// from another thread (TrainingControl) and what a trained model says about itself (ModelCard).
// No torch here: the ferry_trainer plugin implements TrainerEngine on top of these.
namespace ferry::run {

enum class ModelKind { Mlp, Cnn };
enum class OptimizerKind { Sgd, Adam, AdamW };
enum class ScheduleKind { Constant, Step, Cosine };
enum class Activation { Relu, Tanh, Gelu };

// The trainer's threads from the settings; 0: the plugin's choice.
inline const Setting<int> kTrainerThreadsSetting{"trainer/threads", 0};

struct TrainingConfig {
    ModelKind model = ModelKind::Mlp;
    QList<int> layers{128, 64}; // MLP hidden layer sizes
    Activation activation = Activation::Relu;
    double dropout = 0.0;
    QList<int> convChannels{16, 32}; // CNN: one conv(3x3)–ReLU–maxpool(2) block per entry, then the MLP head

    OptimizerKind optimizer = OptimizerKind::Adam;
    double learningRate = 1e-3;
    double momentum = 0.9; // SGD
    double weightDecay = 0.0;
    ScheduleKind schedule = ScheduleKind::Constant;
    int stepSize = 10;  // step schedule: epochs between decays
    double gamma = 0.1; // step schedule: the decay factor

    int epochs = 10;
    int batchSize = 32;
    std::uint64_t seed = 1;
    double validationFraction = 0.2;
    int earlyStoppingPatience = 0; // epochs without a better validation loss before stopping; 0: never
    int logEverySteps = 10;        // a `loss` point every N optimiser steps
    int threads = 0;               // torch intra-op threads; 0: the plugin's choice (1 on <= 2 cores)

    QString modelDir;      // where the weights and model.json go at the end
    QString checkpointDir; // one checkpoint per epoch (the latest kept); empty: none
    QString resumeFrom;    // a checkpoint file to continue from

    QJsonObject toJson() const;
    static Expected<TrainingConfig> fromJson(const QJsonObject &json);
    // One setting by its command-line name (epochs, batch-size, lr, optimizer, layers, ...).
    Expected<void> set(const QString &name, const QString &value);
    // Every setting by its command-line name, as text (a run's recorded parameters).
    QList<Hyperparameter> toHyperparameters() const;
};

// The settings' command-line names, in order (what TrainingConfig::set takes).
QStringList trainingSettingNames();

// One training setting as a help text shows it; from the one table TrainingConfig::set reads.
struct TrainingSetting {
    QString name;        // the command-line name: epochs, batch-size, lr, ...
    QString valueName;   // what the value is: N, X, SIZES, NAME
    QString description; // a line, with the choices where there is a fixed set
    QString defaultText; // a default TrainingConfig's value, as set() takes it
};
QList<TrainingSetting> trainingSettings(); // in the order of trainingSettingNames()

// How an embedded run reads its data, as parameters: target-column, task, missing, image-size,
// rgb (those that differ from the defaults), and back.
QList<Hyperparameter> dataOptionsToHyperparameters(const data::LoadOptions &options);
// One data option by its command-line name; false when `name` is no data option.
Expected<void> setDataOption(data::LoadOptions &options, const QString &name, const QString &value);
QStringList dataOptionNames();

QString modelKindName(ModelKind kind);
QString optimizerName(OptimizerKind kind);
QString scheduleName(ScheduleKind kind);
QString activationName(Activation activation);

// The metrics the embedded trainer records once per epoch (with kLearningRate), by the names
// the chart, the runs table and the panels look them up by.
inline constexpr QLatin1StringView kTrainLoss{"train_loss"};
inline constexpr QLatin1StringView kValLoss{"val_loss"};
inline constexpr QLatin1StringView kValAccuracy{"val_accuracy"};
inline constexpr QLatin1StringView kLearningRate{"lr"};

// One line of metrics: values at one global optimiser step; a per-epoch record also names the
// epoch it closes (1-based).
struct MetricRecord {
    double step = 0;
    double epoch = std::numeric_limits<double>::quiet_NaN(); // NaN: a per-step record
    QList<QPair<QString, double>> values;
};

struct TrainingProgress {
    int epoch = 0; // 1-based, the epoch under way
    int epochs = 0;
    qint64 step = 0; // optimiser steps so far, over all epochs
    qint64 totalSteps = 0;
    double samplesPerSecond = 0;
    double elapsedSeconds = 0;
    double etaSeconds = -1; // -1: not known yet
    bool paused = false;
};

// Where a training reports; called from the training thread.
class TrainingSink {
public:
    virtual ~TrainingSink() = default;
    virtual void record(const MetricRecord &record) = 0;
    virtual void progress(const TrainingProgress &progress) = 0;
    virtual void message(const QString &text) = 0;
};

// Cancel and pause, set from any thread; the trainer asks between optimiser steps.
class TrainingControl {
public:
    void cancel();
    void pause();
    void resume();
    bool isCancelled() const { return m_cancelled.load(); }
    bool isPaused() const { return m_paused.load(); }
    // For the trainer: blocks while paused (calling `whilePaused` once when the pause starts);
    // returns false once cancelled.
    bool proceed(const std::function<void()> &whilePaused = {});

private:
    std::atomic<bool> m_cancelled{false};
    std::atomic<bool> m_paused{false};
    std::mutex m_mutex;
    std::condition_variable m_wake;
};

struct TrainingResult {
    enum class Outcome { Completed, StoppedEarly, Cancelled, Failed };
    Outcome outcome = Outcome::Failed;
    Error error; // Failed: why, where (a file the model folder could not take) and what to do; else empty
    int epochsDone = 0;
    QJsonObject finalMetrics; // train_loss, val_loss, val_accuracy, ... of the last (or best) epoch
};
QString outcomeName(TrainingResult::Outcome outcome); // "completed", "stopped-early", "cancelled", "failed"

// model.json beside the weights: what the model is, what input it takes (and how that input
// is normalised), what it predicts, and how well it did.
struct ModelCard {
    // model.json is text of a few KiB (a wide table's columns and their normalisation: some
    // hundreds); no more of one is read from an archive (review L2).
    static constexpr qint64 kMaxFileBytes = 1024 * 1024;
    // The weights read from an archive: at most this many bytes (streamed to a file, never held).
    static constexpr qint64 kMaxWeightsBytes = qint64(4) << 30;

    int format = 1;
    TrainingConfig config;
    data::DatasetKind inputKind = data::DatasetKind::Table;
    QList<int> inputShape;    // of one sample
    QStringList featureNames; // tables: the columns predict needs, in order
    QString targetName;
    data::Task task = data::Task::Classification;
    QStringList classNames;
    data::Normalization normalization;
    double targetMean = 0; // regression: the model predicts (target - mean) / std
    double targetStd = 1;
    QJsonObject metrics;
    // Plain file names in the model folder (fromJson refuses paths: `..`, `/`).
    QString weightsFile = QStringLiteral("model.pt");     // libtorch C++ weights (ferry predict)
    QString torchScriptFile = QStringLiteral("model.ts"); // TorchScript: raw samples in, logits or values out
    QString torchVersion;

    QJsonObject toJson() const;
    static Expected<ModelCard> fromJson(const QJsonObject &json, const QString &path);
    static Expected<ModelCard> read(const QString &modelDir); // <modelDir>/model.json
    // model.json's text; errors name `path` (the file, or the archive it came from).
    static Expected<ModelCard> parse(const QByteArray &json, const QString &path);
    Expected<void> write(const QString &modelDir) const;
    // Whether `input` can be fed to the model: kind, shape, table columns by name.
    Expected<void> accepts(const data::Dataset &input) const;
};

struct Predictions {
    data::Task task = data::Task::Classification;
    std::vector<std::int64_t> classes; // classification: the predicted class index
    std::vector<float> confidence;     // classification: its probability
    std::vector<float> values;         // regression: the predicted value
    QStringList classNames;
};

} // namespace ferry::run
