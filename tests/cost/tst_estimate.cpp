// The estimate before a run (cost/estimate.h) from histories with known durations: the exact
// arithmetic of each way of scaling, "no history" when there is none (never a number made up),
// which runs count, the cost at the rate times the nodes, and a sweep's total with its parallelism.
#include "cost/estimate.h"
#include "support/runhistory.h"
#include "support/testmain.h"

#include <QTest>

using namespace Qt::StringLiterals;
using ferry::cost::Scaling;
using ferry::test::epochs;
using ferry::test::PastRun;

namespace {

const QString kEstimateRoot = u"/work/project"_s;
constexpr qint64 kEstimateDay = 1796600000000; // 2026-12-07, for the runs' start times

QList<ferry::run::RunRecord> historyOf(const QList<PastRun> &runs)
{
    QList<ferry::run::RunRecord> records;
    for (const PastRun &r : runs)
        records << ferry::test::pastRecord(r, kEstimateRoot);
    return records;
}

// The run about to start: train.py here, with `hp`.
ferry::run::RunSpec planned(const QList<ferry::run::Hyperparameter> &hp, const QString &target = u"local"_s)
{
    return ferry::test::pastSpec(PastRun{u"planned"_s, u"train.py"_s, target, hp}, kEstimateRoot);
}

PastRun done(const QString &id, int epochCount, qint64 seconds, qint64 startedMinute)
{
    return PastRun{id, u"train.py"_s, u"local"_s, epochs(epochCount), kEstimateDay + startedMinute * 60000, seconds};
}

} // namespace

class TestEstimate : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // Nothing comparable: "no history", no duration and no cost, in words and in JSON.
    void noHistoryWhenThereIsNone()
    {
        const ferry::cost::Rates rates{
            {u"local"_s, ferry::cost::Rate{3.6, ferry::cost::RateUnit::Hour, u"set by you"_s}}};
        const QList<QList<PastRun>> histories{
            {},
            {PastRun{u"f"_s, u"train.py"_s, u"local"_s, epochs(10), kEstimateDay, 100, ferry::run::RunStatus::Failed}},
            {PastRun{u"c"_s, u"train.py"_s, u"local"_s, epochs(10), kEstimateDay, 100,
                     ferry::run::RunStatus::Cancelled}},
            {PastRun{u"r"_s, u"train.py"_s, u"local"_s, epochs(10), kEstimateDay, 0, ferry::run::RunStatus::Running}},
            {PastRun{u"o"_s, u"other.py"_s, u"local"_s, epochs(10), kEstimateDay, 100}},
            {PastRun{u"s"_s, u"train.py"_s, u"ssh:gpu1"_s, epochs(10), kEstimateDay, 100}},
            {PastRun{u"e"_s,
                     u"train.py"_s,
                     u"local"_s,
                     epochs(10),
                     kEstimateDay,
                     100,
                     ferry::run::RunStatus::Succeeded,
                     {},
                     u"/work/project/environments/torch.yml"_s}},
            // given no epochs: its duration is the script's default's, not 10's
            {PastRun{u"n"_s, u"train.py"_s, u"local"_s, {}, kEstimateDay, 100}},
        };
        for (const QList<PastRun> &history : histories) {
            const ferry::cost::CostEstimate e =
                ferry::cost::estimateCost(planned(epochs(10)), historyOf(history), rates);
            QCOMPARE(e.duration.runs, 0);
            QVERIFY(!e.duration.hasHistory());
            QVERIFY(!e.hasCost());
            const QString text = ferry::cost::estimateText(e, planned(epochs(10)));
            QVERIFY2(text.contains(u"no history"_s) && text.contains(u"Cost: unknown"_s), qPrintable(text));
            const QJsonObject json = ferry::cost::estimateJson(e);
            QCOMPARE(json[u"runs"_s].toInt(), 0);
            QVERIFY(json[u"durationSeconds"_s].isNull());
            QVERIFY(json[u"cost"_s].isNull());
            QCOMPARE(json[u"rate"_s].toObject()[u"perHour"_s].toDouble(), 3.6); // the rate is known all the same
        }
    }

    // The same work: the durations as they were; low, typical (the median) and high.
    void sameWorkGivesTheDurationsAsTheyWere()
    {
        const auto history =
            historyOf({done(u"a"_s, 10, 100, 0), done(u"b"_s, 10, 130, 10), done(u"c"_s, 10, 110, 20)});
        const ferry::cost::Rates rates{
            {u"local"_s, ferry::cost::Rate{3.6, ferry::cost::RateUnit::Hour, u"set by you"_s}}};
        const ferry::cost::CostEstimate e = ferry::cost::estimateCost(planned(epochs(10)), history, rates);
        QCOMPARE(e.duration.runs, 3);
        QCOMPARE(e.duration.scaling, Scaling::None);
        QCOMPARE(e.duration.lowSeconds, 100.0);
        QCOMPARE(e.duration.typicalSeconds, 110.0);
        QCOMPARE(e.duration.highSeconds, 130.0);
        QCOMPARE(e.duration.runIds, (QStringList{u"c"_s, u"b"_s, u"a"_s})); // newest first
        // 110 s at 3.60 an hour: 0.11; 100 s: 0.10; 130 s: 0.13.
        QCOMPARE(e.typicalCost(), 110.0 / 3600.0 * 3.6);
        QCOMPARE(e.lowCost(), 100.0 / 3600.0 * 3.6);
        QCOMPARE(e.highCost(), 130.0 / 3600.0 * 3.6);
        const QJsonObject json = ferry::cost::estimateJson(e);
        QCOMPARE(json[u"runs"_s].toInt(), 3);
        QCOMPARE(json[u"durationSeconds"_s].toObject()[u"typical"_s].toDouble(), 110.0);
        QCOMPARE(json[u"cost"_s].toObject()[u"high"_s].toDouble(), 130.0 / 3600.0 * 3.6);
        QCOMPARE(json[u"currency"_s].toString(), u"USD"_s);
        const QString text = ferry::cost::estimateText(e, planned(epochs(10)));
        QVERIFY2(text.contains(u"about 1m 50s (1m 40s to 2m 10s), from 3 comparable runs"_s), qPrintable(text));
        QVERIFY2(text.contains(u"Cost: about 0.11 USD (0.10 USD to 0.13 USD) at 3.60 USD/h (local, set by you)"_s),
                 qPrintable(text));
    }

    // Runs of one other work only: in proportion (nothing tells a start-up from the rest).
    void oneOtherWorkScalesInProportion()
    {
        const auto history = historyOf({done(u"a"_s, 10, 100, 0), done(u"b"_s, 10, 120, 1)});
        const ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(planned(epochs(25)), history);
        QCOMPARE(d.scaling, Scaling::Proportional);
        QCOMPARE(d.workParameter, u"epochs"_s);
        QCOMPARE(d.lowSeconds, 250.0);
        QCOMPARE(d.highSeconds, 300.0);
        QCOMPARE(d.typicalSeconds, 275.0); // the median of two: their mean
    }

    // Several works: a start-up and a time per epoch (the median slope between runs, the median
    // start-up), each run's duration moved by the slope to the planned epochs.
    void variedWorkFitsStartUpAndPerEpoch()
    {
        // 20 s start-up, 8 s an epoch; the last run slowed by 12 s.
        const auto history = historyOf(
            {done(u"a"_s, 10, 100, 0), done(u"b"_s, 20, 180, 1), done(u"c"_s, 30, 260, 2), done(u"d"_s, 20, 192, 3)});
        const ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(planned(epochs(40)), history);
        QCOMPARE(d.scaling, Scaling::Linear);
        QCOMPARE(d.runs, 4);
        // Slopes: a-b 8, a-c 8, a-d 9.2, b-c 8, c-d 6.8 (b-d: same epochs, none): median 8.
        QCOMPARE(d.secondsPerUnit, 8.0);
        // Each run at 40 epochs: 100+240, 180+160, 260+80, 192+160.
        QCOMPARE(d.lowSeconds, 340.0);
        QCOMPARE(d.highSeconds, 352.0);
        QCOMPARE(d.typicalSeconds, 340.0);
        // Fewer epochs than any run: the same line.
        QCOMPARE(ferry::cost::estimateDuration(planned(epochs(5)), history).typicalSeconds, 60.0);
    }

    // A fit that says the start-up takes less than nothing: in proportion instead.
    void aNegativeStartUpFallsBackToProportion()
    {
        const auto history = historyOf({done(u"a"_s, 10, 50, 0), done(u"b"_s, 20, 150, 1), done(u"c"_s, 30, 250, 2)});
        const ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(planned(epochs(40)), history);
        QCOMPARE(d.scaling, Scaling::Proportional);
        QCOMPARE(d.lowSeconds, 200.0);     // 50 × 4
        QCOMPARE(d.typicalSeconds, 300.0); // 150 × 2
        QCOMPARE(d.highSeconds, 1000.0 / 3.0);
    }

    // Steps come before epochs (max_steps overrides epochs in Hugging Face's trainer).
    void stepsScaleBeforeEpochs()
    {
        QList<PastRun> runs;
        for (int i = 0; i < 3; ++i)
            runs << PastRun{u"r%1"_s.arg(i),  u"train.py"_s,
                            u"local"_s,       {{u"max_steps"_s, u"1000"_s}, {u"epochs"_s, QString::number(i + 1)}},
                            kEstimateDay + i, 100 + i};
        const ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(
            planned({{u"max_steps"_s, u"2000"_s}, {u"epochs"_s, u"9"_s}}), historyOf(runs));
        QCOMPARE(d.workParameter, u"max_steps"_s);
        QCOMPARE(d.scaling, Scaling::Proportional);
        QCOMPARE(d.typicalSeconds, 202.0);
    }

    // The most recent twenty count: older runs (another machine's speed, another code) do not.
    void theMostRecentTwentyCount()
    {
        QList<PastRun> runs;
        for (int i = 0; i < 5; ++i)
            runs << done(u"old%1"_s.arg(i), 10, 1000, i);
        for (int i = 0; i < 20; ++i)
            runs << done(u"new%1"_s.arg(i), 10, 100, 100 + i);
        const ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(planned(epochs(10)), historyOf(runs));
        QCOMPARE(d.runs, ferry::cost::kEstimateMaxRuns);
        QCOMPARE(d.highSeconds, 100.0);
    }

    // The range spans the 20 most recent runs; the typical value is the median of the 3 most
    // recent (the machine as it is now). Estimated as of a moment, the nearest runs count.
    void typicalIsTheMostRecentRuns()
    {
        QList<PastRun> runs;
        for (int i = 0; i < 10; ++i) // slow then fast: another job shared the machine, then left
            runs << done(u"r%1"_s.arg(i), 10, i < 5 ? 200 : 100 + i, i);
        const auto history = historyOf(runs);
        ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(planned(epochs(10)), history);
        QCOMPARE(d.runs, 10);
        QCOMPARE(d.lowSeconds, 105.0);
        QCOMPARE(d.highSeconds, 200.0);
        QCOMPARE(d.typicalSeconds, 108.0); // the median of 107, 108, 109
        d = ferry::cost::estimateDuration(planned(epochs(10)), history, kEstimateDay + 60000); // as of run 1's start
        QCOMPARE(d.typicalSeconds, 200.0);
        QCOMPARE(d.runIds.first(), u"r1"_s);
    }

    // Slurm: the partition must match; the cost counts every node.
    void costIsDurationTimesRateTimesNodes()
    {
        const QJsonObject gpuPartition{{u"partition"_s, u"gpu"_s}, {u"nodes"_s, 2}};
        QList<PastRun> runs{PastRun{u"a"_s, u"train.py"_s, u"slurm:hpc"_s, epochs(10), kEstimateDay, 3600,
                                    ferry::run::RunStatus::Succeeded, gpuPartition},
                            PastRun{u"b"_s,
                                    u"train.py"_s,
                                    u"slurm:hpc"_s,
                                    epochs(10),
                                    kEstimateDay + 1,
                                    60,
                                    ferry::run::RunStatus::Succeeded,
                                    {{u"partition"_s, u"cpu"_s}}}};
        ferry::run::RunSpec spec = planned(epochs(10), u"slurm:hpc"_s);
        spec.target.options = gpuPartition;
        const ferry::cost::Rates rates{{u"slurm:hpc"_s, ferry::cost::Rate{1.5, ferry::cost::RateUnit::Hour, u"x"_s}}};
        const ferry::cost::CostEstimate e = ferry::cost::estimateCost(spec, historyOf(runs), rates);
        QCOMPARE(e.duration.runs, 1); // the cpu partition's run is not comparable
        QCOMPARE(e.rate->units, 2.0);
        QCOMPARE(e.typicalCost(), 3.0); // an hour × 1.50 × 2 nodes
        QVERIFY2(ferry::cost::estimateText(e, spec).contains(u"2 nodes × 1.50 USD/h = 3.00 USD/h"_s),
                 qPrintable(ferry::cost::estimateText(e, spec)));
        // No rate for the cluster: the duration, and the cost unknown (never 0).
        const ferry::cost::CostEstimate unpriced = ferry::cost::estimateCost(spec, historyOf(runs), {});
        QVERIFY(unpriced.duration.hasHistory() && !unpriced.hasCost());
        QVERIFY(ferry::cost::estimateJson(unpriced)[u"cost"_s].isNull());
        QVERIFY(ferry::cost::estimateJson(unpriced)[u"rate"_s].isNull());
        QVERIFY(ferry::cost::estimateText(unpriced, spec).contains(u"no rate is set for slurm:hpc"_s));
    }

    // The embedded trainer's runs have no script: the same training data makes them comparable.
    void embeddedRunsCompareByTheirData()
    {
        const auto embedded = [](const QString &id, const QString &data, int epochCount, qint64 seconds) {
            PastRun r{id, QString(), u"embedded"_s, epochs(epochCount), kEstimateDay, seconds};
            ferry::run::RunRecord record = ferry::test::pastRecord(r, kEstimateRoot);
            ferry::run::RunSpec spec = ferry::test::pastSpec(r, kEstimateRoot);
            spec.channels << ferry::run::DataChannel{u"training"_s, data};
            record.spec = spec.toJson();
            return std::pair{record, spec};
        };
        const auto [a, specA] = embedded(u"a"_s, u"/d/iris.csv"_s, 10, 20);
        const auto [b, specB] = embedded(u"b"_s, u"/d/other.csv"_s, 10, 500);
        ferry::run::RunSpec next = specA;
        next.id = u"next"_s;
        next.hyperparameters = epochs(20);
        const ferry::cost::DurationEstimate d = ferry::cost::estimateDuration(next, {a, b});
        QCOMPARE(d.runs, 1);
        QCOMPARE(d.typicalSeconds, 40.0);
    }

    // A sweep's total: the sum of the trials, and the time until the last ends with the parallelism.
    void sweepTotalWithItsParallelism()
    {
        QCOMPARE(ferry::cost::wallSeconds({30, 10, 10, 10}, 2), 30.0);
        QCOMPARE(ferry::cost::wallSeconds({10, 10, 10, 10, 10}, 2), 30.0);
        QCOMPARE(ferry::cost::wallSeconds({10, 20}, 1), 30.0);
        QCOMPARE(ferry::cost::wallSeconds({}, 4), 0.0);
        const auto history = historyOf({done(u"a"_s, 10, 100, 0), done(u"b"_s, 10, 120, 1)});
        const ferry::cost::Rates rates{{u"local"_s, ferry::cost::Rate{3.6, ferry::cost::RateUnit::Hour, {}}}};
        QList<ferry::cost::CostEstimate> trials;
        for (int n = 0; n < 4; ++n)
            trials << ferry::cost::estimateCost(planned(epochs(10)), history, rates);
        ferry::cost::TotalEstimate total = ferry::cost::totalEstimate(trials, 3);
        QVERIFY(total.complete());
        QCOMPARE(total.typicalSeconds, 440.0);     // 4 × 110
        QCOMPARE(total.typicalWallSeconds, 220.0); // 3, then 1
        QCOMPARE(total.lowWallSeconds, 200.0);
        QCOMPARE(*total.typicalCost, 440.0 / 3600.0 * 3.6);
        // One trial without history: no total at all.
        trials << ferry::cost::estimateCost(planned(epochs(10), u"ssh:gpu1"_s), history, rates);
        total = ferry::cost::totalEstimate(trials, 3);
        QVERIFY(!total.complete());
        QCOMPARE(total.withHistory, 4);
        QVERIFY(!total.typicalCost);
    }
};

FERRY_TEST_APPLESS_MAIN(TestEstimate)
#include "tst_estimate.moc"
