// A run with a budget that Slurm ended at its --time (the cap's, targets/slurmtarget.h): its
// follower records it as the budget's stop (cancelled, the reason as its error), as the local
// supervisor's stop is recorded; a time limit of a run without a budget stays Slurm's.
#include "support/testmain.h"

#include "run/rundirectory.h"
#include "store/runstore.h"
#include "targets/target.h"
#include "tracking/runfollower.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

// A run Slurm ended at its time limit.
class TimedOutRun : public ferry::targets::Target {
public:
    ferry::Expected<void> start(const QString &, const ferry::run::RunSpec &) override { return {}; }
    ferry::Expected<ferry::targets::RunProbe> probe(const QString &) override
    {
        ferry::targets::RunProbe probe;
        probe.state = ferry::targets::RunState::Failed;
        probe.exit = ferry::run::ExitRecord{-1, 15, 1700000000000, false, {}, u"time-limit"_s};
        probe.archived = true;
        return probe;
    }
    ferry::Expected<ferry::targets::RunProbe> cancel(const QString &dir, int) override { return probe(dir); }
};

} // namespace

class TestBudgetEnd : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void aSlurmTimeLimitOfABudgetIsTheBudgetsStop_data()
    {
        QTest::addColumn<qint64>("maxSeconds");
        QTest::addColumn<int>("status");
        QTest::addColumn<QString>("error");
        QTest::newRow("a budget") << qint64(61) << int(ferry::run::RunStatus::Cancelled)
                                  << u"budget: max-time 0:01:01 reached (Slurm's --time)"_s;
        QTest::newRow("none") << qint64(0) << int(ferry::run::RunStatus::Failed) << QString();
    }
    void aSlurmTimeLimitOfABudgetIsTheBudgetsStop()
    {
        QFETCH(qint64, maxSeconds);
        QFETCH(int, status);
        QFETCH(QString, error);
        QTemporaryDir ws;
        const QString runDir = ws.filePath(u".ferry/runs/r1"_s);
        QVERIFY(QDir().mkpath(runDir));
        QFile log(runDir + u"/log"_s);
        QVERIFY(log.open(QIODevice::WriteOnly));
        log.close();
        ferry::run::RunSpec spec;
        spec.id = u"r1"_s;
        spec.script = u"t.py"_s;
        spec.target = *ferry::run::TargetSpec::parse(u"slurm:hpc"_s);
        spec.budget.maxSeconds = maxSeconds;
        ferry::run::RunRecord record = ferry::run::newRunRecord(spec);
        record.status = ferry::run::RunStatus::Running;
        auto store = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(ws.path()));
        QVERIFY(store);
        (*store)->createRun(record);
        TimedOutRun target;
        ferry::run::RunFollower follower(**store, target, runDir, record);
        for (int round = 0; round < 20; ++round) {
            const auto step = follower.poll();
            QVERIFY(step);
            if (step->finished)
                break;
        }
        (*store)->flush();
        const auto stored = (*store)->run(u"r1"_s);
        QVERIFY(stored);
        QCOMPARE(int(stored->status), status);
        if (!error.isEmpty())
            QCOMPARE(stored->error, error);
        else
            QVERIFY(!stored->error.startsWith(u"budget"_s));
    }
};

FERRY_TEST_APPLESS_MAIN(TestBudgetEnd)
#include "tst_budgetend.moc"
