// `ferry rates`, `ferry run --estimate`, `ferry sweep plan`'s estimate and `ferry cost report`
// through the built `ferry` (docs/cost.md), on a workspace whose store holds runs of known
// durations, with settings of the test's own.
#include "support/cli.h"
#include "support/files.h"
#include "support/runhistory.h"
#include "support/testmain.h"
#include "workspace/workspace.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

using ferry::test::runFerry;
using CostResult = ferry::test::CliResult;

constexpr qint64 kCliDay = 1796600000000;

} // namespace

class TestCostCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_config; // the settings `ferry` reads and writes here: never the user's
    QTemporaryDir m_ws;

    QString ws() const { return m_ws.path(); }
    CostResult ferry(const QStringList &arguments) const
    {
        return runFerry(ws(), arguments + QStringList{u"--workspace"_s, ws()});
    }

private Q_SLOTS:
    void initTestCase()
    {
        qputenv("XDG_CONFIG_HOME", m_config.path().toLocal8Bit());
        QVERIFY(ferry::test::writeFile(ws() + u"/train.py"_s, "print('hi')\n"));
        // Three runs of train.py for 10 epochs: 100, 130 and 110 s.
        const auto workspace = ferry::workspace::Workspace::open(ws());
        QVERIFY(workspace);
        auto store = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(workspace->root()));
        QVERIFY(store);
        const qint64 seconds[]{100, 130, 110};
        for (int i = 0; i < 3; ++i) {
            const ferry::test::PastRun past{u"run%1"_s.arg(i),       u"train.py"_s,        u"local"_s,
                                            ferry::test::epochs(10), kCliDay + i * 600000, seconds[i]};
            (*store)->createRun(ferry::test::pastRecord(past, workspace->root()));
        }
        (*store)->close();
    }

    // Set, list (JSON), unset: what was set comes back with its unit and source; a target
    // without a rate is unknown; what cannot be set is refused and stores nothing.
    void ratesSetListUnsetRoundTrip()
    {
        CostResult r = runFerry(ws(), {u"rates"_s, u"set"_s, u"ssh:gpu1"_s, u"2.50/h"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QCOMPARE(r.out, u"ssh:gpu1  2.50 USD/h  set by you\n"_s);
        QCOMPARE(runFerry(ws(), {u"rates"_s, u"set"_s, u"slurm:hpc/gpu"_s, u"1.20/gpu-h"_s}).exitCode, 0);
        r = runFerry(ws(), {u"rates"_s, u"set"_s, u"ssh:box"_s, u"aws:g5.xlarge"_s});
        QVERIFY2(r.exitCode == 0 && r.out.contains(u"catalog of 2026-12-07"_s), qPrintable(r.out + r.err));
        for (const QStringList &bad : {QStringList{u"ssh:gpu1"_s, u"1/gpu-h"_s}, QStringList{u"container"_s, u"1/h"_s},
                                       QStringList{u"ssh:gpu2"_s, u"3.60"_s}}) {
            r = runFerry(ws(), QStringList{u"rates"_s, u"set"_s} + bad);
            QCOMPARE(r.exitCode, 1);
            QVERIFY(r.err.startsWith(u"ferry rates set: "_s));
        }
        r = runFerry(ws(), {u"rates"_s, u"list"_s, u"--json"_s});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject listed = ferry::test::jsonObject(r);
        QCOMPARE(listed[u"currency"_s].toString(), u"USD"_s);
        QJsonObject byTarget;
        for (const QJsonValue &v : listed[u"rates"_s].toArray())
            byTarget[v[u"target"_s].toString()] = v.toObject();
        QCOMPARE(byTarget.keys(), (QStringList{u"local"_s, u"slurm:hpc/gpu"_s, u"ssh:box"_s, u"ssh:gpu1"_s}));
        QCOMPARE(byTarget[u"ssh:gpu1"_s].toObject()[u"amount"_s].toDouble(), 2.5);
        QCOMPARE(byTarget[u"slurm:hpc/gpu"_s].toObject()[u"unit"_s].toString(), u"gpu-hour"_s);
        QCOMPARE(byTarget[u"ssh:box"_s].toObject()[u"amount"_s].toDouble(), 1.006);
        QVERIFY(byTarget[u"local"_s].toObject()[u"default"_s].toBool()); // 0 until set
        QCOMPARE(runFerry(ws(), {u"rates"_s, u"unset"_s, u"ssh:gpu1"_s}).exitCode, 0);
        QCOMPARE(runFerry(ws(), {u"rates"_s, u"unset"_s, u"ssh:gpu1"_s}).exitCode, 1);
        r = runFerry(ws(), {u"rates"_s, u"list"_s});
        QVERIFY(!r.out.contains(u"ssh:gpu1"_s));
        QVERIFY2(r.out.contains(u"slurm:hpc/gpu"_s) && r.out.contains(u"1.20 USD/GPU-h"_s), qPrintable(r.out));
    }

    // The catalog as shipped, filtered, each row with its date and page.
    void catalogIsListed()
    {
        const CostResult r =
            runFerry(ws(), {u"rates"_s, u"catalog"_s, u"--cloud"_s, u"gcp"_s, u"--gpu"_s, u"L4"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonArray rows = ferry::test::jsonObject(r)[u"instances"_s].toArray();
        QVERIFY(rows.size() >= 5);
        for (const QJsonValue &row : rows) {
            QCOMPARE(row[u"cloud"_s].toString(), u"gcp"_s);
            QCOMPARE(row[u"acceleratorName"_s].toString(), u"L4"_s);
            QCOMPARE(row[u"date"_s].toString(), u"2026-12-07"_s);
            QVERIFY(row[u"source"_s].toString().startsWith(u"https://cloud.google.com/"_s));
        }
    }

    // 20 epochs from three runs of 10: in proportion, 200/220/260 s; at 3.60 an hour, 0.22 typical.
    void estimateBeforeARun()
    {
        QCOMPARE(runFerry(ws(), {u"rates"_s, u"set"_s, u"local"_s, u"3.60/h"_s}).exitCode, 0);
        CostResult r = ferry({u"run"_s, u"train.py"_s, u"--hp"_s, u"epochs=20"_s, u"--estimate"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject e = ferry::test::jsonObject(r);
        QCOMPARE(e[u"runs"_s].toInt(), 3);
        QCOMPARE(e[u"scaling"_s].toString(), u"proportional"_s);
        const QJsonObject d = e[u"durationSeconds"_s].toObject();
        QCOMPARE(d[u"low"_s].toDouble(), 200.0);
        QCOMPARE(d[u"typical"_s].toDouble(), 220.0);
        QCOMPARE(d[u"high"_s].toDouble(), 260.0);
        QCOMPARE(e[u"cost"_s].toObject()[u"typical"_s].toDouble(), 220.0 / 3600.0 * 3.6);
        QCOMPARE(e[u"rate"_s].toObject()[u"source"_s].toString(), u"set by you"_s);
        // Nothing started.
        QCOMPARE(ferry::test::jsonArray(ferry({u"runs"_s, u"list"_s, u"--json"_s})).size(), 3);
        r = ferry({u"run"_s, u"train.py"_s, u"--hp"_s, u"epochs=20"_s, u"--estimate"_s});
        QVERIFY2(r.out.contains(u"from 3 comparable runs, scaled in proportion to epochs"_s), qPrintable(r.out));
        QVERIFY2(r.out.contains(u"at 3.60 USD/h (local, set by you)"_s), qPrintable(r.out));
        // Another target: no history, and for an SSH host without a rate no cost either.
        r = ferry({u"run"_s, u"train.py"_s, u"--target"_s, u"ssh:nowhere"_s, u"--estimate"_s, u"--json"_s});
        QCOMPARE(r.exitCode, 0);
        const QJsonObject none = ferry::test::jsonObject(r);
        QCOMPARE(none[u"runs"_s].toInt(), 0);
        QVERIFY(none[u"durationSeconds"_s].isNull());
        QVERIFY(none[u"cost"_s].isNull());
        QVERIFY(none[u"rate"_s].isNull());
        QCOMPARE(ferry({u"run"_s, u"train.py"_s, u"--json"_s}).exitCode, 1); // --json needs --estimate
    }

    // A grid of 10 and 20 epochs, two at a time: 110 + 220 s of runs, 220 s until the last ends.
    void sweepPlanTotalsTheTrials()
    {
        QVERIFY(ferry::test::writeFile(ws() + u"/sweeps/epochs.yml"_s,
                                       "ferry-sweep: 1\nscript: train.py\nmethod: grid\nmetric: loss\n"
                                       "parameters:\n  epochs: [10, 20]\nmax_parallel: 2\n"));
        QCOMPARE(runFerry(ws(), {u"rates"_s, u"set"_s, u"local"_s, u"3.60/h"_s}).exitCode, 0);
        CostResult r = ferry({u"sweep"_s, u"plan"_s, u"sweeps/epochs.yml"_s, u"--json"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QJsonObject plan = ferry::test::jsonObject(r);
        const QJsonObject total = plan[u"estimate"_s].toObject();
        QCOMPARE(total[u"withHistory"_s].toInt(), 2);
        QCOMPARE(total[u"seconds"_s].toObject()[u"typical"_s].toDouble(), 330.0);
        QCOMPARE(total[u"wallSeconds"_s].toObject()[u"typical"_s].toDouble(), 220.0);
        QCOMPARE(total[u"cost"_s].toObject()[u"typical"_s].toDouble(), 330.0 / 3600.0 * 3.6);
        QCOMPARE(plan[u"trials"_s].toArray()[1].toObject()[u"estimate"_s].toObject()[u"runs"_s].toInt(), 3);
        r = ferry({u"sweep"_s, u"plan"_s, u"sweeps/epochs.yml"_s});
        QVERIFY2(r.out.contains(u"estimate: 2 trials, 2 at a time: about 3m 40s until the last ends"_s),
                 qPrintable(r.out));
        QVERIFY2(r.out.contains(u"cost: about 0.33 USD"_s), qPrintable(r.out));
    }

    // The report: one CSV row per run, no summary; its sums are the grouped form's.
    void costReportSumsMatchTheRuns()
    {
        QCOMPARE(runFerry(ws(), {u"rates"_s, u"set"_s, u"local"_s, u"3.60/h"_s}).exitCode, 0);
        CostResult r = ferry({u"cost"_s, u"report"_s, u"--csv"_s});
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        const QStringList lines = r.out.split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines, (QStringList{u"run,target,seconds,rate,cost"_s, u"run0,local,100.000,3.6,0.1"_s,
                                     u"run1,local,130.000,3.6,0.13"_s, u"run2,local,110.000,3.6,0.11"_s}));
        r = ferry({u"cost"_s, u"report"_s, u"--by"_s, u"target"_s, u"--csv"_s});
        QCOMPARE(r.out, u"group,runs,seconds,cost,unpriced_runs\nlocal,3,340.000,0.34,0\n"_s);
        r = ferry({u"cost"_s, u"report"_s});
        QVERIFY2(r.out.contains(u"total: 3 runs, 5m 40s, 0.34 USD"_s), qPrintable(r.out));
        QCOMPARE(ferry({u"cost"_s, u"report"_s, u"--since"_s, u"2999-01-01"_s, u"--csv"_s}).out,
                 u"run,target,seconds,rate,cost\n"_s);
        // By the month of the start: the three runs of kCliDay's month.
        r = ferry({u"cost"_s, u"report"_s, u"--by"_s, u"month"_s, u"--csv"_s});
        const QString month = QDateTime::fromMSecsSinceEpoch(kCliDay).toLocalTime().toString(u"yyyy-MM"_s);
        QCOMPARE(r.out, u"group,runs,seconds,cost,unpriced_runs\n%1,3,340.000,0.34,0\n"_s.arg(month));
        QCOMPARE(ferry({u"cost"_s, u"report"_s, u"--by"_s, u"day"_s}).exitCode, 1);
        QCOMPARE(ferry({u"cost"_s, u"report"_s, u"--since"_s, u"yesterday"_s}).exitCode, 1);
    }
};

FERRY_TEST_GUILESS_MAIN(TestCostCli)
#include "tst_costcli.moc"
