// RunMonitor, as the window uses it: it picks up runs started by others, stores their metric
// points once, records how they end, and marks a run whose processes vanished as lost.
#include "support/testenv.h"
#include "support/testmain.h"
#include "targets/targetfactory.h"
#include "tracking/runlauncher.h"
#include "tracking/runmonitor.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <csignal>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

run::RunSpec scriptSpec(const QString &script, const QList<run::Hyperparameter> &hps)
{
    run::RunSpec spec;
    spec.script = script;
    spec.sourceDir = QStringLiteral(FERRY_TEST_DATA "/runs/scripts");
    spec.id = run::newRunId(script);
    spec.hyperparameters = hps;
    return spec;
}

} // namespace

class TestRunMonitor : public QObject {
    Q_OBJECT

    QTemporaryDir m_ws;
    std::unique_ptr<run::RunStore> m_store;
    QString runsDir() const { return m_ws.filePath(u".ferry/runs"_s); }
    std::unique_ptr<run::RunMonitor> monitor()
    {
        return std::make_unique<run::RunMonitor>(*m_store, runsDir(), [](const run::TargetSpec &spec) {
            return targets::makeTarget(spec, ferry::test::ferryBinary());
        });
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_ws.isValid());
        QVERIFY(QDir().mkpath(runsDir()));
        auto store = run::RunStore::open(m_ws.filePath(u".ferry/runs.sqlite"_s));
        QVERIFY2(store, store ? "" : qPrintable(store.error().toString()));
        m_store = std::move(*store);
    }

    void followsARunToItsEnd()
    {
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        const auto launched =
            run::launchRun(*m_store, *target, runsDir(),
                           scriptSpec(u"metrics.py"_s, {{u"steps"_s, u"30"_s}, {u"delay"_s, u"0.01"_s}}));
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
        auto m = monitor();
        qsizetype points = 0;
        bool finished = false;
        for (int round = 0; round < 600 && !finished; ++round) {
            for (const run::RunMonitor::Change &c : m->poll()) {
                QCOMPARE(c.runId, launched->id);
                points += c.newPoints;
                finished = finished || c.finished;
            }
            QTest::qWait(50);
        }
        QVERIFY(finished);
        QCOMPARE(m->followed(), 0);
        m_store->flush();
        QCOMPARE(m_store->run(launched->id)->status, run::RunStatus::Succeeded);
        // 30 loss points (JSON lines) and 30 acc points (key=value), each stored once.
        QCOMPARE(m_store->metricCount(launched->id, u"loss"_s), 30);
        QCOMPARE(m_store->metricCount(launched->id, u"acc"_s), 30);
        qsizetype system = 0; // and the supervisor's samples of the script's CPU and memory
        for (const QString &name : m_store->metricNames(launched->id))
            system += name.startsWith(u"system/"_s) ? m_store->metricCount(launched->id, name) : 0;
        QVERIFY(system > 0);
        QCOMPARE(points, 60 + system);
        QVERIFY(m->poll().isEmpty()); // nothing left to follow
    }

    // A run with secrets shows nothing until its values are given (the window reads them from its
    // keychain), then only redacted lines. Its log is written here by hand, unredacted, to see the
    // monitor's own filter (the supervisor redacts the log of a real run already).
    void runWithSecretsIsShownRedacted()
    {
        run::RunSpec spec = scriptSpec(u"metrics.py"_s, {});
        spec.secretVariables = {{u"HF_TOKEN"_s, u"hf-token"_s}};
        const run::RunDirectory dir(QDir(runsDir()).filePath(spec.id));
        QVERIFY(QDir().mkpath(dir.path()));
        QVERIFY(dir.writeSpec(spec));
        QFile log(dir.logFile());
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.write("token=tok-123 loss=0.5\n");
        log.close();
        QVERIFY(dir.writeExit(run::ExitRecord{0, 0, run::nowMs(), false, {}}));
        run::RunRecord record = run::newRunRecord(spec);
        record.status = run::RunStatus::Running;
        m_store->createRun(record);
        m_store->flush();

        auto m = monitor();
        QVERIFY(m->poll().isEmpty()); // waiting for its secrets
        const auto requests = m->takeSecretRequests();
        QCOMPARE(requests.size(), 1);
        QCOMPARE(requests.first().first, spec.id);
        QCOMPARE(requests.first().second, QStringList{u"hf-token"_s});
        QVERIFY(m->takeSecretRequests().isEmpty());
        QVERIFY(m->poll().isEmpty()); // still waiting
        m->setRunSecrets(spec.id, {u"tok-123"_s});
        QList<QByteArray> lines;
        for (int round = 0; round < 100 && lines.isEmpty(); ++round) {
            for (const run::RunMonitor::Change &c : m->poll())
                lines += c.lines;
        }
        QVERIFY2(lines.join('\n').contains("token=*** loss=0.5"), lines.join('\n').constData());
        QVERIFY(!lines.join('\n').contains("tok-123"));
    }

    // The window's alerts come from here (ui/session/runmonitorworker.h): the rules of every run
    // and a run's own, fired as its points come, then its end.
    void alertRulesFireAsTheRunGoes()
    {
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        const auto launched =
            run::launchRun(*m_store, *target, runsDir(),
                           scriptSpec(u"alerts.py"_s, {{u"losses"_s, u"3:0.4:0.3:nan"_s}, {u"code"_s, u"2"_s}}));
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
        auto m = monitor();
        m->setAlertRules(*run::parseAlertRules(u"loss:nan"_s));
        m->setRunAlertRules(launched->id, *run::parseAlertRules(u"loss < 0.5, loss:nan"_s));
        m->setRunAlertRules(u"another-run"_s, *run::parseAlertRules(u"loss > 1"_s));
        QList<run::Alert> said;
        bool finished = false;
        for (int round = 0; round < 600 && !finished; ++round) {
            for (const run::RunMonitor::Change &c : m->poll()) {
                said += c.alerts;
                finished = finished || c.finished;
            }
            QTest::qWait(50);
        }
        QVERIFY(finished);
        QCOMPARE(said.size(), 3);
        QCOMPARE(said[0].summary(), u"run alerts (%1): loss = 0.4 at step 1"_s.arg(launched->id));
        QCOMPARE(said[0].rule, u"loss < 0.5"_s);
        QCOMPARE(said[1].summary(), u"run alerts (%1): loss is nan at step 3"_s.arg(launched->id));
        QCOMPARE(said[1].rule, u"loss:nan"_s); // once: the run's rule and every run's are the same
        QCOMPARE(said[2].kind, run::Alert::Kind::Ended);
        QCOMPARE(said[2].status, run::RunStatus::Failed);
        QCOMPARE(said[2].body(), u"exit code 2"_s);
    }

    void killedRunBecomesLost()
    {
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        const QString go = m_ws.filePath(u"never"_s);
        const auto launched =
            run::launchRun(*m_store, *target, runsDir(), scriptSpec(u"waiter.py"_s, {{u"go-file"_s, go}}));
        QVERIFY(launched);
        auto m = monitor();
        (void)m->poll();
        QCOMPARE(m->followed(), 1);
        // Kill the supervisor and the script outright: no exit record will ever come.
        const run::RunDirectory dir(QDir(runsDir()).filePath(launched->id));
        QVERIFY(QTest::qWaitFor([&] { return dir.readSupervisor() && dir.readSupervisor()->has_value(); }, 10000));
        const run::SupervisorRecord s = **dir.readSupervisor();
        QVERIFY(QTest::qWaitFor([&] { return (*dir.readSupervisor())->childPid > 0; }, 10000));
        ::kill(static_cast<pid_t>(s.supervisorPid), SIGKILL);
        ::kill(-static_cast<pid_t>((*dir.readSupervisor())->processGroup), SIGKILL);
        bool lost = false;
        for (int round = 0; round < 200 && !lost; ++round) {
            for (const run::RunMonitor::Change &c : m->poll())
                lost = lost || (c.finished && c.status == run::RunStatus::Lost);
            QTest::qWait(50);
        }
        QVERIFY(lost);
        m_store->flush();
        QCOMPARE(m_store->run(launched->id)->status, run::RunStatus::Lost);
    }

    // A run that ended while no Ferry watched it (closed, or on another machine): collected
    // later, its points have the times the script wrote them (log.times), not the time Ferry
    // read them.
    void runCollectedLaterKeepsItsWallTimes()
    {
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        const auto launched = run::launchRun(*m_store, *target, runsDir(),
                                             scriptSpec(u"metrics.py"_s, {{u"steps"_s, u"3"_s}, {u"delay"_s, u"1"_s}}));
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
        const run::RunDirectory dir(QDir(runsDir()).filePath(launched->id));
        QVERIFY(QTest::qWaitFor([&] { return QFile::exists(dir.exitFile()); }, 30000));
        // Ended before any Ferry reads it: a point stamped when read would be later than this.
        const qint64 ended = run::nowMs();
        auto m = monitor();
        bool finished = false;
        for (int round = 0; round < 200 && !finished; ++round) {
            for (const run::RunMonitor::Change &c : m->poll())
                finished = finished || c.finished;
            QTest::qWait(20);
        }
        QVERIFY(finished);
        m_store->flush();
        const QList<run::MetricPoint> loss = m_store->metrics(launched->id, u"loss"_s);
        QCOMPARE(loss.size(), 3);
        // One second apart as printed (within the supervisor's 200 ms stamping), all before the
        // run ended, hence before the collection.
        const qint64 span = loss.last().wallMs - loss.first().wallMs;
        QVERIFY2(span >= 1600 && span <= 2600, qPrintable(QString::number(span)));
        QVERIFY2(loss.last().wallMs < ended, qPrintable(u"%1 >= %2"_s.arg(loss.last().wallMs).arg(ended)));
        QVERIFY(QFile::exists(dir.logTimesFile()));
    }

    // Two runs of one source folder at once (a sweep's trials), both writing runs/exp1/ in their
    // working folder: each run's metrics are its own, none doubled or swapped.
    void concurrentRunsOfOneSourceFolderKeepTheirOwnFiles()
    {
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        QStringList ids;
        for (const QString &steps : {u"30"_s, u"45"_s}) {
            run::RunSpec spec = scriptSpec(u"tensorboard_writer.py"_s, {{u"steps"_s, steps}, {u"delay"_s, u"0.02"_s}});
            spec.interpreter = u"/usr/bin/python3"_s;
            const auto launched = run::launchRun(*m_store, *target, runsDir(), spec);
            QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
            ids << launched->id;
        }
        auto m = monitor();
        int finished = 0;
        for (int round = 0; round < 1200 && finished < 2; ++round) {
            for (const run::RunMonitor::Change &c : m->poll())
                finished += c.finished ? 1 : 0;
            QTest::qWait(50);
        }
        QCOMPARE(finished, 2);
        m_store->flush();
        for (qsizetype i = 0; i < ids.size(); ++i) {
            const int steps = i == 0 ? 30 : 45;
            for (const QString &name : {u"Loss/train"_s, u"train/epoch_loss"_s, u"validation/epoch_loss"_s})
                QCOMPARE(m_store->metricCount(ids[i], name), steps);
        }
    }

    // A real script writing TensorBoard event files into its working folder (runs/, and Keras'
    // logs/train and logs/validation with the same tags) and printing a line per step: each
    // metric stored once, the event files' scalars with their splits' prefixes, and the script's
    // files in this run's folder, not in the source folder.
    void eventFilesOfALocalRunAreFollowed()
    {
        auto target = targets::makeTarget(run::TargetSpec{}, ferry::test::ferryBinary());
        run::RunSpec spec = scriptSpec(u"tensorboard_writer.py"_s, {{u"steps"_s, u"25"_s}});
        spec.interpreter = u"/usr/bin/python3"_s; // Debian's, with python3-protobuf
        const auto launched = run::launchRun(*m_store, *target, runsDir(), spec);
        QVERIFY2(launched, launched ? "" : qPrintable(launched.error().toString()));
        auto m = monitor();
        bool finished = false;
        for (int round = 0; round < 600 && !finished; ++round) {
            for (const run::RunMonitor::Change &c : m->poll())
                finished = finished || c.finished;
            QTest::qWait(50);
        }
        QVERIFY(finished);
        m_store->flush();
        QCOMPARE(m_store->run(launched->id)->status, run::RunStatus::Succeeded);
        QStringList names = m_store->metricNames(launched->id);
        // The supervisor's sample at the start: the script's memory.
        QVERIFY(names.contains(u"system/memory_rss_mib"_s));
        names.removeIf([](const QString &name) { return name.startsWith(u"system/"_s); });
        QCOMPARE(names,
                 (QStringList{u"Loss/train"_s, u"samples_per_s"_s, u"train/epoch_loss"_s, u"validation/epoch_loss"_s}));
        for (const QString &name : names)
            QCOMPARE(m_store->metricCount(launched->id, name), 25);
        const QList<run::MetricPoint> validation = m_store->metrics(launched->id, u"validation/epoch_loss"_s);
        QCOMPARE(validation.at(4).step, 4.0);
        QCOMPARE(validation.at(4).value, double(3.0f / 5));
        const QString work = QDir(runsDir()).filePath(launched->id) + u"/code"_s;
        QVERIFY(QDir(work + u"/runs/exp1"_s).exists());
        QVERIFY(!QDir(QStringLiteral(FERRY_TEST_DATA "/runs/scripts/logs")).exists());
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunMonitor)
#include "tst_runmonitor.moc"
