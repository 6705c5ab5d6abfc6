// Slurm's answers (scontrol, sacct) read, and every job state the issue names mapped to a run state.
#include "targets/slurmjob.h"

#include "support/targets.h"
#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::targets;

class TestSlurmJob : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void readsScontrol()
    {
        // Recorded from Slurm 22.05 (shortened in the middle).
        const QString line = u"JobId=7 JobName=ferry-x UserId=root(0) GroupId=root(0) MCS_label=N/A "
                             "Priority=4294901759 Nice=0 Account=(null) QOS=(null) JobState=PENDING "
                             "Reason=Resources Dependency=(null) Requeue=1 Restarts=2 BatchFlag=1 Reboot=0 "
                             "ExitCode=0:0 RunTime=00:00:00 TimeLimit=UNLIMITED Command=/r/runner.sh"_s;
        const SlurmJob job = parseScontrolJob(line);
        QVERIFY(job.known);
        QCOMPARE(job.state, u"PENDING"_s);
        QCOMPARE(job.reason, u"Resources"_s);
        QCOMPARE(job.restarts, 2);
        const SlurmJob failed = parseScontrolJob(u"JobId=8 JobState=FAILED Reason=NonZeroExitCode ExitCode=3:0"_s);
        QCOMPARE(failed.exitCode, 3);
        QCOMPARE(failed.signal, 0);
        QVERIFY(!parseScontrolJob(u"slurm_load_jobs error: Invalid job id specified"_s).known);
    }

    void readsSacct()
    {
        const SlurmJob job = parseSacctLine(u"CANCELLED by 0|0:15"_s);
        QVERIFY(job.known);
        QCOMPARE(job.state, u"CANCELLED"_s);
        QCOMPARE(job.signal, 15);
        QVERIFY(!parseSacctLine(QString()).known);
    }

    void mapsStates_data()
    {
        QTest::addColumn<QString>("state");
        QTest::addColumn<bool>("requeue");
        QTest::addColumn<RunState>("expected");
        QTest::addColumn<bool>("ended");
        QTest::addColumn<QString>("detail");
        QTest::newRow("PENDING") << u"PENDING"_s << false << RunState::Running << false
                                 << u"pending, position 3 in the queue, waiting for: Resources"_s;
        QTest::newRow("RUNNING") << u"RUNNING"_s << false << RunState::Running << false << QString();
        QTest::newRow("COMPLETING") << u"COMPLETING"_s << false << RunState::Running << false << u"completing"_s;
        QTest::newRow("REQUEUED") << u"REQUEUED"_s << true << RunState::Running << false << u"requeued"_s;
        QTest::newRow("PREEMPTED, requeued")
            << u"PREEMPTED"_s << true << RunState::Running << false << u"Slurm requeues it"_s;
        QTest::newRow("COMPLETED") << u"COMPLETED"_s << false << RunState::Succeeded << true << QString();
        QTest::newRow("FAILED") << u"FAILED"_s << false << RunState::Failed << true << u"exit code 3"_s;
        QTest::newRow("CANCELLED") << u"CANCELLED"_s << false << RunState::Cancelled << true << u"cancelled"_s;
        QTest::newRow("TIMEOUT") << u"TIMEOUT"_s << false << RunState::Failed << true << u"time limit (--time)"_s;
        QTest::newRow("OUT_OF_MEMORY") << u"OUT_OF_MEMORY"_s << false << RunState::Failed << true
                                       << u"out of memory (--mem)"_s;
        QTest::newRow("NODE_FAIL") << u"NODE_FAIL"_s << false << RunState::Failed << true << u"node failed"_s;
        QTest::newRow("PREEMPTED") << u"PREEMPTED"_s << false << RunState::Failed << true << u"--requeue"_s;
        QTest::newRow("BOOT_FAIL") << u"BOOT_FAIL"_s << false << RunState::Failed << true << u"boot"_s;
    }
    void mapsStates()
    {
        QFETCH(QString, state);
        QFETCH(bool, requeue);
        QFETCH(RunState, expected);
        QFETCH(bool, ended);
        QFETCH(QString, detail);
        SlurmJob job;
        job.known = true;
        job.state = state;
        job.reason = state == u"PENDING"_s ? u"Resources"_s : u"None"_s;
        job.exitCode = 3;
        const SlurmVerdict verdict = judgeSlurmJob(job, 3, requeue);
        QCOMPARE(verdict.state, expected);
        QCOMPARE(verdict.ended, ended);
        QVERIFY2(verdict.detail.contains(detail), qPrintable(verdict.detail));
        // The cause in a word, which a kernel's death is said with.
        static const QHash<QString, QString> causes{{u"TIMEOUT"_s, u"time-limit"_s},
                                                    {u"OUT_OF_MEMORY"_s, u"out-of-memory"_s},
                                                    {u"NODE_FAIL"_s, u"node-failure"_s},
                                                    {u"BOOT_FAIL"_s, u"node-failure"_s}};
        QCOMPARE(verdict.cause, (state == u"PREEMPTED"_s && !requeue) ? u"preempted"_s : causes.value(state));
        // Waiting for its resources (a kernel's start waits as long as the queue takes).
        QCOMPARE(verdict.pending, state == u"PENDING"_s || state == u"REQUEUED"_s);
    }

    void countsAttempts()
    {
        SlurmJob job{true, u"RUNNING"_s, u"None"_s, 1, 0, 0};
        QCOMPARE(judgeSlurmJob(job, 0, true).detail, u"attempt 2"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestSlurmJob)
#include "tst_slurmjob.moc"
