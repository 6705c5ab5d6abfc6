// A run's budget on Slurm (docs/cost.md): its cap and grace, rounded up to minutes, are the job's
// --time, read back from a real single-node Slurm with `scontrol show job`; a shorter --time of
// its own is kept. The cap itself is held by the job's runner, as an SSH run's: a run far past it
// is stopped at it (SIGTERM, its checkpoint saved), cancelled with the local supervisor's reason,
// the 80 % word in its log (a run across nodes: tst_slurmmultinode).
#include "targets/slurmtarget.h"

#include "run/archive.h"
#include "support/remote.h"
#include "support/targets.h"
#include "support/testmain.h"

#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

class TestSlurmBudget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void theCapAndTheGraceAreTheTimeRoundedUpToMinutes_data()
    {
        QTest::addColumn<qint64>("maxSeconds");
        QTest::addColumn<double>("maxCost");
        QTest::addColumn<qint64>("costSeconds");
        QTest::addColumn<int>("grace");
        QTest::addColumn<QString>("time");
        QTest::newRow("seconds") << qint64(5) << 0.0 << qint64(0) << 30 << u"0:01:00"_s;
        QTest::newRow("a minute and a half") << qint64(61) << 0.0 << qint64(0) << 30 << u"0:02:00"_s;
        QTest::newRow("whole minutes stay") << qint64(3570) << 0.0 << qint64(0) << 30 << u"1:00:00"_s;
        QTest::newRow("money first") << qint64(7200) << 1.0 << qint64(600) << 0 << u"0:10:00"_s;
        QTest::newRow("time first") << qint64(60) << 1.0 << qint64(600) << 0 << u"0:01:00"_s;
        QTest::newRow("no cap") << qint64(0) << 0.0 << qint64(0) << 30 << QString();
    }
    void theCapAndTheGraceAreTheTimeRoundedUpToMinutes()
    {
        QFETCH(qint64, maxSeconds);
        QFETCH(double, maxCost);
        QFETCH(qint64, costSeconds);
        QFETCH(int, grace);
        QFETCH(QString, time);
        ferry::run::RunBudget budget;
        budget.maxSeconds = maxSeconds;
        budget.maxCost = maxCost;
        budget.costSeconds = costSeconds;
        budget.graceSeconds = grace;
        QCOMPARE(ferry::targets::SlurmTarget::budgetTimeLimit(budget), time);
    }

    void aShorterTimeOfItsOwnIsKept()
    {
        ferry::run::RunSpec spec =
            ferry::test::remoteSpec(u"slurm:local"_s, ferry::test::kScripts, u"budget.py"_s, u"/tmp"_s);
        spec.budget.maxSeconds = 3600;
        spec.target.options[u"time"_s] = u"10"_s; // Slurm's minutes
        auto lines = ferry::targets::SlurmTarget::sbatchOptions(spec, u"/r/run"_s);
        QVERIFY(lines);
        QVERIFY2(lines->contains(u"--time=10"_s), qPrintable(lines->join(u' ')));
        spec.target.options[u"time"_s] = u"1-00:00:00"_s; // a day: the cap is shorter
        lines = ferry::targets::SlurmTarget::sbatchOptions(spec, u"/r/run"_s);
        QVERIFY(lines);
        QVERIFY2(lines->contains(u"--time=1:01:00"_s), qPrintable(lines->join(u' ')));
        QVERIFY(!lines->contains(u"--time=1-00:00:00"_s));
    }

    // Done when (issue 38): a Slurm run gets --time from its cap, read back with scontrol.
    void aSlurmRunGetsItsCapAsItsTime()
    {
        QVERIFY2(!qEnvironmentVariableIsEmpty("SLURM_CONF"), "the slurm fixture sets SLURM_CONF");
        QTemporaryDir ws;
        ferry::run::RunSpec spec =
            ferry::test::remoteSpec(u"slurm:local"_s, ferry::test::kScripts, u"budget.py"_s, ws.filePath(u"cluster"_s));
        spec.hyperparameters = {{u"seconds"_s, u"120"_s}};
        spec.budget.maxSeconds = 61; // with 30 s of grace: 91 s, rounded up to 2 minutes
        spec.budget.graceSeconds = 30;
        const QString runDir = ws.filePath(u"run"_s);
        ferry::targets::SlurmTarget target(u"local"_s);
        const auto started = target.start(runDir, spec);
        QVERIFY2(started, qPrintable(ferry::test::errorOf(started)));
        const auto record = ferry::targets::RemoteRecord::read(runDir);
        QVERIFY(record && record->has_value());
        const QString job = (*record)->jobId;
        const ferry::targets::ShellResult shown =
            ferry::targets::runProcess(u"scontrol"_s, {u"show"_s, u"job"_s, job}, {}, 30000);
        (void)target.cancel(runDir, 5000);
        const QString said = QString::fromUtf8(shown.out);
        QVERIFY2(QRegularExpression(u"\\bTimeLimit=00:02:00\\b"_s).match(said).hasMatch(), qPrintable(said));
    }

    // The runner holds the cap at the cap itself (--time, a minute here, is the backstop): the
    // script saves its checkpoint at the grace signal, the run ends cancelled with the budget's
    // reason, its log says 80 % first.
    void theRunnerStopsASlurmRunAtItsCap()
    {
        QTemporaryDir ws;
        const QString root = ws.filePath(u"cluster"_s);
        ferry::run::RunSpec spec =
            ferry::test::remoteSpec(u"slurm:local"_s, ferry::test::kScripts, u"budget.py"_s, root);
        spec.hyperparameters = {{u"seconds"_s, u"60"_s}};
        spec.budget.maxSeconds = 3;
        spec.budget.graceSeconds = 10;
        const QString runsDir = ws.filePath(u"ws/.ferry/runs"_s);
        ferry::targets::SlurmTarget target(u"local"_s);
        auto store = ferry::run::RunStore::open(ws.filePath(u"runs.sqlite"_s));
        QVERIFY(store);
        const auto launched = ferry::run::launchRun(**store, target, runsDir, spec);
        QVERIFY2(launched, qPrintable(launched ? QString() : launched.error().toString()));
        const QString runDir = runsDir + u'/' + spec.id;
        ferry::run::RunFollower follower(**store, target, runDir, *launched);
        QVERIFY(ferry::test::waitFor(
            [&] {
                const auto step = follower.poll();
                return step && step->finished;
            },
            90000, 200));
        (*store)->flush();
        const auto stored = (*store)->run(spec.id);
        QVERIFY(stored);
        QCOMPARE(stored->error, u"budget: max-time 0:00:03 reached"_s); // not Slurm's --time
        QCOMPARE(stored->status, ferry::run::RunStatus::Cancelled);
        QVERIFY(QFile::exists(root + u'/' + spec.id + u"/model/checkpoint.txt"_s));
        QVERIFY(
            ferry::run::archiveEntries(ferry::run::RunDirectory(runDir).modelArchive())->contains(u"checkpoint.txt"_s));
        const QString log = QString::fromUtf8(ferry::test::readFile(ferry::run::RunDirectory(runDir).logFile()));
        const qsizetype warned = log.indexOf(u"ferry: 80 % of the budget used: max-time 0:00:03"_s);
        const qsizetype stopped =
            log.indexOf(u"ferry: budget: max-time 0:00:03 reached: stopping the run (SIGTERM now, SIGKILL in 10 s)"_s);
        QVERIFY2(warned >= 0 && stopped > warned, qPrintable(log));
        QVERIFY2(log.contains(u"checkpoint written"_s) && !log.contains(u"done"_s), qPrintable(log));
        QVERIFY2(!log.contains(u"grace of 10 s has passed"_s) && !log.contains(u"from Slurm"_s), qPrintable(log));
    }
};

FERRY_TEST_APPLESS_MAIN(TestSlurmBudget)
#include "tst_slurmbudget.moc"
