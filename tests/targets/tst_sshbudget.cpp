// An SSH run's cap held on the host by its runner (docs/cost.md, Budgets), against the real sshd
// on 127.0.0.1: at --max-time the script's group gets SIGTERM (the script writes its checkpoint),
// SIGKILL once the grace has passed when it ignores it; the run ends cancelled with the reason a
// local run's supervisor gives (run::RunBudget::reachedText). `ferry runs watch` says 80 % of it
// (the run monitor's built-in alert: nothing on the host can notify) and goes on to the run's end.
#include "run/archive.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"
#include "targets/sshtarget.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestSshBudget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theCapIsHeldOnTheHost_data()
    {
        QTest::addColumn<bool>("ignoreTerm");
        QTest::addColumn<int>("signal");
        QTest::newRow("the script saves and ends at SIGTERM") << false << 15;
        QTest::newRow("the script ignores SIGTERM: SIGKILL after the grace") << true << 9;
    }
    void theCapIsHeldOnTheHost()
    {
        QFETCH(bool, ignoreTerm);
        QFETCH(int, signal);
        const ferry::test::SshSandbox sandbox;
        QTemporaryDir ws;
        const QString root = ws.filePath(u"on-the-host"_s);
        ferry::run::RunSpec spec = ferry::test::remoteSpec(
            u"ssh:"_s + ferry::test::kHost, QStringLiteral(FERRY_TEST_DATA "/runs/scripts"), u"budget.py"_s, root);
        spec.hyperparameters = {{u"seconds"_s, u"60"_s}, {u"ignore-term"_s, ignoreTerm ? u"1"_s : u"0"_s}};
        spec.budget.maxSeconds = 3;
        spec.budget.graceSeconds = 2;
        const QString runsDir = ws.filePath(u"ws/.ferry/runs"_s);
        ferry::targets::SshTarget target(ferry::test::kHost, sandbox.options());
        auto store = ferry::run::RunStore::open(ws.filePath(u"runs.sqlite"_s));
        QVERIFY(store);
        const auto launched = ferry::run::launchRun(**store, target, runsDir, spec);
        QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
        const QString runDir = runsDir + u'/' + spec.id;
        const QString remoteDir = root + u'/' + spec.id;
        // The cap holds with Ferry away: nobody asks the host anything until the runner wrote the end.
        QVERIFY(ferry::test::waitFor([&] { return QFile::exists(remoteDir + u"/exit.json"_s); }, 60000, 200));
        QVERIFY2(QFile::exists(remoteDir + u"/model/checkpoint.txt"_s), "no checkpoint at the grace signal");
        ferry::run::RunFollower follower(**store, target, runDir, *launched);
        QVERIFY(ferry::test::waitFor(
            [&] {
                const auto step = follower.poll();
                return step && step->finished;
            },
            60000, 200));
        (*store)->flush();
        const auto stored = (*store)->run(spec.id);
        QVERIFY(stored);
        QCOMPARE(stored->status, ferry::run::RunStatus::Cancelled);
        QCOMPARE(stored->error, u"budget: max-time 0:00:03 reached"_s);
        QCOMPARE(stored->error, spec.budget.reachedText()); // the local supervisor's words
        const auto exit = ferry::run::RunDirectory(runDir).readExit();
        QVERIFY(exit && exit->has_value());
        QVERIFY((*exit)->cancelled);
        QCOMPARE((*exit)->signal, signal);
        // The checkpoint came back with the model folder.
        QVERIFY(
            ferry::run::archiveEntries(ferry::run::RunDirectory(runDir).modelArchive())->contains(u"checkpoint.txt"_s));
        const QString log = QString::fromUtf8(ferry::test::readFile(ferry::run::RunDirectory(runDir).logFile()));
        QVERIFY2(log.contains(u"ferry: 80 % of the budget used: max-time 0:00:03"_s), qPrintable(log));
        QVERIFY2(
            log.contains(u"ferry: budget: max-time 0:00:03 reached: stopping the run (SIGTERM now, SIGKILL in 2 s)"_s),
            qPrintable(log));
        QCOMPARE(log.contains(u"the budget's grace of 2 s has passed: SIGKILL"_s), ignoreTerm);
        QVERIFY2(!log.contains(u"done"_s), qPrintable(log)); // stopped long before its 60 s
    }

    void theWatchSays80PercentAndGoesOnToTheEnd()
    {
        const ferry::test::SshSandbox sandbox;
        QTemporaryDir ws;
        const auto started =
            ferry::test::ferryCli(sandbox, ws.path(),
                                  {u"run"_s, QStringLiteral(FERRY_TEST_DATA "/runs/scripts/budget.py"), u"--target"_s,
                                   u"ssh:"_s + ferry::test::kHost, u"--remote-dir"_s, ws.filePath(u"host"_s), u"--hp"_s,
                                   u"seconds=60"_s, u"--max-time"_s, u"0:00:10"_s, u"--grace"_s, u"1"_s});
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = started.out.trimmed();
        const auto watched = ferry::test::ferryCli(sandbox, ws.path(), {u"runs"_s, u"watch"_s, id});
        QVERIFY2(watched.exitCode == 5, qPrintable(watched.out + watched.err)); // cancelled: its end, not the word
        QCOMPARE(watched.out, u"alert: Run %1: 80 % of its budget used (80 % of the budget used: max-time 0:00:10; it "
                              u"will be stopped at 100 %)\n"_s.arg(id));
        QVERIFY2(watched.err.contains(u"budget: max-time 0:00:10 reached"_s), qPrintable(watched.err));
    }
};

FERRY_TEST_APPLESS_MAIN(TestSshBudget)
#include "tst_sshbudget.moc"
