// The cost report (cost/costreport.h): each run's time and cost from its record and the rates, the
// sums of the groups matching the runs, the CSV one row per run with no summary, and unknown
// rates counted apart, never as 0.
#include "cost/costreport.h"
#include "cost/kernelcost.h"
#include "support/runhistory.h"
#include "support/testmain.h"

#include <QDateTime>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::test::PastRun;

namespace {

constexpr qint64 kReportDay = 1796600000000;
const QString kReportRoot = u"/work/project"_s;

const ferry::cost::Rates kReportRates{
    {u"local"_s, ferry::cost::Rate{3.6, ferry::cost::RateUnit::Hour, u"set by you"_s}},
    {u"slurm:hpc/gpu"_s, ferry::cost::Rate{1.2, ferry::cost::RateUnit::GpuHour, u"the centre"_s}},
    {u"ssh:free"_s, ferry::cost::Rate{0, ferry::cost::RateUnit::Hour, u"set by you"_s}},
};

// Six runs: local ones of a sweep and tagged, a Slurm one on two GPUs, one on a free host, one on
// a host without a rate, one that never started.
QList<ferry::run::RunRecord> reportHistory()
{
    const QList<PastRun> runs{
        PastRun{u"r1"_s,
                u"train.py"_s,
                u"local"_s,
                {},
                kReportDay,
                1800,
                ferry::run::RunStatus::Succeeded,
                {},
                {},
                u"sweep-a"_s,
                {u"baseline"_s}},
        PastRun{u"r2"_s,
                u"train.py"_s,
                u"local"_s,
                {},
                kReportDay + 60000,
                600,
                ferry::run::RunStatus::Failed,
                {},
                {},
                u"sweep-a"_s,
                {u"baseline"_s, u"paper"_s}},
        PastRun{u"r3"_s,
                u"train.py"_s,
                u"slurm:hpc"_s,
                {},
                kReportDay + 120000,
                3600,
                ferry::run::RunStatus::Succeeded,
                {{u"partition"_s, u"gpu"_s}, {u"gpus"_s, 2}}},
        PastRun{u"r4"_s, u"train.py"_s, u"ssh:free"_s, {}, kReportDay + 180000, 7200},
        PastRun{u"r5"_s, u"train.py"_s, u"ssh:gpu1"_s, {}, kReportDay + 240000, 900},
        PastRun{u"r6"_s, u"train.py"_s, u"local"_s, {}, 0, 0, ferry::run::RunStatus::Created},
    };
    QList<ferry::run::RunRecord> records;
    for (const PastRun &r : runs)
        records << ferry::test::pastRecord(r, kReportRoot);
    records.last().startedMs = records.last().finishedMs = 0;
    return records;
}

} // namespace

class TestCostReport : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Every run that started, its seconds, its rate an hour (nodes or GPUs counted) and its cost.
    // A kernel session: its time on its target at the kernel's rate (kernel:TARGET), else its
    // target's; one still running counts until now; with the runs in the CSV and the groups.
    void kernelsArePricedBesideTheRuns()
    {
        ferry::run::RunSpec spec;
        spec.id = u"20261207-071500-kernel-3f2a"_s;
        spec.keeperArguments = QStringList{u"--kernel"_s, u"python3"_s};
        spec.target.kind = ferry::run::TargetKind::Local;
        ferry::cost::Rates rates = kReportRates;
        rates.insert(u"kernel:local"_s, ferry::cost::Rate{1.0, ferry::cost::RateUnit::Hour, u"set by you"_s});
        const ferry::run::RunRecord over =
            ferry::cost::kernelRecord(spec.id, spec, kReportDay + 300000, kReportDay + 300000 + 1800 * 1000);
        ferry::run::RunSpec onHost = spec;
        onHost.id = u"20261207-081500-kernel-9b1c"_s;
        onHost.target.kind = ferry::run::TargetKind::Ssh;
        onHost.target.host = u"free"_s;
        const ferry::run::RunRecord running = ferry::cost::kernelRecord(onHost.id, onHost, kReportDay + 400000, 0);
        const QList<ferry::cost::RunCost> rows =
            ferry::cost::costReport(reportHistory() + QList{over, running}, rates, 0, kReportDay + 400000 + 600 * 1000);
        QCOMPARE(rows.size(), 7);
        QCOMPARE(rows[5].run, spec.id);
        QCOMPARE(rows[5].rate->target, u"kernel:local"_s); // the kernel's own, before this machine's 3.60
        QCOMPARE(*rows[5].cost(), 0.5);
        QVERIFY(!rows[5].running);
        QCOMPARE(rows[6].rate->target, u"ssh:free"_s); // no kernel:ssh:free: the host's
        QVERIFY(rows[6].running);
        QCOMPARE(rows[6].seconds, 600.0);
        QVERIFY(ferry::cost::costCsv(rows).contains(spec.id + u",local,1800.000,1,0.5\n"_s));
        const auto byTarget = ferry::cost::groupCosts(rows, ferry::cost::Grouping::Target);
        QCOMPARE(ferry::cost::totalCost(rows).runs, 7);
        QCOMPARE(byTarget[0].name, u"local"_s);
        QCOMPARE(byTarget[0].runs, 3);
        QCOMPARE(byTarget[0].cost, 1.8 + 0.6 + 0.5);
    }

    void eachRunIsPriced()
    {
        const QList<ferry::cost::RunCost> rows =
            ferry::cost::costReport(reportHistory(), kReportRates, 0, kReportDay + 86400000);
        QCOMPARE(rows.size(), 5); // r6 never started
        QCOMPARE(rows[0].run, u"r1"_s);
        QCOMPARE(rows[0].seconds, 1800.0);
        QCOMPARE(*rows[0].cost(), 1.8);         // half an hour at 3.60
        QCOMPARE(*rows[1].cost(), 0.6);         // a failed run costs what it ran
        QCOMPARE(rows[2].rate->perHour(), 2.4); // two GPUs at 1.20 a GPU-hour
        QCOMPARE(*rows[2].cost(), 2.4);
        QCOMPARE(*rows[3].cost(), 0.0);       // free: 0, known
        QVERIFY(!rows[4].cost().has_value()); // no rate: unknown, not 0
    }

    // The CSV: a header and one row per run, nothing else; the sums of its costs and of every
    // grouping match the runs.
    void reportSumsMatchTheRuns()
    {
        const QList<ferry::cost::RunCost> rows =
            ferry::cost::costReport(reportHistory(), kReportRates, 0, kReportDay + 86400000);
        const QStringList lines = ferry::cost::costCsv(rows).split(u'\n', Qt::SkipEmptyParts);
        QCOMPARE(lines.first(), u"run,target,seconds,rate,cost"_s);
        QCOMPARE(lines.size(), 1 + rows.size());
        QCOMPARE(lines[1], u"r1,local,1800.000,3.6,1.8"_s);
        QCOMPARE(lines[3], u"r3,slurm:hpc,3600.000,2.4,2.4"_s);
        QCOMPARE(lines[4], u"r4,ssh:free,7200.000,0,0"_s);
        QCOMPARE(lines[5], u"r5,ssh:gpu1,900.000,,"_s);
        double csvCost = 0, csvSeconds = 0;
        for (const QString &line : lines.mid(1)) {
            csvSeconds += line.section(u',', 2, 2).toDouble();
            csvCost += line.section(u',', 4, 4).toDouble();
        }
        const ferry::cost::CostGroup total = ferry::cost::totalCost(rows);
        QCOMPARE(total.runs, 5);
        QCOMPARE(total.unpriced, 1);
        QCOMPARE(total.seconds, csvSeconds);
        QCOMPARE(total.cost, csvCost);
        QCOMPARE(total.cost, 1.8 + 0.6 + 2.4 + 0.0);
        for (const auto grouping : {ferry::cost::Grouping::Target, ferry::cost::Grouping::Sweep}) {
            double cost = 0, seconds = 0;
            int runs = 0, unpriced = 0;
            for (const ferry::cost::CostGroup &g : ferry::cost::groupCosts(rows, grouping)) {
                cost += g.cost;
                seconds += g.seconds;
                runs += g.runs;
                unpriced += g.unpriced;
            }
            QCOMPARE(cost, total.cost);
            QCOMPARE(seconds, total.seconds);
            QCOMPARE(runs, total.runs);
            QCOMPARE(unpriced, total.unpriced);
        }
    }

    void groupsByTargetSweepAndTag()
    {
        const QList<ferry::cost::RunCost> rows =
            ferry::cost::costReport(reportHistory(), kReportRates, 0, kReportDay + 86400000);
        const QList<ferry::cost::CostGroup> bySweep = ferry::cost::groupCosts(rows, ferry::cost::Grouping::Sweep);
        QCOMPARE(bySweep.size(), 2);
        QCOMPARE(bySweep[0].name, u"(none)"_s);
        QCOMPARE(bySweep[1].name, u"sweep-a"_s);
        QCOMPARE(bySweep[1].runs, 2);
        QCOMPARE(bySweep[1].cost, 2.4);
        // A run with two tags counts in each.
        const QList<ferry::cost::CostGroup> byTag = ferry::cost::groupCosts(rows, ferry::cost::Grouping::Tag);
        QCOMPARE(byTag.size(), 3);
        QCOMPARE(byTag[1].name, u"baseline"_s);
        QCOMPARE(byTag[1].runs, 2);
        QCOMPARE(byTag[2].name, u"paper"_s);
        QCOMPARE(byTag[2].cost, 0.6);
        const QString csv = ferry::cost::groupCsv(ferry::cost::groupCosts(rows, ferry::cost::Grouping::Target));
        QVERIFY2(csv.startsWith(u"group,runs,seconds,cost,unpriced_runs\n"_s), qPrintable(csv));
        QVERIFY2(csv.contains(u"\nssh:gpu1,1,900.000,0,1\n"_s), qPrintable(csv));
        QVERIFY(ferry::cost::groupingFromText(u"tag"_s) == ferry::cost::Grouping::Tag);
        QVERIFY(ferry::cost::groupingFromText(u"month"_s) == ferry::cost::Grouping::Month);
        QVERIFY(!ferry::cost::groupingFromText(u"day"_s));
        // By the month of the start (local time): a run of the next month apart.
        QList<ferry::run::RunRecord> records = reportHistory();
        const QDateTime day = QDateTime::fromMSecsSinceEpoch(kReportDay).toLocalTime();
        records[4].startedMs = day.addMonths(1).toMSecsSinceEpoch();
        records[4].finishedMs = records[4].startedMs + 900 * 1000;
        const QList<ferry::cost::CostGroup> byMonth =
            ferry::cost::groupCosts(ferry::cost::costReport(records, kReportRates, 0, kReportDay + 86400000LL * 62),
                                    ferry::cost::Grouping::Month);
        QCOMPARE(byMonth.size(), 2);
        QCOMPARE(byMonth[0].name, day.toString(u"yyyy-MM"_s));
        QCOMPARE(byMonth[0].runs, 4);
        QCOMPARE(byMonth[0].cost, 1.8 + 0.6 + 2.4 + 0.0);
        QCOMPARE(byMonth[1].name, day.addMonths(1).toString(u"yyyy-MM"_s));
        QCOMPARE(byMonth[1].unpriced, 1);
    }

    // --since leaves out the runs started before; a run still going counts until now.
    void sinceAndRunningRuns()
    {
        QList<ferry::run::RunRecord> records = reportHistory();
        QCOMPARE(ferry::cost::costReport(records, kReportRates, kReportDay + 120000, kReportDay).size(), 3);
        records[0].status = ferry::run::RunStatus::Running;
        records[0].finishedMs = 0;
        const ferry::cost::RunCost going = ferry::cost::costOf(records[0], kReportRates, kReportDay + 900000);
        QVERIFY(going.running);
        QCOMPARE(going.seconds, 900.0);
        QCOMPARE(*going.cost(), 0.9);
    }
};

FERRY_TEST_APPLESS_MAIN(TestCostReport)
#include "tst_costreport.moc"
