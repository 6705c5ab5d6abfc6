// AlertWatch (tracking/alertwatch.h) over a real run store: a threshold said once per crossing,
// NaN and infinity, a stall counted from the last point, the run's end said once after its last
// points, rules changed without saying a crossing again, and the built-in word at 80 % of a
// remote run's budget (once; not for a local run, whose supervisor says it; a queue's wait not
// counted).
#include "run/budgetclock.h"
#include "run/rundirectory.h"
#include "support/testmain.h"
#include "tracking/alertwatch.h"

#include <QDateTime>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

constexpr qint64 kAlertT0 = 1'800'000'000'000; // a fixed "now" for the watch's clock

QList<MetricPoint> alertPoints(const QString &name, double firstStep, const QList<double> &values, qint64 wallMs)
{
    QList<MetricPoint> points;
    for (qsizetype i = 0; i < values.size(); ++i)
        points << MetricPoint{name, firstStep + double(i), values[i], wallMs};
    return points;
}

QList<AlertRule> rulesOf(const QString &text)
{
    const auto rules = parseAlertRules(text);
    return rules ? *rules : QList<AlertRule>{};
}

} // namespace

class TestAlertWatch : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<RunStore> m_store;
    qint64 m_offset = 0;

    RunRecord makeRun(const QString &id)
    {
        RunRecord r;
        r.id = id;
        r.name = u"train"_s;
        r.target = u"local"_s;
        r.status = RunStatus::Running;
        r.createdMs = kAlertT0 - 60000;
        r.startedMs = kAlertT0 - 60000;
        r.spec = QJsonObject{{u"script"_s, u"train.py"_s}};
        m_store->createRun(r);
        return r;
    }
    // A run of `target` with a cap of `maxSeconds` (0: none), started at kAlertT0.
    RunRecord makeBudgetRun(const QString &id, const QString &target, qint64 maxSeconds)
    {
        RunSpec spec;
        spec.id = id;
        spec.script = u"train.py"_s;
        spec.sourceDir = u"/src"_s;
        spec.target = *TargetSpec::parse(target);
        spec.budget.maxSeconds = maxSeconds;
        RunRecord r;
        r.id = id;
        r.target = target;
        r.status = RunStatus::Running;
        r.createdMs = kAlertT0;
        r.startedMs = kAlertT0;
        r.spec = spec.toJson();
        m_store->createRun(r);
        return r;
    }
    void append(const QString &id, const QList<MetricPoint> &points)
    {
        m_store->appendMetrics(id, points, ++m_offset);
        m_store->flush();
    }

private Q_SLOTS:
    void initTestCase()
    {
        auto opened = RunStore::open(RunStore::pathInWorkspace(m_dir.path()));
        QVERIFY(opened);
        m_store = std::move(*opened);
    }

    void aThresholdIsSaidOncePerCrossing()
    {
        const RunRecord run = makeRun(u"cross"_s);
        append(run.id, alertPoints(u"loss"_s, 0, {3.0, 2.6, 2.4}, kAlertT0 - 1000));
        AlertWatch watch(*m_store, run.id, rulesOf(u"loss>2.5"_s));
        QList<Alert> fired = watch.observe(run, kAlertT0);
        QCOMPARE(fired.size(), 1); // 3.0 crossed; 2.6 still over; 2.4 under again
        QCOMPARE(fired[0].kind, Alert::Kind::Crossed);
        QCOMPARE(fired[0].metric, u"loss"_s);
        QCOMPARE(fired[0].value, 3.0);
        QCOMPARE(fired[0].step, 0.0);
        QCOMPARE(fired[0].rule, u"loss > 2.5"_s);
        QCOMPARE(fired[0].summary(), u"run train (cross): loss = 3 at step 0"_s);
        QCOMPARE(fired[0].body(), u"rule loss > 2.5"_s);
        QVERIFY(fired[0].isWarning());
        QVERIFY(watch.observe(run, kAlertT0 + 10).isEmpty()); // nothing new
        append(run.id, alertPoints(u"loss"_s, 3, {2.7, 2.8}, kAlertT0 + 20));
        fired = watch.observe(run, kAlertT0 + 30);
        QCOMPARE(fired.size(), 1); // crossed again at 2.7, 2.8 says nothing more
        QCOMPARE(fired[0].value, 2.7);
        QCOMPARE(fired[0].step, 3.0);
        append(run.id, alertPoints(u"loss"_s, 5, {2.9}, kAlertT0 + 40) + alertPoints(u"acc"_s, 0, {9}, kAlertT0 + 40));
        QVERIFY(watch.observe(run, kAlertT0 + 50).isEmpty()); // over still, and acc is no loss
    }

    void aBatchSaysEachRuleOncePerMetric()
    {
        const RunRecord run = makeRun(u"flap"_s);
        QList<double> values;
        for (int i = 0; i < 1000; ++i)
            values << (i % 2 == 0 ? 3.0 : 1.0);
        append(run.id, alertPoints(u"loss"_s, 0, values, kAlertT0 - 1000));
        AlertWatch watch(*m_store, run.id, rulesOf(u"loss>2.5"_s));
        QCOMPARE(watch.observe(run, kAlertT0).size(), 1); // 500 crossings in the history: one alert
    }

    void nanAndInfinityAreSaid()
    {
        const RunRecord run = makeRun(u"nan"_s);
        const double nan = std::numeric_limits<double>::quiet_NaN();
        const double inf = std::numeric_limits<double>::infinity();
        append(run.id, alertPoints(u"loss"_s, 0, {1.0, 0.5}, kAlertT0) + alertPoints(u"grad"_s, 0, {1.0}, kAlertT0));
        AlertWatch watch(*m_store, run.id, rulesOf(u"loss:nan, *:nan"_s));
        QVERIFY(watch.observe(run, kAlertT0).isEmpty());
        append(run.id, alertPoints(u"loss"_s, 2, {nan}, kAlertT0) + alertPoints(u"grad"_s, 1, {-inf}, kAlertT0));
        const QList<Alert> fired = watch.observe(run, kAlertT0 + 10);
        QCOMPARE(fired.size(), 3); // loss:nan on loss; *:nan on loss and on grad
        QStringList said;
        for (const Alert &alert : fired) {
            QCOMPARE(alert.kind, Alert::Kind::NotFinite);
            said << alert.rule + u'/' + alert.metric + u'/' + alertValueText(alert.value);
        }
        said.sort();
        QCOMPARE(said, (QStringList{u"*:nan/grad/-inf"_s, u"*:nan/loss/nan"_s, u"loss:nan/loss/nan"_s}));
        const auto loss =
            std::find_if(fired.cbegin(), fired.cend(), [](const Alert &a) { return a.metric == "loss"_L1; });
        QCOMPARE(loss->summary(), u"run train (nan): loss is nan at step 2"_s);
    }

    void aStallIsCountedFromTheLastPoint()
    {
        RunRecord run = makeRun(u"stall"_s);
        append(run.id, alertPoints(u"loss"_s, 0, {1.0}, kAlertT0 - 5000));
        AlertWatch watch(*m_store, run.id, rulesOf(u"stalled:2s, stalled:1m"_s));
        QList<Alert> fired = watch.observe(run, kAlertT0); // the last point is 5 s old
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].kind, Alert::Kind::Stalled);
        QCOMPARE(fired[0].rule, u"stalled:2s"_s);
        QCOMPARE(fired[0].summary(), u"run train (stall): no new point for 2s"_s);
        QVERIFY(fired[0].body().startsWith(u"rule stalled:2s; the last point came at "_s));
        QVERIFY(watch.observe(run, kAlertT0 + 1000, false).isEmpty()); // said once
        append(run.id, alertPoints(u"loss"_s, 1, {0.9}, kAlertT0 + 1500));
        QVERIFY(watch.observe(run, kAlertT0 + 2000).isEmpty()); // a point came: counting again
        QVERIFY(watch.observe(run, kAlertT0 + 3000, false).isEmpty());
        fired = watch.observe(run, kAlertT0 + 4100, false); // 2.1 s since the point was seen
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].rule, u"stalled:2s"_s);
        fired = watch.observe(run, kAlertT0 + 62100, false);
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].rule, u"stalled:1m"_s);
        // A run that has not started counts nothing; one without points counts from its start.
        RunRecord waiting = makeRun(u"waiting"_s);
        waiting.status = RunStatus::Building;
        AlertWatch notYet(*m_store, waiting.id, rulesOf(u"stalled:2s"_s));
        QVERIFY(notYet.observe(waiting, kAlertT0).isEmpty());
        waiting.status = RunStatus::Running;
        waiting.startedMs = kAlertT0 - 1000;
        QVERIFY(notYet.observe(waiting, kAlertT0).isEmpty());
        fired = notYet.observe(waiting, kAlertT0 + 1000);
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].body(), u"rule stalled:2s; no point since the run started"_s);
        // A follower's record that lacks the start it stored: counted from when it was first seen running.
        RunRecord unstamped = makeRun(u"unstamped"_s);
        unstamped.startedMs = 0;
        AlertWatch seen(*m_store, unstamped.id, rulesOf(u"stalled:2s"_s));
        QVERIFY(seen.observe(unstamped, kAlertT0).isEmpty());
        QVERIFY(seen.observe(unstamped, kAlertT0 + 1999).isEmpty());
        QCOMPARE(seen.observe(unstamped, kAlertT0 + 2000).size(), 1);
    }

    void theEndIsSaidOnceAfterTheLastPoints()
    {
        RunRecord run = makeRun(u"ends"_s);
        AlertWatch watch(*m_store, run.id, rulesOf(u"loss<0.1"_s));
        QVERIFY(watch.observe(run, kAlertT0).isEmpty());
        append(run.id, alertPoints(u"loss"_s, 0, {0.05}, kAlertT0));
        run.status = RunStatus::Failed;
        run.exitCode = 3;
        run.error = u"CUDA out of memory"_s;
        // The points stored before the end are read even when the follower saw nothing new.
        const QList<Alert> fired = watch.observe(run, kAlertT0 + 10, false);
        QCOMPARE(fired.size(), 2);
        QCOMPARE(fired[0].kind, Alert::Kind::Crossed);
        QCOMPARE(fired[1].kind, Alert::Kind::Ended);
        QCOMPARE(fired[1].status, RunStatus::Failed);
        QCOMPARE(fired[1].summary(), u"run train (ends) failed"_s);
        QCOMPARE(fired[1].body(), u"exit code 3: CUDA out of memory"_s);
        QVERIFY(fired[1].isWarning());
        QVERIFY(watch.ended());
        QVERIFY(watch.observe(run, kAlertT0 + 20).isEmpty());

        RunRecord good = makeRun(u"good"_s);
        good.status = RunStatus::Succeeded;
        good.exitCode = 0;
        good.name.clear();
        AlertWatch plain(*m_store, good.id);
        const QList<Alert> ended = plain.observe(good, kAlertT0);
        QCOMPARE(ended.size(), 1);
        QCOMPARE(ended[0].summary(), u"run good succeeded"_s);
        QVERIFY(ended[0].body().isEmpty());
        QVERIFY(!ended[0].isWarning());
        RunRecord lost = makeRun(u"lost"_s);
        lost.status = RunStatus::Lost;
        QCOMPARE(AlertWatch(*m_store, lost.id).observe(lost, kAlertT0).value(0).summary(),
                 u"run train (lost) was lost"_s);
        RunRecord early = makeRun(u"early"_s);
        early.status = RunStatus::Cancelled;
        early.error = u"stopped early: val_loss 0.9 at step 3"_s;
        QCOMPARE(AlertWatch(*m_store, early.id).observe(early, kAlertT0).value(0).summary(),
                 u"run train (early) stopped early"_s);
    }

    void eightyPercentOfARemoteRunsBudgetIsSaidOnce_data()
    {
        QTest::addColumn<QString>("target");
        QTest::newRow("ssh") << u"ssh:gpu1"_s;
        QTest::newRow("slurm") << u"slurm:hpc"_s;
    }
    void eightyPercentOfARemoteRunsBudgetIsSaidOnce()
    {
        QFETCH(QString, target);
        const RunRecord run = makeBudgetRun(u"budget-"_s + QString::fromLatin1(QTest::currentDataTag()), target, 100);
        AlertWatch watch(*m_store, run.id); // no rule: the budget's word is built in
        QVERIFY(watch.observe(run, kAlertT0 + 79'999).isEmpty());
        const QList<Alert> fired = watch.observe(run, kAlertT0 + 80'000);
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].kind, Alert::Kind::BudgetUsed);
        // The local supervisor's notification, word for word (one function for both).
        QCOMPARE(fired[0].summary(), u"Run %1: 80 % of its budget used"_s.arg(run.id));
        QCOMPARE(fired[0].summary(), BudgetClock(RunBudget{}, run.id).title(BudgetClock::Step::Warn));
        QCOMPARE(fired[0].body(), u"80 % of the budget used: max-time 0:01:40; it will be stopped at 100 %"_s);
        QVERIFY(fired[0].isWarning());
        QVERIFY(watch.observe(run, kAlertT0 + 90'000).isEmpty()); // once
        RunRecord over = run;
        over.status = RunStatus::Cancelled;
        const QList<Alert> ended = watch.observe(over, kAlertT0 + 101'000);
        QCOMPARE(ended.size(), 1);
        QCOMPARE(ended[0].kind, Alert::Kind::Ended);
    }

    void theBudgetsWordIsNotSaidTwiceOrOutOfPlace()
    {
        // A local run: its supervisor notifies at 80 % already.
        const RunRecord local = makeBudgetRun(u"budget-local"_s, u"local"_s, 100);
        QVERIFY(AlertWatch(*m_store, local.id).observe(local, kAlertT0 + 90'000).isEmpty());
        // No cap, no word.
        const RunRecord free = makeBudgetRun(u"budget-none"_s, u"ssh:gpu1"_s, 0);
        QVERIFY(AlertWatch(*m_store, free.id).observe(free, kAlertT0 + 90'000).isEmpty());
        // First seen past its cap: its runner is stopping it, its end will say why.
        const RunRecord past = makeBudgetRun(u"budget-past"_s, u"ssh:gpu1"_s, 100);
        AlertWatch late(*m_store, past.id);
        QVERIFY(late.observe(past, kAlertT0 + 100'000).isEmpty());
        QVERIFY(late.observe(past, kAlertT0 + 100'500).isEmpty());
        // A Slurm job waiting in the queue has not started its clock: from the last time it was
        // seen waiting.
        const RunRecord queued = makeBudgetRun(u"budget-queued"_s, u"slurm:hpc"_s, 100);
        AlertWatch watch(*m_store, queued.id);
        QVERIFY(watch.observe(queued, kAlertT0 + 90'000, true, true).isEmpty());
        QVERIFY(watch.observe(queued, kAlertT0 + 169'999, true, false).isEmpty());
        const QList<Alert> fired = watch.observe(queued, kAlertT0 + 170'000, true, false);
        QCOMPARE(fired.size(), 1);
        QCOMPARE(fired[0].kind, Alert::Kind::BudgetUsed);
    }

    // Said by one Ferry, remembered in the run's folder: a window opened again (a new watch over the
    // same folder) does not say it again; a watch without the folder says it as before.
    void theBudgetsWordIsRememberedInTheRunsFolder()
    {
        const RunRecord run = makeBudgetRun(u"budget-told"_s, u"ssh:gpu1"_s, 100);
        QTemporaryDir folder;
        AlertWatch first(*m_store, run.id);
        first.setRunDir(folder.path());
        QCOMPARE(first.observe(run, kAlertT0 + 85'000).size(), 1);
        QVERIFY(QFileInfo::exists(ferry::run::RunDirectory(folder.path()).budgetWarnedFile()));
        AlertWatch again(*m_store, run.id);
        again.setRunDir(folder.path());
        QVERIFY(again.observe(run, kAlertT0 + 86'000).isEmpty());
        QCOMPARE(AlertWatch(*m_store, run.id).observe(run, kAlertT0 + 86'000).size(), 1);
    }

    void changedRulesKeepWhatTheySaid()
    {
        const RunRecord run = makeRun(u"change"_s);
        append(run.id, alertPoints(u"loss"_s, 0, {3.0}, kAlertT0));
        AlertWatch watch(*m_store, run.id, rulesOf(u"loss>2.5"_s));
        QCOMPARE(watch.observe(run, kAlertT0).size(), 1);
        watch.setRules(rulesOf(u"loss:nan, loss > 2.5, loss>1, loss >1"_s));
        QCOMPARE(watch.rules().size(), 3); // each once
        append(run.id, alertPoints(u"loss"_s, 1, {3.1}, kAlertT0 + 10));
        const QList<Alert> fired = watch.observe(run, kAlertT0 + 20);
        QCOMPARE(fired.size(), 1); // the new rule loss>1 only: loss>2.5 is still over
        QCOMPARE(fired[0].rule, u"loss > 1"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestAlertWatch)
#include "tst_alertwatch.moc"
