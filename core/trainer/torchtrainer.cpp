#include "trainer/torchtrainer.h"

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

// Checkpoints: weights, optimiser state, where the training was, and the random state
// (dropout), written to a temporary file and renamed, so a crash never leaves half of one.
// Early stopping's best weights go in too, so a resumed run ends with the same model.
struct Position {
    int epochsDone = 0;
    std::int64_t step = 0;
    double bestValLoss = std::numeric_limits<double>::infinity();
    int epochsWithoutBetter = 0;
    int bestEpoch = 0;
    std::vector<torch::Tensor> best; // the weights of the best validation loss; empty: none kept
};

void saveCheckpoint(const QString &dir, Net &net, const FlatOptimizer &optimizer, const Position &p)
{
    QDir().mkpath(dir);
    const QString path = QDir(dir).filePath(u"checkpoint.pt"_s);
    torch::serialize::OutputArchive archive;
    torch::serialize::OutputArchive modelArchive;
    net->save(modelArchive);
    archive.write("model", modelArchive);
    torch::serialize::OutputArchive optimizerArchive;
    optimizer.save(optimizerArchive);
    archive.write("optimizer", optimizerArchive);
    archive.write("epochs_done", torch::tensor(static_cast<std::int64_t>(p.epochsDone)));
    archive.write("step", torch::tensor(p.step));
    archive.write("best_val_loss", torch::tensor(p.bestValLoss, torch::kDouble));
    archive.write("epochs_without_better", torch::tensor(static_cast<std::int64_t>(p.epochsWithoutBetter)));
    archive.write("best_epoch", torch::tensor(static_cast<std::int64_t>(p.bestEpoch)));
    archive.write("best_count", torch::tensor(static_cast<std::int64_t>(p.best.size())));
    for (std::size_t i = 0; i < p.best.size(); ++i)
        archive.write("best_" + std::to_string(i), p.best[i]);
    {
        at::Generator generator = at::detail::getDefaultCPUGenerator();
        const std::lock_guard lock(generator.mutex());
        archive.write("rng", generator.get_state());
    }
    const QString temporary = path + u".tmp"_s;
    archive.save_to(temporary.toStdString());
    QFile::remove(path);
    QFile::rename(temporary, path);
}

// The weights go into `net` (before its parameters become views of the optimiser's buffer);
// the optimiser's state is read by loadOptimizerState once it exists.
Position loadCheckpoint(const QString &path, Net &net, torch::serialize::InputArchive &archive)
{
    archive.load_from(path.toStdString());
    torch::serialize::InputArchive modelArchive;
    archive.read("model", modelArchive);
    net->load(modelArchive);
    const auto scalar = [&archive](const char *key) {
        torch::Tensor t; // a fresh tensor each time: reading into a used one resizes its storage
        archive.read(key, t);
        return t;
    };
    Position p;
    p.epochsDone = static_cast<int>(scalar("epochs_done").item<std::int64_t>());
    p.step = scalar("step").item<std::int64_t>();
    p.bestValLoss = scalar("best_val_loss").item<double>();
    p.epochsWithoutBetter = static_cast<int>(scalar("epochs_without_better").item<std::int64_t>());
    if (torch::Tensor count; archive.try_read("best_count", count)) { // checkpoints from before: none
        p.bestEpoch = static_cast<int>(scalar("best_epoch").item<std::int64_t>());
        for (std::int64_t i = 0; i < count.item<std::int64_t>(); ++i)
            p.best.push_back(scalar(("best_" + std::to_string(i)).c_str()));
    }
    const torch::Tensor t = scalar("rng");
    at::Generator generator = at::detail::getDefaultCPUGenerator(); // a handle on the global one
    const std::lock_guard lock(generator.mutex());
    generator.set_state(t);
    return p;
}

QString describeShape(const QList<int> &shape)
{
    QStringList parts;
    for (int d : shape)
        parts << QString::number(d);
    return parts.join(u'x');
}

run::TrainingResult failed(const QString &why)
{
    run::TrainingResult r;
    r.outcome = run::TrainingResult::Outcome::Failed;
    r.error = why;
    return r;
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
                describeShape(dataset.shape)));
    try {
        if (config.threads > 0)
            setTorchThreads(config.threads);
        torch::manual_seed(config.seed);

        // Split, then normalise with the training rows' statistics only. The normalised copy is
        // made by torch in one pass (a missing value, NaN, becomes 0: the training mean).
        const data::Split split = data::splitIndices(dataset.count, config.validationFraction, config.seed);
        const data::Normalization normalization = data::computeNormalization(dataset, split.train);
        const std::vector<std::int64_t> shape = tensorShape(dataset.count, dataset.shape);
        std::vector<std::int64_t> statShape(shape.size(), 1); // per feature (tables) or per channel (images)
        statShape[1] = static_cast<std::int64_t>(normalization.mean.size());
        const auto stat = [&statShape](const std::vector<float> &values) {
            return torch::tensor(values, torch::kFloat).reshape(statShape);
        };
        // from_blob wants a mutable pointer; the source is only read (the result is a new tensor).
        torch::Tensor allX = torch::from_blob(const_cast<float *>(dataset.x.data()), shape, torch::kFloat) // NOLINT
                                 .sub(stat(normalization.mean))
                                 .div_(stat(normalization.std))
                                 .nan_to_num_(0.0);
        double targetMean = 0;
        double targetStd = 1;
        if (!classification) {
            double sum = 0;
            double squares = 0;
            for (qsizetype i : split.train) {
                const double v = dataset.targets[static_cast<std::size_t>(i)];
                sum += v;
                squares += v * v;
            }
            const auto n = static_cast<double>(split.train.size());
            targetMean = sum / n;
            const double variance = std::max(0.0, squares / n - targetMean * targetMean);
            targetStd = variance > 1e-24 ? std::sqrt(variance) : 1.0;
        }
        torch::Tensor allY;
        if (classification) {
            std::vector<std::int64_t> classes(dataset.classes.begin(), dataset.classes.end());
            allY = torch::tensor(classes, torch::kLong);
        } else {
            allY = (torch::tensor(std::vector<float>(dataset.targets.begin(), dataset.targets.end()), torch::kFloat) -
                    targetMean) /
                   targetStd;
        }
        // Training rows are gathered once per epoch, in that epoch's order, straight from allX.
        const torch::Tensor trainIdx = indexTensor(split.train);
        const torch::Tensor valIdx = indexTensor(split.validation);
        const torch::Tensor valX = allX.index_select(0, valIdx);
        const torch::Tensor valY = allY.index_select(0, valIdx);
        const std::int64_t trainCount = trainIdx.size(0);

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
        std::vector<torch::Tensor> &best = position.best; // early stopping's, kept in checkpoints
        int &bestEpoch = position.bestEpoch;
        const bool earlyStopping = config.earlyStoppingPatience > 0 && valX.size(0) > 0;

        const std::int64_t batch = std::min<std::int64_t>(config.batchSize, trainCount);
        const std::int64_t stepsPerEpoch = (trainCount + batch - 1) / batch;
        run::TrainingProgress progress;
        progress.epochs = config.epochs;
        progress.totalSteps = stepsPerEpoch * config.epochs;
        QElapsedTimer clock;
        clock.start();
        QElapsedTimer window; // samples/s over the last logging window
        window.start();
        std::int64_t windowSamples = 0;
        sink.message(u"training a %1 on %2 samples (%3 for validation), %4 parameters, %5 steps per epoch"_s
                         .arg(modelKindName(config.model).toUpper())
                         .arg(trainCount)
                         .arg(valX.size(0))
                         .arg([&] {
                             std::int64_t n = 0;
                             for (const auto &p : net->parameters())
                                 n += p.numel();
                             return n;
                         }())
                         .arg(stepsPerEpoch));

        run::TrainingResult result;
        result.outcome = run::TrainingResult::Outcome::Completed;
        net->train();
        for (int epoch = position.epochsDone; epoch < config.epochs; ++epoch) {
            const double lr = learningRateAt(config, epoch);
            optimizer.setLearningRate(lr);
            const torch::Tensor rows =
                trainIdx.index_select(0, torch::tensor(epochOrder(trainCount, config.seed, epoch), torch::kLong));
            // Each batch is gathered when it is used: it is still in the cache when the model reads it.
            double lossSum = 0;
            progress.epoch = epoch + 1;
            for (std::int64_t s = 0; s < stepsPerEpoch; ++s) {
                const bool go = control.proceed([&] {
                    progress.paused = true;
                    sink.progress(progress);
                    sink.message(u"paused at step %1"_s.arg(position.step));
                });
                if (progress.paused) {
                    progress.paused = false;
                    window.restart();
                    windowSamples = 0;
                    if (go)
                        sink.message(u"resumed"_s);
                }
                if (!go) {
                    result.outcome = run::TrainingResult::Outcome::Cancelled;
                    break;
                }
                const std::int64_t start = s * batch;
                const std::int64_t len = std::min(batch, trainCount - start);
                const torch::Tensor batchRows = rows.narrow(0, start, len);
                const torch::Tensor xb = allX.index_select(0, batchRows);
                const torch::Tensor yb = allY.index_select(0, batchRows);
                optimizer.zeroGrad();
                const torch::Tensor out = net->forward(xb);
                const torch::Tensor loss = classification ? torch::nn::functional::cross_entropy(out, yb)
                                                          : torch::mse_loss(out.squeeze(1), yb);
                loss.backward();
                optimizer.step();
                const double lossValue = loss.item<double>();
                if (!std::isfinite(lossValue))
                    return failed(
                        u"the loss became %1 at step %2 (epoch %3): lower the learning rate (now %4)"_s.arg(lossValue)
                            .arg(position.step + 1)
                            .arg(epoch + 1)
                            .arg(lr));
                lossSum += lossValue * static_cast<double>(len);
                ++position.step;
                windowSamples += len;
                if (position.step % config.logEverySteps == 0) {
                    const double seconds = static_cast<double>(window.nsecsElapsed()) / 1e9;
                    const double rate = seconds > 0 ? static_cast<double>(windowSamples) / seconds : 0;
                    sink.record({u"step"_s,
                                 static_cast<double>(position.step),
                                 {{u"loss"_s, lossValue}, {u"samples_per_s"_s, rate}}});
                    progress.step = position.step;
                    progress.samplesPerSecond = rate;
                    progress.elapsedSeconds = static_cast<double>(clock.elapsed()) / 1000.0;
                    const double stepsLeft = static_cast<double>(progress.totalSteps - position.step);
                    progress.etaSeconds = rate > 0 ? stepsLeft * static_cast<double>(batch) / rate : -1;
                    sink.progress(progress);
                    window.restart();
                    windowSamples = 0;
                }
            }
            if (result.outcome == run::TrainingResult::Outcome::Cancelled)
                break;

            // The epoch's record: training loss, validation loss and accuracy, learning rate.
            const double trainLoss = lossSum / static_cast<double>(trainCount);
            const Evaluation val = evaluate(net, valX, valY, classification);
            run::MetricRecord record{u"epoch"_s, static_cast<double>(epoch + 1), {{run::kTrainLoss, trainLoss}}};
            QJsonObject metrics{{u"epoch"_s, epoch + 1}, {run::kTrainLoss, trainLoss}};
            if (valX.size(0) > 0) {
                record.values.append({run::kValLoss, val.loss});
                metrics[run::kValLoss] = val.loss;
                if (classification) {
                    record.values.append({run::kValAccuracy, val.accuracy});
                    metrics[run::kValAccuracy] = val.accuracy;
                }
            }
            record.values.append({run::kLearningRate, lr});
            sink.record(record);
            result.finalMetrics = metrics;
            position.epochsDone = epoch + 1;
            progress.step = position.step;
            progress.elapsedSeconds = static_cast<double>(clock.elapsed()) / 1000.0;
            sink.progress(progress);

            bool stop = false;
            if (earlyStopping) {
                if (val.loss < position.bestValLoss) {
                    position.bestValLoss = val.loss;
                    position.epochsWithoutBetter = 0;
                    best.clear();
                    for (const auto &p : net->parameters())
                        best.push_back(p.detach().clone());
                    bestEpoch = epoch + 1;
                } else if (++position.epochsWithoutBetter >= config.earlyStoppingPatience) {
                    stop = true;
                }
            }
            if (!config.checkpointDir.isEmpty())
                saveCheckpoint(config.checkpointDir, net, optimizer, position);
            if (stop) {
                result.outcome = run::TrainingResult::Outcome::StoppedEarly;
                sink.message(
                    u"stopped early after epoch %1: no better validation loss for %2 epochs"_s.arg(epoch + 1).arg(
                        config.earlyStoppingPatience));
                break;
            }
        }
        result.epochsDone = position.epochsDone;
        if (!best.empty()) { // early stopping keeps the best weights
            torch::NoGradGuard noGrad;
            const auto parameters = net->parameters();
            for (std::size_t i = 0; i < parameters.size() && i < best.size(); ++i)
                parameters[i].copy_(best[i]);
            const Evaluation val = evaluate(net, valX, valY, classification);
            result.finalMetrics[run::kValLoss] = val.loss;
            if (classification)
                result.finalMetrics[run::kValAccuracy] = val.accuracy;
            result.finalMetrics[u"best_epoch"_s] = bestEpoch;
        }

        // The model folder: weights and the card that says how to use them.
        if (!config.modelDir.isEmpty() && result.epochsDone > 0) {
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
            card.normalization = normalization;
            card.targetMean = targetMean;
            card.targetStd = targetStd;
            card.metrics = result.finalMetrics;
            card.torchVersion = torchVersion();
            torch::save(net, QDir(config.modelDir).filePath(card.weightsFile).toStdString());
            net->eval();
            if (const auto script = writeTorchScript(net, card, QDir(config.modelDir).filePath(card.torchScriptFile));
                !script)
                return failed(script.error().toString());
            if (const auto written = card.write(config.modelDir); !written)
                return failed(written.error().toString());
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
