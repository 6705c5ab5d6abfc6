// The embedded trainer through its plugin interface, on datasets made here: it learns (MLP,
// CNN, regression), is deterministic, stops within a step of a cancel, pauses, resumes from a
// checkpoint to the same losses, stops early, writes a model that predicts, and says why
// when it cannot train.
#include "support/testenv.h"
#include "support/testmain.h"
#include "training/trainerloader.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <random>
#include <thread>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

// Everything a training reported, in order.
class Recorder final : public run::TrainingSink {
public:
    std::function<void(const run::MetricRecord &)> onRecord;
    std::function<void(const run::TrainingProgress &)> onProgress;
    QList<run::MetricRecord> records;
    QList<run::TrainingProgress> progressSeen;
    QStringList messages;

    void record(const run::MetricRecord &r) override
    {
        records << r;
        if (onRecord)
            onRecord(r);
    }
    void progress(const run::TrainingProgress &p) override
    {
        progressSeen << p;
        if (onProgress)
            onProgress(p);
    }
    void message(const QString &text) override { messages << text; }

    QList<double> values(const QString &name) const
    {
        QList<double> list;
        for (const run::MetricRecord &r : records)
            for (const auto &[n, v] : r.values)
                if (n == name)
                    list << v;
        return list;
    }
    QList<double> lossesAfterEpoch(int epoch, qint64 stepsPerEpoch) const
    {
        QList<double> list;
        for (const run::MetricRecord &r : records)
            if (std::isnan(r.epoch) && r.step > double(epoch * stepsPerEpoch))
                list << r.values.first().second;
        return list;
    }
};

// Two classes split by a line through the origin, with a little overlap.
data::Dataset twoClasses(qsizetype count, std::uint64_t seed = 5)
{
    data::Dataset d;
    d.kind = data::DatasetKind::Table;
    d.source = u"generated"_s;
    d.task = data::Task::Classification;
    d.count = count;
    d.shape = {3};
    d.featureNames = {u"a"_s, u"b"_s, u"noise"_s};
    d.targetName = u"label"_s;
    d.classNames = {u"no"_s, u"yes"_s};
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (qsizetype i = 0; i < count; ++i) {
        const float a = normal(rng) * 3 + 10; // far from 0 and wide: normalisation matters
        const float b = normal(rng) * 0.01f;
        d.x.insert(d.x.end(), {a, b, normal(rng)});
        d.classes.push_back((a - 10) / 3 + b * 100 > 0 ? 1 : 0);
    }
    return d;
}

// Images of vertical bars (class 0) and crosses (class 1) at random places, 1x12x12.
data::Dataset barsAndCrosses(qsizetype count)
{
    data::Dataset d;
    d.kind = data::DatasetKind::ImageFolder;
    d.source = u"generated"_s;
    d.count = count;
    d.shape = {1, 12, 12};
    d.classNames = {u"bars"_s, u"crosses"_s};
    std::mt19937_64 rng(11);
    for (qsizetype i = 0; i < count; ++i) {
        std::vector<float> image(144, 0.0f);
        const int cls = static_cast<int>(i % 2);
        const int cx = 2 + static_cast<int>(rng() % 8);
        const int cy = 2 + static_cast<int>(rng() % 8);
        for (int k = -2; k <= 2; ++k) {
            image[static_cast<std::size_t>((cy + k) * 12 + cx)] = 1.0f;
            if (cls == 1)
                image[static_cast<std::size_t>(cy * 12 + cx + k)] = 1.0f;
        }
        d.x.insert(d.x.end(), image.begin(), image.end());
        d.classes.push_back(cls);
    }
    return d;
}

run::TrainingConfig quick()
{
    run::TrainingConfig c;
    c.layers = {16};
    c.epochs = 4;
    c.batchSize = 32;
    c.learningRate = 0.01;
    c.logEverySteps = 1;
    c.seed = 3;
    return c;
}

} // namespace

class TestTrainer : public QObject {
    Q_OBJECT

    run::TrainerLoader m_loader{{(ferry::test::buildDir() + QStringLiteral("/bin"))}};
    run::TrainerEngine *m_engine = nullptr;
    QTemporaryDir m_dir;

private Q_SLOTS:
    void initTestCase()
    {
        const auto engine = m_loader.load();
        QVERIFY2(engine, engine ? "" : qPrintable(engine.error().toString()));
        m_engine = *engine;
        QVERIFY(m_dir.isValid());
    }

    void mlpLearnsTwoClasses()
    {
        run::TrainingConfig c = quick();
        c.epochs = 8;
        c.modelDir = m_dir.filePath(u"mlp"_s);
        run::TrainingControl control;
        Recorder sink;
        const run::TrainingResult r = m_engine->train(twoClasses(1000), c, control, sink);
        QVERIFY2(r.outcome == run::TrainingResult::Outcome::Completed, qPrintable(r.error.toString()));
        QCOMPARE(r.epochsDone, 8);
        QVERIFY2(r.finalMetrics[u"val_accuracy"_s].toDouble() > 0.95,
                 qPrintable(QString::number(r.finalMetrics[u"val_accuracy"_s].toDouble())));
        // A loss point per step (log every 1), and one epoch record per epoch.
        QCOMPARE(sink.values(u"val_accuracy"_s).size(), 8);
        QCOMPARE(sink.values(u"loss"_s).size(), 8 * 25); // 800 training samples, batches of 32
        QVERIFY(sink.values(u"loss"_s).last() < sink.values(u"loss"_s).first());
        QVERIFY(!sink.progressSeen.isEmpty());
        QCOMPARE(sink.progressSeen.last().step, 200);

        // The model folder: weights and a card that says how to use them.
        QVERIFY(QFileInfo(c.modelDir + u"/model.pt"_s).isFile());
        const auto card = run::ModelCard::read(c.modelDir);
        QVERIFY2(card, card ? "" : qPrintable(card.error().toString()));
        QCOMPARE(card->featureNames, (QStringList{u"a"_s, u"b"_s, u"noise"_s}));
        QCOMPARE(card->classNames, (QStringList{u"no"_s, u"yes"_s}));
        QCOMPARE(card->inputShape, QList<int>{3});
        QCOMPARE(card->normalization.mean.size(), std::size_t(3));
        QVERIFY(std::abs(card->normalization.mean[0] - 10.0f) < 0.5f); // the raw scale, from the training rows
        QCOMPARE(card->config.layers, QList<int>{16});

        // It predicts what it learned, columns matched by name in any order.
        data::Dataset fresh = twoClasses(400, 99);
        const auto predicted = m_engine->predict(c.modelDir, fresh);
        QVERIFY2(predicted, predicted ? "" : qPrintable(predicted.error().toString()));
        qsizetype right = 0;
        for (std::size_t i = 0; i < fresh.classes.size(); ++i)
            right += predicted->classes[i] == fresh.classes[i] ? 1 : 0;
        QVERIFY2(right > 380, qPrintable(QString::number(right)));
        data::Dataset shuffled = fresh;
        shuffled.featureNames = {u"noise"_s, u"a"_s, u"b"_s};
        for (qsizetype i = 0; i < shuffled.count; ++i) {
            const auto at = static_cast<std::size_t>(i) * 3;
            shuffled.x[at] = fresh.x[at + 2];
            shuffled.x[at + 1] = fresh.x[at];
            shuffled.x[at + 2] = fresh.x[at + 1];
        }
        const auto again = m_engine->predict(c.modelDir, shuffled);
        QVERIFY(again);
        QCOMPARE(again->classes, predicted->classes);

        // A schema mismatch is an error naming the missing column.
        data::Dataset other = fresh;
        other.featureNames = {u"a"_s, u"c"_s, u"noise"_s};
        const auto refused = m_engine->predict(c.modelDir, other);
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"missing column(s) b"_s), qPrintable(refused.error().toString()));
    }

    void sameSeedSameLosses()
    {
        const auto losses = [&](std::uint64_t seed) {
            run::TrainingConfig c = quick();
            c.dropout = 0.2; // random, but from the seed
            c.seed = seed;
            run::TrainingControl control;
            Recorder sink;
            const auto r = m_engine->train(twoClasses(500), c, control, sink);
            return r.outcome == run::TrainingResult::Outcome::Completed ? sink.values(u"loss"_s) : QList<double>();
        };
        const QList<double> first = losses(3);
        QVERIFY(!first.isEmpty());
        QCOMPARE(losses(3), first); // bit for bit
        QVERIFY(losses(4) != first);
    }

    void cancelStopsWithinOneStep()
    {
        run::TrainingConfig c = quick();
        c.epochs = 50;
        run::TrainingControl control;
        Recorder sink;
        double cancelledAt = -1;
        sink.onRecord = [&](const run::MetricRecord &r) {
            if (std::isnan(r.epoch) && r.step >= 30 && cancelledAt < 0) {
                cancelledAt = r.step;
                control.cancel();
            }
        };
        const auto r = m_engine->train(twoClasses(500), c, control, sink);
        QCOMPARE(r.outcome, run::TrainingResult::Outcome::Cancelled);
        QCOMPARE(cancelledAt, 30.0);
        QCOMPARE(sink.values(u"loss"_s).size(), 30); // not one step more
    }

    void pauseWaitsThenGoesOnUnchanged()
    {
        run::TrainingConfig c = quick();
        run::TrainingControl control;
        Recorder sink;
        std::thread resumer;
        QElapsedTimer pausedFor;
        sink.onRecord = [&](const run::MetricRecord &r) {
            if (std::isnan(r.epoch) && r.step == 10) {
                control.pause();
                pausedFor.start();
                resumer = std::thread([&] {
                    std::this_thread::sleep_for(std::chrono::milliseconds(300));
                    control.resume();
                });
            }
        };
        const auto r = m_engine->train(twoClasses(500), c, control, sink);
        resumer.join();
        QCOMPARE(r.outcome, run::TrainingResult::Outcome::Completed);
        QVERIFY(pausedFor.elapsed() >= 300);
        bool sawPaused = false;
        for (const run::TrainingProgress &p : sink.progressSeen)
            sawPaused = sawPaused || p.paused;
        QVERIFY(sawPaused);
        // The pause changed nothing in the numbers.
        run::TrainingControl plain;
        Recorder reference;
        (void)m_engine->train(twoClasses(500), c, plain, reference);
        QCOMPARE(sink.values(u"loss"_s), reference.values(u"loss"_s));
    }

    void resumeFromCheckpointGivesTheSameLosses()
    {
        run::TrainingConfig c = quick();
        c.dropout = 0.1;
        c.optimizer = run::OptimizerKind::Sgd;
        c.schedule = run::ScheduleKind::Cosine;
        run::TrainingControl control;
        Recorder straight;
        QCOMPARE(m_engine->train(twoClasses(500), c, control, straight).outcome,
                 run::TrainingResult::Outcome::Completed);

        run::TrainingConfig firstHalf = c;
        firstHalf.checkpointDir = m_dir.filePath(u"checkpoints"_s);
        Recorder first;
        run::TrainingControl control2;
        sinkCancelAfterEpoch(first, control2, 2);
        QCOMPARE(m_engine->train(twoClasses(500), firstHalf, control2, first).outcome,
                 run::TrainingResult::Outcome::Cancelled);
        const QString checkpoint = firstHalf.checkpointDir + u"/checkpoint.pt"_s;
        QVERIFY(QFileInfo(checkpoint).isFile());

        run::TrainingConfig rest = c;
        rest.resumeFrom = checkpoint;
        run::TrainingControl control3;
        Recorder second;
        const auto r = m_engine->train(twoClasses(500), rest, control3, second);
        QVERIFY2(r.outcome == run::TrainingResult::Outcome::Completed, qPrintable(r.error.toString()));
        QCOMPARE(r.epochsDone, 4);
        const qint64 stepsPerEpoch = 13; // 400 training samples in batches of 32
        QCOMPARE(second.values(u"loss"_s), straight.lossesAfterEpoch(2, stepsPerEpoch));
        QCOMPARE(second.values(u"val_loss"_s), straight.values(u"val_loss"_s).mid(2));
    }

    void cnnLearnsBarsAndCrosses()
    {
        run::TrainingConfig c = quick();
        c.model = run::ModelKind::Cnn;
        c.convChannels = {8};
        c.layers = {16};
        c.epochs = 6;
        const auto r = [&] {
            run::TrainingControl control;
            Recorder sink;
            return m_engine->train(barsAndCrosses(400), c, control, sink);
        }();
        QVERIFY2(r.outcome == run::TrainingResult::Outcome::Completed, qPrintable(r.error.toString()));
        QVERIFY2(r.finalMetrics[u"val_accuracy"_s].toDouble() > 0.9,
                 qPrintable(QString::number(r.finalMetrics[u"val_accuracy"_s].toDouble())));
    }

    void regressionLearnsALine()
    {
        data::Dataset d = twoClasses(800);
        d.task = data::Task::Regression;
        d.classNames.clear();
        d.classes.clear();
        for (qsizetype i = 0; i < d.count; ++i)
            d.targets.push_back(100 + 2 * d.x[static_cast<std::size_t>(i) * 3] -
                                50 * d.x[static_cast<std::size_t>(i) * 3 + 1]);
        run::TrainingConfig c = quick();
        c.layers = {};
        c.epochs = 30;
        c.learningRate = 0.05;
        c.modelDir = m_dir.filePath(u"regression"_s);
        run::TrainingControl control;
        Recorder sink;
        const auto r = m_engine->train(d, c, control, sink);
        QVERIFY2(r.outcome == run::TrainingResult::Outcome::Completed, qPrintable(r.error.toString()));
        QVERIFY(!r.finalMetrics.contains(u"val_accuracy"_s));
        const auto predicted = m_engine->predict(c.modelDir, d);
        QVERIFY(predicted);
        double worst = 0;
        for (std::size_t i = 0; i < d.targets.size(); ++i)
            worst = std::max(worst, std::abs(static_cast<double>(predicted->values[i] - d.targets[i])));
        QVERIFY2(worst < 1.0, qPrintable(QString::number(worst))); // targets span about 100 ± 20
    }

    void earlyStoppingOnNoise()
    {
        data::Dataset d = twoClasses(300);
        std::mt19937_64 rng(1);
        for (auto &cls : d.classes)
            cls = static_cast<std::int64_t>(rng() % 2); // nothing to learn: validation loss soon rises
        run::TrainingConfig c = quick();
        c.layers = {64, 64};
        c.epochs = 200;
        c.learningRate = 0.01;
        c.earlyStoppingPatience = 2;
        run::TrainingControl control;
        Recorder sink;
        const auto r = m_engine->train(d, c, control, sink);
        QCOMPARE(r.outcome, run::TrainingResult::Outcome::StoppedEarly);
        QVERIFY(r.epochsDone < 200);
        QVERIFY(r.finalMetrics.contains(u"best_epoch"_s));
        QCOMPARE(r.epochsDone, r.finalMetrics[u"best_epoch"_s].toInt() + 2);
    }

    // The best weights early stopping keeps are in the checkpoint: a run interrupted after its
    // best epoch and resumed stops where the uninterrupted one did, with the same model.
    void earlyStoppingSurvivesAResume()
    {
        data::Dataset d = twoClasses(300);
        std::mt19937_64 rng(1);
        for (auto &cls : d.classes)
            cls = static_cast<std::int64_t>(rng() % 2);
        run::TrainingConfig c = quick();
        c.layers = {64, 64};
        c.epochs = 200;
        c.learningRate = 0.01;
        c.earlyStoppingPatience = 3;
        run::TrainingControl control;
        Recorder straightSink;
        const auto straight = m_engine->train(d, c, control, straightSink);
        QCOMPARE(straight.outcome, run::TrainingResult::Outcome::StoppedEarly);
        const int bestEpoch = straight.finalMetrics[u"best_epoch"_s].toInt();
        QVERIFY(bestEpoch >= 1);

        run::TrainingConfig first = c;
        first.checkpointDir = m_dir.filePath(u"early"_s);
        Recorder firstSink;
        run::TrainingControl firstControl;
        sinkCancelAfterEpoch(firstSink, firstControl, bestEpoch + 1); // after the best, before the stop
        QCOMPARE(m_engine->train(d, first, firstControl, firstSink).outcome, run::TrainingResult::Outcome::Cancelled);

        run::TrainingConfig rest = c;
        rest.resumeFrom = first.checkpointDir + u"/checkpoint.pt"_s;
        run::TrainingControl restControl;
        Recorder restSink;
        const auto resumed = m_engine->train(d, rest, restControl, restSink);
        QCOMPARE(resumed.outcome, run::TrainingResult::Outcome::StoppedEarly);
        QCOMPARE(resumed.epochsDone, straight.epochsDone);
        QCOMPARE(resumed.finalMetrics[u"best_epoch"_s].toInt(), bestEpoch);
        QCOMPARE(resumed.finalMetrics[u"val_loss"_s].toDouble(), straight.finalMetrics[u"val_loss"_s].toDouble());
    }

    void refusesWhatItCannotTrain()
    {
        run::TrainingControl control;
        Recorder sink;
        run::TrainingConfig cnn = quick();
        cnn.model = run::ModelKind::Cnn;
        auto r = m_engine->train(twoClasses(100), cnn, control, sink);
        QCOMPARE(r.outcome, run::TrainingResult::Outcome::Failed);
        QVERIFY2(r.error.message.contains(u"a CNN needs images"_s), qPrintable(r.error.toString()));

        run::TrainingConfig wild = quick();
        wild.optimizer = run::OptimizerKind::Sgd;
        wild.learningRate = 10;
        wild.momentum = 0.99;
        data::Dataset d = twoClasses(200);
        d.task = data::Task::Regression;
        for (qsizetype i = 0; i < d.count; ++i)
            d.targets.push_back(1e6f * static_cast<float>(i));
        r = m_engine->train(d, wild, control, sink);
        QCOMPARE(r.outcome, run::TrainingResult::Outcome::Failed);
        QVERIFY2(r.error.message.contains(u"lower the learning rate"_s), qPrintable(r.error.toString()));

        data::Dataset one = twoClasses(1);
        r = m_engine->train(one, quick(), control, sink);
        QCOMPARE(r.outcome, run::TrainingResult::Outcome::Failed);
        QVERIFY2(r.error.message.contains(u"at least 2"_s), qPrintable(r.error.toString()));
    }

private:
    static void sinkCancelAfterEpoch(Recorder &sink, run::TrainingControl &control, int epoch)
    {
        sink.onRecord = [&control, epoch](const run::MetricRecord &r) {
            if (r.epoch >= epoch)
                control.cancel();
        };
    }
};

FERRY_TEST_GUILESS_MAIN(TestTrainer)
#include "tst_trainer.moc"
