#include "trainer/torchtrainer.h"

#include "trainer/checkpoint.h"
#include "trainer/flatoptimizer.h"
#include "trainer/models.h"
#include "trainer/torchengine.h"
#include "trainer/torchscriptexport.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>

#include <torch/torch.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <numbers>
#include <random>
#include <tuple>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::trainer {

namespace {

using run::TrainingConfig;

double learningRateAt(const TrainingConfig &c, int epoch) // epoch: 0-based
{
    switch (c.schedule) {
    case run::ScheduleKind::Step:
        return c.learningRate * std::pow(c.gamma, epoch / c.stepSize);
    case run::ScheduleKind::Cosine:
        return c.learningRate * 0.5 * (1.0 + std::cos(std::numbers::pi * epoch / c.epochs));
    case run::ScheduleKind::Constant:
        break;
    }
    return c.learningRate;
}

// The order of the training samples in an epoch: from the seed and the epoch alone, so a
// resumed training sees the very same batches.
std::vector<std::int64_t> epochOrder(std::int64_t count, std::uint64_t seed, int epoch)
{
    std::vector<std::int64_t> order(static_cast<std::size_t>(count));
    for (std::int64_t i = 0; i < count; ++i)
        order[static_cast<std::size_t>(i)] = i;
    std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ULL + static_cast<std::uint64_t>(epoch) + 1);
    for (std::int64_t i = count - 1; i > 0; --i) {
        const auto j = static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(i + 1));
        std::swap(order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(j)]);
    }
    return order;
}

std::vector<std::int64_t> tensorShape(std::int64_t count, const QList<int> &sample)
{
    std::vector<std::int64_t> shape{count};
    for (int d : sample)
        shape.push_back(d);
    return shape;
}

torch::Tensor indexTensor(const std::vector<qsizetype> &rows)
{
    std::vector<std::int64_t> copy(rows.begin(), rows.end());
    return torch::tensor(copy, torch::kLong);
}

struct Evaluation {
    double loss = 0;
    double accuracy = -1; // classification only
};

Evaluation evaluate(Net &net, const torch::Tensor &x, const torch::Tensor &y, bool classification)
{
    Evaluation result;
    const std::int64_t n = x.size(0);
    if (n == 0)
        return result;
    torch::NoGradGuard noGrad;
    net->eval();
    double lossSum = 0;
    std::int64_t correct = 0;
    for (std::int64_t start = 0; start < n; start += 1024) {
        const std::int64_t len = std::min<std::int64_t>(1024, n - start);
        const torch::Tensor out = net->forward(x.narrow(0, start, len));
        const torch::Tensor target = y.narrow(0, start, len);
        if (classification) {
            lossSum += torch::nn::functional::cross_entropy(
                           out, target, torch::nn::functional::CrossEntropyFuncOptions().reduction(torch::kSum))
                           .item<double>();
            correct += out.argmax(1).eq(target).sum().item<std::int64_t>();
        } else {
            lossSum += torch::mse_loss(out.squeeze(1), target, at::Reduction::Sum).item<double>();
        }
    }
    net->train();
    result.loss = lossSum / static_cast<double>(n);
    if (classification)
        result.accuracy = static_cast<double>(correct) / static_cast<double>(n);
    return result;
}

run::TrainingResult failed(Error why)
{
    run::TrainingResult r;
    r.outcome = run::TrainingResult::Outcome::Failed;
    r.error = std::move(why);
    return r;
}

run::TrainingResult failed(const QString &why)
{
    return failed(Error{why, {}, 0, 0, {}});
}

// The mean and standard deviation of a regression's targets over the training rows (a
// constant target gets 1, so standardising it divides by nothing small).
std::pair<double, double> targetStatistics(const data::Dataset &dataset, const std::vector<qsizetype> &train)
{
    double sum = 0;
    double squares = 0;
    for (qsizetype i : train) {
        const double v = dataset.targets[static_cast<std::size_t>(i)];
        sum += v;
        squares += v * v;
    }
    const auto n = static_cast<double>(train.size());
    const double mean = sum / n;
    const double variance = std::max(0.0, squares / n - mean * mean);
    return {mean, variance > 1e-24 ? std::sqrt(variance) : 1.0};
}

// What a training reads: every sample normalised with the training rows' statistics, the
// targets (a regression's standardised), and the rows of each side of the split.
struct TrainingData {
    bool classification = false;
    data::Normalization normalization;
    double targetMean = 0;
    double targetStd = 1;
    torch::Tensor allX;
    torch::Tensor allY;
    torch::Tensor trainIdx; // training rows are gathered once per epoch, in its order, from allX
    torch::Tensor valX;
    torch::Tensor valY;
    std::int64_t trainCount = 0;
};

TrainingData prepareData(const data::Dataset &dataset, const TrainingConfig &config)
{
    TrainingData d;
    d.classification = dataset.task == data::Task::Classification;
    // Split, then normalise with the training rows' statistics only. The normalised copy is
    // made by torch in one pass (a missing value, NaN, becomes 0: the training mean).
    const data::Split split = data::splitIndices(dataset.count, config.validationFraction, config.seed);
    d.normalization = data::computeNormalization(dataset, split.train);
    const std::vector<std::int64_t> shape = tensorShape(dataset.count, dataset.shape);
    std::vector<std::int64_t> statShape(shape.size(), 1); // per feature (tables) or per channel (images)
    statShape[1] = static_cast<std::int64_t>(d.normalization.mean.size());
    const auto stat = [&statShape](const std::vector<float> &values) {
        return torch::tensor(values, torch::kFloat).reshape(statShape);
    };
    // from_blob wants a mutable pointer; the source is only read (the result is a new tensor).
    d.allX = torch::from_blob(const_cast<float *>(dataset.x.data()), shape, torch::kFloat) // NOLINT
                 .sub(stat(d.normalization.mean))
                 .div_(stat(d.normalization.std))
                 .nan_to_num_(0.0);
    if (d.classification) {
        std::vector<std::int64_t> classes(dataset.classes.begin(), dataset.classes.end());
        d.allY = torch::tensor(classes, torch::kLong);
    } else {
        std::tie(d.targetMean, d.targetStd) = targetStatistics(dataset, split.train);
        d.allY = (torch::tensor(std::vector<float>(dataset.targets.begin(), dataset.targets.end()), torch::kFloat) -
                  d.targetMean) /
                 d.targetStd;
    }
    d.trainIdx = indexTensor(split.train);
    const torch::Tensor valIdx = indexTensor(split.validation);
    d.valX = d.allX.index_select(0, valIdx);
    d.valY = d.allY.index_select(0, valIdx);
    d.trainCount = d.trainIdx.size(0);
    return d;
}

// The epochs of one training, from where its position says: the steps, their records and
// progress, pause and cancel, early stopping and checkpoints.
class EpochLoop {
public:
    EpochLoop(const TrainingConfig &config, const TrainingData &prepared, Net &net, FlatOptimizer &optimizer,
              Position &position, run::TrainingControl &control, run::TrainingSink &sink)
        : m_config(config), m_data(prepared), m_net(net), m_optimizer(optimizer), m_position(position),
          m_control(control), m_sink(sink), m_batch(std::min<std::int64_t>(config.batchSize, prepared.trainCount)),
          m_stepsPerEpoch((prepared.trainCount + m_batch - 1) / m_batch),
          m_earlyStopping(config.earlyStoppingPatience > 0 && prepared.valX.size(0) > 0)
    {
        m_progress.epochs = config.epochs;
        m_progress.totalSteps = m_stepsPerEpoch * config.epochs;
    }

    // Completed, stopped early or cancelled; Failed (nothing else kept) when a loss is not finite.
    run::TrainingResult run();

private:
    enum class Steps { Done, Cancelled, Failed };

    void announce();
    Steps runSteps(int epoch, double lr, double &lossSum);
    bool proceed();
    double step(const torch::Tensor &batchRows);
    void logStep(double lossValue);
    Evaluation recordEpoch(int epoch, double lr, double lossSum);
    bool patienceRunsOut(int epoch, double valLoss);

    const TrainingConfig &m_config;
    const TrainingData &m_data;
    Net &m_net;
    FlatOptimizer &m_optimizer;
    Position &m_position;
    run::TrainingControl &m_control;
    run::TrainingSink &m_sink;
    const std::int64_t m_batch;
    const std::int64_t m_stepsPerEpoch;
    const bool m_earlyStopping;
    run::TrainingProgress m_progress;
    run::TrainingResult m_result;
    QString m_failure; // Steps::Failed: why
    QElapsedTimer m_clock;
    QElapsedTimer m_window; // samples/s over the last logging window
    std::int64_t m_windowSamples = 0;
};

run::TrainingResult EpochLoop::run()
{
    m_clock.start();
    m_window.start();
    announce();
    m_result.outcome = run::TrainingResult::Outcome::Completed;
    m_net->train();
    for (int epoch = m_position.epochsDone; epoch < m_config.epochs; ++epoch) {
        const double lr = learningRateAt(m_config, epoch);
        m_optimizer.setLearningRate(lr);
        double lossSum = 0;
        const Steps steps = runSteps(epoch, lr, lossSum);
        if (steps == Steps::Failed)
            return failed(m_failure);
        if (steps == Steps::Cancelled) {
            m_result.outcome = run::TrainingResult::Outcome::Cancelled;
            break;
        }
        const Evaluation val = recordEpoch(epoch, lr, lossSum);
        const bool stop = m_earlyStopping && patienceRunsOut(epoch, val.loss);
        if (!m_config.checkpointDir.isEmpty())
            saveCheckpoint(m_config.checkpointDir, m_net, m_optimizer, m_position);
        if (stop) {
            m_result.outcome = run::TrainingResult::Outcome::StoppedEarly;
            m_sink.message(
                u"stopped early after epoch %1: no better validation loss for %2 epochs"_s.arg(epoch + 1).arg(
                    m_config.earlyStoppingPatience));
            break;
        }
    }
    m_result.epochsDone = m_position.epochsDone;
    return m_result;
}

void EpochLoop::announce()
{
    std::int64_t parameters = 0;
    for (const auto &p : m_net->parameters())
        parameters += p.numel();
    m_sink.message(u"training a %1 on %2 samples (%3 for validation), %4 parameters, %5 steps per epoch"_s
                       .arg(modelKindName(m_config.model).toUpper())
                       .arg(m_data.trainCount)
                       .arg(m_data.valX.size(0))
                       .arg(parameters)
                       .arg(m_stepsPerEpoch));
}

// One epoch's optimiser steps, adding each batch's loss to lossSum.
EpochLoop::Steps EpochLoop::runSteps(int epoch, double lr, double &lossSum)
{
    const torch::Tensor rows = m_data.trainIdx.index_select(
        0, torch::tensor(epochOrder(m_data.trainCount, m_config.seed, epoch), torch::kLong));
    m_progress.epoch = epoch + 1;
    for (std::int64_t s = 0; s < m_stepsPerEpoch; ++s) {
        if (!proceed())
            return Steps::Cancelled;
        const std::int64_t start = s * m_batch;
        const std::int64_t len = std::min(m_batch, m_data.trainCount - start);
        const double lossValue = step(rows.narrow(0, start, len));
        if (!std::isfinite(lossValue)) {
            m_failure = u"the loss became %1 at step %2 (epoch %3): lower the learning rate (now %4)"_s.arg(lossValue)
                            .arg(m_position.step + 1)
                            .arg(epoch + 1)
                            .arg(lr);
            return Steps::Failed;
        }
        lossSum += lossValue * static_cast<double>(len);
        ++m_position.step;
        m_windowSamples += len;
        if (m_position.step % m_config.logEverySteps == 0)
            logStep(lossValue);
    }
    return Steps::Done;
}

// Waits while paused (saying so once); false once cancelled.
bool EpochLoop::proceed()
{
    const bool go = m_control.proceed([&] {
        m_progress.paused = true;
        m_sink.progress(m_progress);
        m_sink.message(u"paused at step %1"_s.arg(m_position.step));
    });
    if (m_progress.paused) {
        m_progress.paused = false;
        m_window.restart();
        m_windowSamples = 0;
        if (go)
            m_sink.message(u"resumed"_s);
    }
    return go;
}

// One optimiser step on the given training rows. Each batch is gathered when it is used: it
// is still in the cache when the model reads it.
double EpochLoop::step(const torch::Tensor &batchRows)
{
    const torch::Tensor xb = m_data.allX.index_select(0, batchRows);
    const torch::Tensor yb = m_data.allY.index_select(0, batchRows);
    m_optimizer.zeroGrad();
    const torch::Tensor out = m_net->forward(xb);
    const torch::Tensor loss =
        m_data.classification ? torch::nn::functional::cross_entropy(out, yb) : torch::mse_loss(out.squeeze(1), yb);
    loss.backward();
    m_optimizer.step();
    return loss.item<double>();
}

void EpochLoop::logStep(double lossValue)
{
    const double seconds = static_cast<double>(m_window.nsecsElapsed()) / 1e9;
    const double rate = seconds > 0 ? static_cast<double>(m_windowSamples) / seconds : 0;
    m_sink.record({static_cast<double>(m_position.step),
                   std::numeric_limits<double>::quiet_NaN(),
                   {{u"loss"_s, lossValue}, {u"samples_per_s"_s, rate}}});
    m_progress.step = m_position.step;
    m_progress.samplesPerSecond = rate;
    m_progress.elapsedSeconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
    const double stepsLeft = static_cast<double>(m_progress.totalSteps - m_position.step);
    m_progress.etaSeconds = rate > 0 ? stepsLeft * static_cast<double>(m_batch) / rate : -1;
    m_sink.progress(m_progress);
    m_window.restart();
    m_windowSamples = 0;
}

// The epoch's record: training loss, validation loss and accuracy, learning rate.
Evaluation EpochLoop::recordEpoch(int epoch, double lr, double lossSum)
{
    const double trainLoss = lossSum / static_cast<double>(m_data.trainCount);
    const Evaluation val = evaluate(m_net, m_data.valX, m_data.valY, m_data.classification);
    run::MetricRecord record{
        static_cast<double>(m_position.step), static_cast<double>(epoch + 1), {{run::kTrainLoss, trainLoss}}};
    QJsonObject metrics{{u"epoch"_s, epoch + 1}, {run::kTrainLoss, trainLoss}};
    if (m_data.valX.size(0) > 0) {
        record.values.append({run::kValLoss, val.loss});
        metrics[run::kValLoss] = val.loss;
        if (m_data.classification) {
            record.values.append({run::kValAccuracy, val.accuracy});
            metrics[run::kValAccuracy] = val.accuracy;
        }
    }
    record.values.append({run::kLearningRate, lr});
    m_sink.record(record);
    m_result.finalMetrics = metrics;
    m_position.epochsDone = epoch + 1;
    m_progress.step = m_position.step;
    m_progress.elapsedSeconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
    m_sink.progress(m_progress);
    return val;
}

// Early stopping: keeps the weights of a better validation loss; true once none has come for
// the patience's epochs.
bool EpochLoop::patienceRunsOut(int epoch, double valLoss)
{
    if (valLoss < m_position.bestValLoss) {
        m_position.bestValLoss = valLoss;
        m_position.epochsWithoutBetter = 0;
        m_position.best.clear();
        for (const auto &p : m_net->parameters())
            m_position.best.push_back(p.detach().clone());
        m_position.bestEpoch = epoch + 1;
        return false;
    }
    return ++m_position.epochsWithoutBetter >= m_config.earlyStoppingPatience;
}

// Early stopping keeps the best weights: they go back into the net, and the final metrics are
// theirs.
void restoreBest(Net &net, const Position &position, const TrainingData &prepared, run::TrainingResult &result)
{
    if (position.best.empty())
        return;
    torch::NoGradGuard noGrad;
    const auto parameters = net->parameters();
    for (std::size_t i = 0; i < parameters.size() && i < position.best.size(); ++i)
        parameters[i].copy_(position.best[i]);
    const Evaluation val = evaluate(net, prepared.valX, prepared.valY, prepared.classification);
    result.finalMetrics[run::kValLoss] = val.loss;
    if (prepared.classification)
        result.finalMetrics[run::kValAccuracy] = val.accuracy;
    result.finalMetrics[u"best_epoch"_s] = position.bestEpoch;
}

// The model folder: weights and the card that says how to use them.
Expected<void> writeModelFolder(const TrainingConfig &config, const data::Dataset &dataset,
                                const TrainingData &prepared, Net &net, const run::TrainingResult &result)
{
    QDir().mkpath(config.modelDir);
    run::ModelCard card;
    card.config = config;
    card.config.resumeFrom.clear();
    card.inputKind = dataset.kind;
    card.inputShape = dataset.shape;
    card.featureNames = dataset.featureNames;
    card.targetName = dataset.targetName;
    card.task = dataset.task;
    card.classNames = dataset.classNames;
    card.normalization = prepared.normalization;
    card.targetMean = prepared.targetMean;
    card.targetStd = prepared.targetStd;
    card.metrics = result.finalMetrics;
    card.torchVersion = torchVersion();
    torch::save(net, QDir(config.modelDir).filePath(card.weightsFile).toStdString());
    net->eval();
    if (const auto script = writeTorchScript(net, card, QDir(config.modelDir).filePath(card.torchScriptFile)); !script)
        return script.error();
    return card.write(config.modelDir);
}

} // namespace

run::TrainingResult trainModel(const data::Dataset &dataset, const TrainingConfig &config,
                               run::TrainingControl &control, run::TrainingSink &sink)
{
    const bool classification = dataset.task == data::Task::Classification;
    if (dataset.count < 2)
        return failed(u"the dataset has %1 sample(s); training needs at least 2"_s.arg(dataset.count));
    if (dataset.sampleSize() <= 0 || dataset.x.size() != static_cast<std::size_t>(dataset.count * dataset.sampleSize()))
        return failed(u"the dataset's values do not match its shape"_s);
    if (classification && dataset.classNames.size() < 2)
        return failed(u"a classification needs at least two classes; the data has %1"_s.arg(dataset.classNames.size()));
    if (config.model == run::ModelKind::Cnn && dataset.shape.size() != 3)
        return failed(
            u"a CNN needs images (channels x height x width); this data has samples of shape %1: use --model mlp"_s.arg(
                data::shapeText(dataset.shape)));
    try {
        if (config.threads > 0)
            setTorchThreads(config.threads);
        torch::manual_seed(config.seed);
        const TrainingData prepared = prepareData(dataset, config);

        const int outputs = classification ? static_cast<int>(dataset.classNames.size()) : 1;
        Net net(config, dataset.shape, outputs);
        Position position;
        torch::serialize::InputArchive checkpoint;
        if (!config.resumeFrom.isEmpty()) {
            if (!QFileInfo(config.resumeFrom).isFile())
                return failed(u"no checkpoint at %1"_s.arg(config.resumeFrom));
            position = loadCheckpoint(config.resumeFrom, net, checkpoint);
        }
        FlatOptimizer optimizer(config, net);
        if (!config.resumeFrom.isEmpty()) {
            torch::serialize::InputArchive optimizerArchive;
            checkpoint.read("optimizer", optimizerArchive);
            optimizer.load(optimizerArchive);
            sink.message(u"resumed from %1 after epoch %2"_s.arg(config.resumeFrom).arg(position.epochsDone));
        }

        run::TrainingResult result = EpochLoop(config, prepared, net, optimizer, position, control, sink).run();
        if (result.outcome == run::TrainingResult::Outcome::Failed)
            return result;
        restoreBest(net, position, prepared, result);
        if (!config.modelDir.isEmpty() && result.epochsDone > 0) {
            if (const auto written = writeModelFolder(config, dataset, prepared, net, result); !written)
                return failed(written.error());
        }
        return result;
    } catch (const std::exception &e) {
        return failed(u"libtorch: "_s + QString::fromUtf8(e.what()).section(u'\n', 0, 0));
    }
}

Expected<run::Predictions> predictWithModel(const QString &modelDir, const data::Dataset &input)
{
    const auto card = run::ModelCard::read(modelDir);
    if (!card)
        return card.error();
    if (const auto fits = card->accepts(input); !fits)
        return fits.error();
    try {
        // Table columns in the model's order, normalised as in training.
        data::Dataset ordered = input;
        if (input.kind == data::DatasetKind::Table && input.featureNames != card->featureNames) {
            const auto width = static_cast<std::size_t>(input.featureNames.size());
            std::vector<std::size_t> from;
            for (const QString &f : card->featureNames)
                from.push_back(static_cast<std::size_t>(input.featureNames.indexOf(f)));
            for (qsizetype r = 0; r < input.count; ++r) {
                for (std::size_t c = 0; c < from.size(); ++c)
                    ordered.x[static_cast<std::size_t>(r) * width + c] =
                        input.x[static_cast<std::size_t>(r) * width + from[c]];
            }
            ordered.featureNames = card->featureNames;
        }
        data::applyNormalization(ordered, card->normalization);
        const bool classification = card->task == data::Task::Classification;
        Net net(card->config, card->inputShape, classification ? static_cast<int>(card->classNames.size()) : 1);
        torch::load(net, QDir(modelDir).filePath(card->weightsFile).toStdString());
        net->eval();
        torch::NoGradGuard noGrad;
        const torch::Tensor x =
            torch::from_blob(ordered.x.data(), tensorShape(ordered.count, ordered.shape), torch::kFloat);
        run::Predictions predictions;
        predictions.task = card->task;
        predictions.classNames = card->classNames;
        for (std::int64_t start = 0; start < ordered.count; start += 1024) {
            const std::int64_t len = std::min<std::int64_t>(1024, ordered.count - start);
            const torch::Tensor out = net->forward(x.narrow(0, start, len));
            if (classification) {
                const auto [probability, index] = torch::softmax(out, 1).max(1);
                for (std::int64_t i = 0; i < len; ++i) {
                    predictions.classes.push_back(index[i].item<std::int64_t>());
                    predictions.confidence.push_back(probability[i].item<float>());
                }
            } else {
                const torch::Tensor values = out.squeeze(1) * card->targetStd + card->targetMean;
                for (std::int64_t i = 0; i < len; ++i)
                    predictions.values.push_back(values[i].item<float>());
            }
        }
        return predictions;
    } catch (const std::exception &e) {
        return Error{u"cannot apply the model: "_s + QString::fromUtf8(e.what()).section(u'\n', 0, 0), modelDir, 0, 0,
                     u"the weights do not match model.json: train again"_s};
    }
}

} // namespace ferry::trainer
