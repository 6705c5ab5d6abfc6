// run::TrainingSession, the embedded training `ferry train` and the train panel both run, with
// a trainer of the test's own (core knows the TrainerEngine interface only; no torch here):
// the run recorded and finished, the trainer's reports forwarded, a cancel stopping the
// loading (nothing recorded) or the training (the run cancelled), and a missing trainer.
#include "run/rundirectory.h"
#include "store/runstore.h"
#include "support/files.h"
#include "support/testmain.h"
#include "training/embeddedrun.h"
#include "training/trainingsession.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <thread>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;

using ferry::test::readFile;
using ferry::test::writeFile;

namespace {

// Reports one epoch per optimiser "step"; with `forever`, trains until cancelled.
class FakeEngine final : public TrainerEngine {
public:
    bool forever = false;
    std::atomic<bool> training{false};

    TrainerInfo info() const override { return {}; }
    Expected<void> selfTest() override { return {}; }
    Expected<Predictions> predict(const QString &, const data::Dataset &) override { return Predictions{}; }

    TrainingResult train(const data::Dataset &dataset, const TrainingConfig &config, TrainingControl &control,
                         TrainingSink &sink) override
    {
        training = true;
        TrainingResult result;
        for (int epoch = 1; forever || epoch <= config.epochs; ++epoch) {
            if (!control.proceed()) {
                result.outcome = TrainingResult::Outcome::Cancelled;
                return result;
            }
            sink.record({double(epoch), double(epoch), {{kTrainLoss, 1.0 / epoch}}});
            TrainingProgress p;
            p.epoch = epoch;
            p.epochs = config.epochs;
            p.step = epoch;
            p.totalSteps = config.epochs;
            sink.progress(p);
            result.epochsDone = forever ? 0 : epoch;
            if (forever)
                std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        QDir().mkpath(config.modelDir);
        QFile weights(QDir(config.modelDir).filePath(u"model.pt"_s));
        if (weights.open(QIODevice::WriteOnly))
            weights.write(QByteArray::number(dataset.count));
        result.outcome = TrainingResult::Outcome::Completed;
        result.finalMetrics[kTrainLoss] = 1.0 / config.epochs;
        return result;
    }
};

} // namespace

class TestTrainingSession : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    std::unique_ptr<RunStore> m_store;
    FakeEngine m_engine;

    QString ws(const QString &file) const { return m_ws.filePath(file); }
    QString runsDir() const { return ws(u".ferry/runs"_s); }
    TrainingSession::EngineProvider engine()
    {
        return [this]() -> Expected<TrainerEngine *> { return &m_engine; };
    }
    TrainingSession::Request request(int epochs) const
    {
        TrainingSession::Request r;
        r.dataPath = ws(u"points.csv"_s);
        r.config.epochs = epochs;
        return r;
    }
    int recordedRuns() const { return int(m_store->runs().size()); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        QByteArray csv = "a,b,label\n";
        for (int i = 0; i < 40; ++i)
            csv += QByteArray::number(i) + ',' + QByteArray::number(i % 7) + (i % 2 ? ",odd\n" : ",even\n");
        csv += "1,,odd\n"; // dropped, with a note
        QVERIFY(writeFile(ws(u"points.csv"_s), csv));
        QVERIFY(QDir().mkpath(runsDir()));
        auto store = RunStore::open(ws(u".ferry/runs.sqlite"_s));
        QVERIFY(store);
        m_store = std::move(*store);
    }

    void trainsAndRecordsTheRun()
    {
        TrainingSession session(*m_store, runsDir(), m_ws.path());
        QString startedId;
        qsizetype samples = 0;
        int reports = 0;
        TrainingSession::Events events;
        events.started = [&](const TrainingSession::Started &started) {
            startedId = started.spec.id;
            samples = started.dataset->count;
            QCOMPARE(started.spec.target.kind, TargetKind::Embedded);
            QCOMPARE(started.runDir, RunDirectory::pathFor(m_ws.path(), started.spec.id));
        };
        events.progress = [&](const TrainingProgress &) { ++reports; };
        const auto outcome = session.run(engine(), request(3), events);
        QVERIFY2(outcome, qPrintable(outcome ? QString() : outcome.error().toString()));
        QVERIFY(outcome->recorded);
        QCOMPARE(outcome->result.outcome, TrainingResult::Outcome::Completed);
        QCOMPARE(outcome->runId, startedId);
        QCOMPARE(samples, 40);
        QCOMPARE(reports, 3);
        QCOMPARE(session.progress().epoch, 3);

        const RunDirectory dir(outcome->runDir);
        QCOMPARE(outcome->modelDir, dir.path() + u"/model"_s);
        const auto exit = dir.readExit();
        QVERIFY(exit && exit->has_value() && (*exit)->succeeded());
        QVERIFY(QFile::exists(dir.modelArchive()));
        const QByteArray log = readFile(dir.logFile());
        QVERIFY2(log.contains("{\"step\": 3, \"epoch\": 3, \"train_loss\": "), log.constData());
        QVERIFY2(log.contains("ferry: note: "), log.constData()); // what loading did, kept with the run
        m_store->flush();
        const auto record = m_store->run(startedId);
        QVERIFY(record);
        QCOMPARE(record->name, TrainingSession::runName(ws(u"points.csv"_s)));
        QCOMPARE(record->name, u"train points.csv"_s);
    }

    // A cancel before or during the loading: no training, no run recorded.
    void cancelStopsTheLoading()
    {
        const int before = recordedRuns();
        TrainingSession session(*m_store, runsDir(), m_ws.path());
        session.cancel();
        bool started = false;
        TrainingSession::Events events;
        events.started = [&](const TrainingSession::Started &) { started = true; };
        m_engine.training = false;
        const auto outcome = session.run(engine(), request(3), events);
        QVERIFY(!outcome);
        QVERIFY2(outcome.error().message.contains(u"cancelled"_s), qPrintable(outcome.error().toString()));
        QVERIFY(!started && !m_engine.training);
        m_store->flush();
        QCOMPARE(recordedRuns(), before);
    }

    void cancelStopsTheTraining()
    {
        TrainingSession session(*m_store, runsDir(), m_ws.path());
        m_engine.forever = true;
        std::optional<Expected<TrainingSession::Outcome>> outcome;
        std::thread worker([&] { outcome = session.run(engine(), request(5)); });
        QVERIFY(QTest::qWaitFor([&] { return session.progress().epoch > 2; }, 30000));
        session.cancel();
        worker.join();
        m_engine.forever = false;
        QVERIFY(*outcome);
        QCOMPARE((*outcome)->result.outcome, TrainingResult::Outcome::Cancelled);
        const auto exit = RunDirectory((*outcome)->runDir).readExit();
        QVERIFY(exit && exit->has_value() && (*exit)->cancelled);
    }

    void aMissingTrainerRecordsNothing()
    {
        const int before = recordedRuns();
        TrainingSession session(*m_store, runsDir(), m_ws.path());
        const auto outcome = session.run(
            [] {
                return Expected<TrainerEngine *>(Error{u"no trainer plugin"_s, {}, 0, 0, u"build ferry_trainer"_s});
            },
            request(1));
        QVERIFY(!outcome);
        QCOMPARE(outcome.error().message, u"no trainer plugin"_s);
        m_store->flush();
        QCOMPARE(recordedRuns(), before);
    }
};

FERRY_TEST_GUILESS_MAIN(TestTrainingSession)
#include "tst_trainingsession.moc"
