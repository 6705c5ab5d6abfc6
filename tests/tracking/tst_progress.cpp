// A run's progress and ETA (tracking/progress.h) from real output: progress.py run with Debian's
// Python and its real tqdm (a Hugging Face Trainer's header, bar and log dicts; a plain bar; a bar
// without a total), fed as the follower feeds it; Keras' lines and an epochs parameter; the ETA's
// arithmetic; and the idle GPU rule (tracking/idlegpu.h) over recorded utilisation samples with
// gaps, alone and as a gpu_idle alert over a real store.
#include "metrics/metricparser.h"
#include "metrics/terminaltext.h"
#include "support/files.h"
#include "support/process.h"
#include "support/testmain.h"
#include "tracking/alertwatch.h"
#include "tracking/idlegpu.h"
#include "tracking/progress.h"

#include <QTemporaryDir>
#include <QTest>

#include <optional>

using namespace Qt::StringLiterals;
using ferry::run::IdleGpuWatch;
using ferry::run::Progress;
using ferry::run::ProgressSource;
using ferry::run::ProgressTracker;

namespace {

constexpr qint64 kProgressT0 = 1'800'000'000'000;

QString progressScript()
{
    return QStringLiteral(FERRY_TEST_DATA "/runs/scripts/progress.py");
}

// progress.py's output (stdout and stderr, as a run's log has them); empty when it failed.
QByteArray progressOutput(const QStringList &arguments)
{
    const auto out = ferry::test::runCommand(u"/usr/bin/python3"_s, QStringList{progressScript()} + arguments);
    if (out.code != 0) {
        qWarning("progress.py: %s", out.err.constData());
        return {};
    }
    return out.out;
}

// Feeds one log line as the follower does: its redraws' last bar, then its records with the points
// the parser finds in them.
void feedLine(ProgressTracker &tracker, ferry::run::MetricParser &parser, QByteArrayView line, qint64 wallMs)
{
    tracker.feedRedraws(line, wallMs);
    for (const QString &record : ferry::run::metricRecords(line)) {
        QList<ferry::run::MetricPoint> points;
        parser.parseLine(record, wallMs, points);
        tracker.feed(record, wallMs, points.constData(), points.size());
    }
}

ferry::run::RunSpec specWith(const QString &name, const QString &value)
{
    ferry::run::RunSpec spec;
    spec.hyperparameters << ferry::run::Hyperparameter{name, value};
    return spec;
}

} // namespace

class TestProgress : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void huggingFaceStepsOfTheTotalOptimizationSteps()
    {
        const QByteArray output = progressOutput({u"--mode"_s, u"hf"_s, u"--steps"_s, u"200"_s});
        QVERIFY(!output.isEmpty());
        ProgressTracker tracker;
        ferry::run::MetricParser parser;
        qint64 at = kProgressT0;
        std::optional<Progress> atHalfEpoch;
        for (const QByteArray &line : output.split('\n')) {
            if (line.startsWith("  Total optimization steps"))
                QVERIFY(!tracker.progress(kProgressT0, at)); // a total, but no step yet
            feedLine(tracker, parser, line, at += 1000);
            if (line.contains("'epoch': 0.5}"))
                atHalfEpoch = tracker.progress(kProgressT0, at);
        }
        QVERIFY(atHalfEpoch);
        QCOMPARE(atHalfEpoch->source, ProgressSource::Steps);
        QCOMPARE(atHalfEpoch->done, 50.0);
        QCOMPARE(atHalfEpoch->total, 200.0);
        QCOMPARE(atHalfEpoch->fraction, 0.25);
        QCOMPARE(atHalfEpoch->text(), u"25.0 % (50/200 steps)"_s);
        const auto end = tracker.progress(kProgressT0, at);
        QVERIFY(end);
        QCOMPARE(end->fraction, 1.0);
        QCOMPARE(end->etaSeconds.value_or(-1), 0.0);
    }

    // A bar still being drawn (no newline yet): the last redraw counts, as the follower's peek at
    // the log's unfinished line reads it.
    void aPlainBarWhileItIsDrawn()
    {
        const QByteArray output = progressOutput({u"--mode"_s, u"bar"_s, u"--steps"_s, u"80"_s});
        QVERIFY(!output.isEmpty());
        const qsizetype at = output.indexOf("| 20/80 [");
        QVERIFY(at > 0);
        const QByteArray drawing = output.left(output.indexOf('\r', at));
        ProgressTracker tracker;
        tracker.feedRedraws(QByteArray(QByteArray("\r") + drawing), kProgressT0 + 2000);
        const auto p = tracker.progress(kProgressT0, kProgressT0 + 2000);
        QVERIFY(p);
        QCOMPARE(p->source, ProgressSource::Bar);
        QCOMPARE(p->fraction, 0.25);
        // Only one reading of known time: the ETA from the run's average, 2 s for a quarter.
        QCOMPARE(p->etaSeconds.value_or(-1), 6.0);
        ferry::run::MetricParser parser;
        feedLine(tracker, parser, output.trimmed(), kProgressT0 + 4000);
        QCOMPARE(tracker.progress(kProgressT0, kProgressT0 + 4000)->fraction, 1.0);
    }

    void aBarWithoutATotalGivesNoProgressNorETA()
    {
        const QByteArray output = progressOutput({u"--mode"_s, u"nototal"_s, u"--steps"_s, u"50"_s});
        QVERIFY(output.contains("50it ["));
        ProgressTracker tracker;
        ferry::run::MetricParser parser;
        for (const QByteArray &line : output.split('\n'))
            feedLine(tracker, parser, line, kProgressT0 + 1000);
        QVERIFY(!tracker.progress(kProgressT0, kProgressT0 + 5000));
    }

    void kerasEpochsAndTheBarWithinOne()
    {
        ProgressTracker tracker;
        ferry::run::MetricParser parser;
        feedLine(tracker, parser, "Epoch 1/4", kProgressT0);
        QCOMPARE(tracker.progress(kProgressT0, kProgressT0)->fraction, 0.0);
        feedLine(tracker, parser, "40/40 [==============================] - 1s 20ms/step - loss: 0.61",
                 kProgressT0 + 1);
        feedLine(tracker, parser, "Epoch 2/4", kProgressT0 + 2);
        feedLine(tracker, parser,
                 "10/40 [======>.......................] - ETA: 1s - loss: 0.52\r"
                 "20/40 [==============>...............] - ETA: 0s - loss: 0.51",
                 kProgressT0 + 3);
        const auto p = tracker.progress(kProgressT0, kProgressT0 + 3);
        QVERIFY(p);
        QCOMPARE(p->source, ProgressSource::Epochs);
        QCOMPARE(p->fraction, 0.375); // (1 + 20/40) / 4
    }

    // An epoch a script logs, over the epochs it was given: the parameter is the total.
    void anEpochMetricOverTheEpochsParameter()
    {
        ProgressTracker tracker(specWith(u"epochs"_s, u"10"_s));
        ferry::run::MetricParser parser;
        feedLine(tracker, parser, "epoch 3 loss=0.25 acc: 0.91", kProgressT0);
        const auto p = tracker.progress(kProgressT0, kProgressT0);
        QVERIFY(p);
        QCOMPARE(p->source, ProgressSource::Epochs);
        QCOMPARE(p->fraction, 0.3);
        QCOMPARE(p->text(), u"30.0 % (3/10 epochs)"_s);
        // Without the parameter an epoch is no progress.
        ProgressTracker bare;
        feedLine(bare, parser, "epoch 3 loss=0.25", kProgressT0);
        QVERIFY(!bare.progress(kProgressT0, kProgressT0));
    }

    // The rate over the recent readings; readings of unknown time (a log read again) do not count.
    void theETAIsTheRemainingFractionAtTheRecentRate()
    {
        ProgressTracker tracker;
        tracker.feed(u"  5%|5         | 10/100 [00:10<01:30, 1.00it/s]", kProgressT0);
        tracker.feed(u" 20%|##        | 20/100 [00:20<01:20, 1.00it/s]", kProgressT0 + 10'000);
        // 0.1 in 10 s: 0.8 left is 80 s from the newest reading, 5 s ago.
        QCOMPARE(tracker.progress(kProgressT0 - 100'000, kProgressT0 + 15'000)->etaSeconds.value_or(-1), 75.0);
        // The readings older than the window are left: the rate of the last five minutes.
        tracker.feed(u" 50%|#####     | 50/100 [05:20<05:20, 1.00it/s]", kProgressT0 + 310'000);
        tracker.feed(u" 60%|######    | 60/100 [06:20<04:20, 1.00it/s]", kProgressT0 + 370'000);
        // From 50 % at 310 s to 60 % at 370 s (the readings before are more than 5 minutes older).
        QCOMPARE(tracker.progress(kProgressT0, kProgressT0 + 370'000)->etaSeconds.value_or(-1), 240.0);
        ProgressTracker unknownTimes;
        unknownTimes.feed(u" 25%|##5       | 25/100 [00:20<01:20, 1.00it/s]", 0);
        // The run's average: a quarter in 100 s.
        QCOMPARE(unknownTimes.progress(kProgressT0, kProgressT0 + 100'000)->etaSeconds.value_or(-1), 300.0);
        QVERIFY(!unknownTimes.progress(0, kProgressT0)->etaSeconds); // no start known, no rate
    }

    void anIdleGpuIsSaidOnceAfterItsDurationWithoutAGap()
    {
        IdleGpuWatch watch(15 * 60'000);
        std::optional<IdleGpuWatch::Idle> said;
        qint64 t = kProgressT0;
        const auto feed = [&](int gpu, double percent) {
            const auto idle = watch.sample(gpu, percent, t);
            t += 5000;
            return idle;
        };
        QVERIFY(!feed(0, 35)); // busy
        const qint64 idleFrom = t;
        for (int i = 0; i < 180; ++i) // 0 % from idleFrom to 14:55 later
            QVERIFY(!feed(0, 0));
        said = feed(0, 0); // 15:00 after the first 0 %
        QVERIFY(said);
        QCOMPARE(said->gpu, 0);
        QCOMPARE(said->sinceMs, idleFrom);
        for (int i = 0; i < 20; ++i)
            QVERIFY(!feed(0, 0)); // said once per stretch
        QVERIFY(!feed(0, 1));     // busy again: a new stretch
        for (int i = 0; i < 100; ++i)
            QVERIFY(!feed(0, 0));
        // A gap of 3 minutes in the samples (Ferry's watcher stopped): nothing known of it, the count starts again.
        t += 180'000;
        for (int i = 0; i < 180; ++i)
            QVERIFY(!feed(0, 0));
        QVERIFY(feed(0, 0));
        // NaN (nvidia-smi could not read it) is not idle; another GPU counts apart; an older sample is left.
        IdleGpuWatch other(10'000);
        QVERIFY(!other.sample(1, 0, kProgressT0));
        QVERIFY(!other.sample(1, std::numeric_limits<double>::quiet_NaN(), kProgressT0 + 5000));
        QVERIFY(!other.sample(1, 0, kProgressT0 + 10'000));
        QVERIFY(!other.sample(2, 0, kProgressT0 + 10'000));
        QVERIFY(!other.sample(1, 0, kProgressT0 + 9000));
        QVERIFY(other.sample(1, 0, kProgressT0 + 20'000));
        QVERIFY(other.sample(2, 0, kProgressT0 + 20'000));
    }

    void theGpuIdleRuleFiresOverStoredSystemMetrics()
    {
        QTemporaryDir dir;
        auto store = ferry::run::RunStore::open(ferry::run::RunStore::pathInWorkspace(dir.path()));
        QVERIFY(store);
        ferry::run::RunRecord r;
        r.id = u"idle"_s;
        r.name = u"train"_s;
        r.target = u"local"_s;
        r.status = ferry::run::RunStatus::Running;
        r.createdMs = r.startedMs = kProgressT0;
        r.spec = QJsonObject{{u"script"_s, u"train.py"_s}};
        (*store)->createRun(r);
        QList<ferry::run::MetricPoint> points;
        for (int i = 0; i < 30; ++i) { // 2.5 minutes: GPU 0 busy for a minute then idle; GPU 1 busy
            points << ferry::run::MetricPoint{u"system/gpu0/utilization_percent"_s, double(i), i < 12 ? 80.0 : 0.0,
                                              kProgressT0 + i * 5000};
            points << ferry::run::MetricPoint{u"system/gpu1/utilization_percent"_s, double(i), 50.0,
                                              kProgressT0 + i * 5000};
        }
        (*store)->appendMetrics(r.id, points, 1);
        (*store)->flush();
        const auto rules = ferry::run::parseAlertRules(u"gpu_idle:1m"_s);
        QVERIFY(rules);
        QCOMPARE(rules->at(0).text(), u"gpu_idle:1m"_s);
        ferry::run::AlertWatch watch(**store, r.id, *rules);
        const QList<ferry::run::Alert> fired = watch.observe(r, kProgressT0 + 150'000);
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].kind, ferry::run::Alert::Kind::GpuIdle);
        QCOMPARE(fired[0].metric, u"system/gpu0/utilization_percent"_s);
        QCOMPARE(fired[0].summary(), u"run train (idle): GPU 0 idle (0 %) for 1m"_s);
        QVERIFY2(fired[0].body().startsWith(u"rule gpu_idle:1m; at 0 % since "_s), qPrintable(fired[0].body()));
        QVERIFY(watch.observe(r, kProgressT0 + 160'000).isEmpty()); // once
    }
};

FERRY_TEST_APPLESS_MAIN(TestProgress)
#include "tst_progress.moc"
