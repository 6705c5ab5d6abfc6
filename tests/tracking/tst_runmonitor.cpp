// RunMonitor, as the window uses it: it picks up runs started by others, stores their metric
// points once, records how they end, and marks a run whose processes vanished as lost.
#include "support/testenv.h"
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
        QCOMPARE(points, 60);
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
};

QTEST_GUILESS_MAIN(TestRunMonitor)
#include "tst_runmonitor.moc"
