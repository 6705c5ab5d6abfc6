// Budgets in core/cost (docs/cost.md): the rate recorded at launch pricing a run whatever the rates
// now, a money cap turned into the time it buys, the caps' words, a month's budget and what the
// month's runs and kernels spent of it (exact arithmetic), and a sweep's budget judged before each
// trial from the trials so far and the next one's estimate.
#include "common/durationtext.h"
#include "cost/budget.h"
#include "cost/costreport.h"
#include "cost/estimate.h"
#include "run/budgetclock.h"
#include "run/rundirectory.h"
#include "support/files.h"
#include "support/runhistory.h"
#include "support/testmain.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

ferry::cost::Rates budgetRates(double localPerHour)
{
    return {{u"local"_s, ferry::cost::Rate{localPerHour, ferry::cost::RateUnit::Hour, u"set by you"_s}}};
}

} // namespace

class TestBudget : public QObject {
    Q_OBJECT
private Q_SLOTS:
    // The budget's steps, as every holder of a cap takes them (run/budgetclock.h): each once, in
    // order, even when a late look finds several due; the kill a grace after the stop.
    void theBudgetsStepsComeOnceAndInOrder()
    {
        using Step = ferry::run::BudgetClock::Step;
        ferry::run::RunBudget budget;
        budget.maxSeconds = 10;
        budget.graceSeconds = 5;
        ferry::run::BudgetClock clock(budget, u"r1"_s);
        QVERIFY(clock.holds());
        QCOMPARE(clock.next(7999), Step::None);
        QCOMPARE(clock.next(8000), Step::Warn);
        QCOMPARE(clock.next(9000), Step::None);
        QCOMPARE(clock.next(12000), Step::Stop); // looked at late: the grace counts from here
        QCOMPARE(clock.next(16999), Step::None);
        QCOMPARE(clock.next(17000), Step::Kill);
        QCOMPARE(clock.next(99000), Step::None);
        QCOMPARE(clock.logLine(Step::Stop),
                 u"budget: max-time 0:00:10 reached: stopping the run (SIGTERM now, SIGKILL in 5 s)"_s);
        QCOMPARE(clock.title(Step::Warn), u"Run r1: 80 % of its budget used"_s);
        QCOMPARE(clock.logLine(Step::Kill), u"the budget's grace of 5 s has passed: SIGKILL"_s);
        // Found past its cap at the first look: the word first, then the stop.
        ferry::run::BudgetClock late(budget, u"r2"_s);
        QCOMPARE(late.next(60000), Step::Warn);
        QCOMPARE(late.next(60000), Step::Stop);
        QCOMPARE(late.next(60000), Step::None);
        // No cap: nothing, ever.
        ferry::run::BudgetClock none(ferry::run::RunBudget{}, u"r3"_s);
        QVERIFY(!none.holds());
        QCOMPARE(none.next(1'000'000), Step::None);
    }

    void clockTextsReadAndWrite_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<qint64>("seconds"); // -1: refused
        QTest::newRow("H:MM:SS") << u"1:02:03"_s << qint64(3723);
        QTest::newRow("M:SS") << u"2:30"_s << qint64(150);
        QTest::newRow("seconds") << u"90"_s << qint64(90);
        QTest::newRow("many hours") << u"100:00:00"_s << qint64(360000);
        QTest::newRow("minutes past 59") << u"1:60:00"_s << qint64(-1);
        QTest::newRow("one digit minutes") << u"1:2:03"_s << qint64(-1);
        QTest::newRow("a fraction") << u"1.5"_s << qint64(-1);
        QTest::newRow("negative") << u"-5"_s << qint64(-1);
        QTest::newRow("four parts") << u"1:00:00:00"_s << qint64(-1);
        QTest::newRow("empty") << QString() << qint64(-1);
    }
    void clockTextsReadAndWrite()
    {
        QFETCH(QString, text);
        QFETCH(qint64, seconds);
        const auto read = ferry::parseClockText(text);
        QCOMPARE(read.value_or(-1), seconds);
        if (seconds >= 3600)
            QCOMPARE(ferry::clockText(seconds), text);
    }

    // A money cap is the time it buys at the rate in force: ceil(cost / perHour × 3600) seconds.
    void aMoneyCapIsTheTimeItBuysAtTheRate()
    {
        ferry::run::RunSpec spec;
        spec.id = u"r1"_s;
        spec.script = u"t.py"_s;
        spec.target = *ferry::run::TargetSpec::parse(u"local"_s);
        spec.budget.maxCost = 0.5;
        QVERIFY(ferry::cost::recordRateAndBudget(spec, budgetRates(7.0)));
        QCOMPARE(spec.budget.perHour, 7.0);
        QCOMPARE(spec.budget.costSeconds, qint64(258)); // 0.5 / 7 × 3600 = 257.14...
        QCOMPARE(spec.budget.limitSeconds(), qint64(258));
        QCOMPARE(spec.rate.value(u"amount"_s).toDouble(), 7.0);
        QCOMPARE(spec.budget.reachedText(), u"budget: max-cost 0.50 USD reached (0:04:18 at 7.00 USD/h)"_s);
        spec.budget.maxSeconds = 100; // the time comes first
        QCOMPARE(spec.budget.limitSeconds(), qint64(100));
        QCOMPARE(spec.budget.reachedText(), u"budget: max-time 0:01:40 reached"_s);
        QCOMPARE(spec.budget.warningText(), u"80 % of the budget used: max-time 0:01:40"_s);
        // A rate of 0 never reaches a money cap: the time alone caps the run.
        QVERIFY(ferry::cost::recordRateAndBudget(spec, budgetRates(0)));
        QCOMPARE(spec.budget.costSeconds, qint64(0));
        QCOMPARE(spec.budget.limitSeconds(), qint64(100));
        // The budget travels in spec.json and back.
        const auto back = ferry::run::RunSpec::fromJson(spec.toJson());
        QVERIFY2(back, back ? "" : qPrintable(back.error().toString()));
        QCOMPARE(back->budget, spec.budget);
        QCOMPARE(back->rate, spec.rate);
    }

    void aMoneyCapNeedsAKnownRate()
    {
        ferry::run::RunSpec spec;
        spec.target = *ferry::run::TargetSpec::parse(u"slurm:hpc"_s);
        spec.budget.maxCost = 3;
        const auto refused = ferry::cost::recordRateAndBudget(spec, budgetRates(1));
        QVERIFY(!refused);
        QCOMPARE(refused.error().message, u"--max-cost needs a rate for slurm:hpc, and it has none"_s);
        QVERIFY(refused.error().hint.contains(u"ferry rates set slurm:hpc"_s));
        // Where nothing would hold a cap (the embedded trainer, in the window), none is taken.
        spec.target = *ferry::run::TargetSpec::parse(u"embedded"_s);
        const auto embedded = ferry::cost::recordRateAndBudget(spec, budgetRates(1));
        QVERIFY(!embedded);
        QVERIFY(embedded.error().message.contains(u"not for embedded"_s));
        // A container's watcher holds it (targets/containerbudget.h): taken.
        spec.target = *ferry::run::TargetSpec::parse(u"container"_s);
        QVERIFY(ferry::cost::recordRateAndBudget(spec, budgetRates(1)));
        QCOMPARE(spec.budget.costSeconds, 3 * 3600);
        // An SSH host holds it (its runner, targets/remotescripts.h): taken.
        spec.target = *ferry::run::TargetSpec::parse(u"ssh:gpu1"_s);
        spec.budget.maxCost = 0;
        spec.budget.maxSeconds = 60;
        const auto ssh = ferry::cost::recordRateAndBudget(spec, budgetRates(1));
        QVERIFY2(ssh, ssh ? "" : qPrintable(ssh.error().toString()));
        QCOMPARE(spec.budget.limitSeconds(), 60);
    }

    // A hand-off's money cap buys time at the catalog's price of the instances the job runs on
    // (price × instances), not at the run's own rate: exact seconds, and the price named with the
    // catalog's date. An instance the catalog does not price is refused, never priced otherwise.
    void aHandOffsMoneyCapIsPricedAtTheCatalogInstance()
    {
        const QByteArray text = "# date: 2026-11-02\n"
                                "InstanceType,vCPUs,MemoryGiB,AcceleratorName,AcceleratorCount,Region,Price,SpotPrice\n"
                                "ml.g5.xlarge,4,16,A10G,1,us-east-1,1.408,\n"
                                "ml.g5.xlarge,4,16,A10G,1,eu-west-1,1.58,\n"
                                "ml.p3.2xlarge,8,61,V100,1,us-east-1,,\n";
        ferry::cost::PriceCatalog catalog;
        catalog.entries = ferry::cost::parseCatalog(text, u"/c/sagemaker.csv"_s, u"sagemaker"_s).entries;
        QCOMPARE(catalog.entries.size(), 3);
        ferry::run::RunBudget budget;
        budget.maxCost = 3;
        budget.costSeconds = 1080; // as recorded at launch at the run's own 10 USD/h: not what the job buys
        budget.perHour = 10;
        const auto priced = ferry::cost::budgetAtCatalogPrice(budget, u"sagemaker"_s, u"ml.g5.xlarge"_s, 2, catalog);
        QVERIFY2(priced, priced ? "" : qPrintable(priced.error().toString()));
        QCOMPARE(priced->budget.perHour, 2.816);            // 2 × 1.408, the catalog's first row
        QCOMPARE(priced->budget.costSeconds, qint64(3836)); // 3 / 2.816 × 3600 = 3835.23...
        QCOMPARE(priced->budget.limitSeconds(), qint64(3836));
        QCOMPARE(priced->budget.capText(), u"max-cost 3.00 USD (1:03:56 at 2.82 USD/h)"_s);
        QCOMPARE(priced->priceText(), u"2 × ml.g5.xlarge at 1.408 USD/h each: sagemaker ml.g5.xlarge in us-east-1, "
                                      u"on demand, catalog of 2026-11-02"_s);
        QCOMPARE(ferry::cost::secondsBought(3, 2.816), qint64(3836)); // the one rule, also launch's
        QCOMPARE(ferry::cost::secondsBought(3, 0), qint64(0));
        // A time cap shorter than what the money buys comes first.
        budget.maxSeconds = 600;
        const auto timeFirst = ferry::cost::budgetAtCatalogPrice(budget, u"sagemaker"_s, u"ml.g5.xlarge"_s, 1, catalog);
        QVERIFY(timeFirst);
        QCOMPARE(timeFirst->budget.costSeconds, qint64(7671)); // 3 / 1.408 × 3600 = 7670.45...
        QCOMPARE(timeFirst->budget.limitSeconds(), qint64(600));
        // Without a money cap nothing is priced, and an unknown instance does not matter.
        ferry::run::RunBudget timeOnly;
        timeOnly.maxSeconds = 600;
        const auto unpriced = ferry::cost::budgetAtCatalogPrice(timeOnly, u"sagemaker"_s, u"ml.x9.huge"_s, 1, catalog);
        QVERIFY(unpriced);
        QVERIFY(!unpriced->rate);
        QVERIFY(unpriced->priceText().isEmpty());
        QCOMPARE(unpriced->budget, timeOnly);
        // An instance the catalog does not list, or lists without an on-demand price: refused, saying
        // which and what to do.
        const auto unknown = ferry::cost::budgetAtCatalogPrice(budget, u"sagemaker"_s, u"ml.m5.xlarge"_s, 1, catalog);
        QVERIFY(!unknown);
        QCOMPARE(unknown.error().message,
                 u"--max-cost 3.00 USD cannot be priced on sagemaker: the price catalog has no sagemaker instance "
                 u"'ml.m5.xlarge'"_s);
        QVERIFY(unknown.error().hint.startsWith(u"cap the time instead (--max-time H:MM:SS), or name an instance "
                                                u"the catalog prices (ferry rates catalog --cloud sagemaker)"_s));
        const auto noPrice = ferry::cost::budgetAtCatalogPrice(budget, u"sagemaker"_s, u"ml.p3.2xlarge"_s, 1, catalog);
        QVERIFY(!noPrice);
        QVERIFY2(noPrice.error().message.contains(u"no on-demand price for sagemaker ml.p3.2xlarge"_s),
                 qPrintable(noPrice.error().message));
        QCOMPARE(noPrice.error().line, 5);
    }

    // The rate recorded at launch prices the run; a run without one, the rates now.
    void theRateAtLaunchPricesTheRunWhateverTheRatesNow()
    {
        const ferry::test::PastRun past{u"r1"_s, u"t.py"_s, u"local"_s, {}, 1000, 3600};
        ferry::run::RunSpec spec = ferry::test::pastSpec(past, u"/src"_s);
        ferry::run::RunRecord record = ferry::test::pastRecord(past, u"/src"_s);
        QCOMPARE(*ferry::cost::costOf(record, budgetRates(5), 0).cost(), 5.0);
        QVERIFY(ferry::cost::recordRateAndBudget(spec, budgetRates(2)));
        record.spec = spec.toJson();
        QCOMPARE(*ferry::cost::costOf(record, budgetRates(5), 0).cost(), 2.0);
        QCOMPARE(ferry::cost::costOf(record, budgetRates(5), 0).rate->rate.source, u"set by you"_s);
    }

    void monthBudgetsAreReadAndRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("shown"); // empty: refused
        QTest::newRow("an amount") << u"200"_s << u"200.00 USD"_s;
        QTest::newRow("dollars") << u"$12.5"_s << u"12.50 USD"_s;
        QTest::newRow("USD") << u"99 USD"_s << u"99.00 USD"_s;
        QTest::newRow("hours") << u"100h"_s << u"100 h"_s;
        QTest::newRow("hours with a space") << u"2.5 h"_s << u"2.5 h"_s;
        QTest::newRow("zero") << u"0"_s << QString();
        QTest::newRow("a word") << u"lots"_s << QString();
        QTest::newRow("per hour") << u"3/h"_s << QString();
    }
    void monthBudgetsAreReadAndRefused()
    {
        QFETCH(QString, text);
        QFETCH(QString, shown);
        const auto budget = ferry::cost::parseMonthBudget(text);
        QCOMPARE(budget ? ferry::cost::monthBudgetText(*budget) : QString(), shown);
    }

    void aMonthBudgetIsKeptInTheSettings()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.conf"_s), QSettings::IniFormat);
        QVERIFY(!ferry::cost::readMonthBudget(settings)->has_value());
        ferry::cost::setMonthBudget(settings, *ferry::cost::parseMonthBudget(u"100h"_s));
        QCOMPARE(ferry::cost::monthBudgetText(ferry::cost::readMonthBudget(settings)->value()), u"100 h"_s);
        settings.setValue(u"budget/month"_s, u"plenty"_s); // an edited file
        const auto unreadable = ferry::cost::readMonthBudget(settings);
        QVERIFY(!unreadable);
        QVERIFY(unreadable.error().message.contains(u"'plenty'"_s));
        ferry::cost::unsetMonthBudget(settings);
        QVERIFY(!ferry::cost::readMonthBudget(settings)->has_value());
    }

    // A workspace's own month wins over the settings' default ("none" too); its file is untrusted:
    // a link or an oversized file is refused, naming it.
    void aWorkspacesOwnMonthWinsOverTheDefault()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.conf"_s), QSettings::IniFormat);
        const QString state = dir.filePath(u"ws/.ferry"_s);
        ferry::cost::setMonthBudget(settings, *ferry::cost::parseMonthBudget(u"200"_s));
        auto inForce = ferry::cost::monthBudgetInForce(state, settings);
        QVERIFY(inForce && !inForce->workspaceOwn && inForce->budget->amount == 200.0);
        QVERIFY(ferry::cost::setWorkspaceMonthBudget(state, *ferry::cost::parseMonthBudget(u"20h"_s)));
        inForce = ferry::cost::monthBudgetInForce(state, settings);
        QVERIFY(inForce && inForce->workspaceOwn);
        QCOMPARE(ferry::cost::monthBudgetText(*inForce->budget), u"20 h"_s);
        QVERIFY(ferry::cost::setWorkspaceMonthBudget(state, std::nullopt));
        inForce = ferry::cost::monthBudgetInForce(state, settings);
        QVERIFY(inForce && inForce->workspaceOwn && !inForce->budget);
        QVERIFY(ferry::cost::unsetWorkspaceMonthBudget(state));
        QVERIFY(!ferry::cost::monthBudgetInForce(state, settings)->workspaceOwn);

        const QString file = state + u"/budget.json"_s;
        QVERIFY(ferry::test::writeFile(dir.filePath(u"real.json"_s), "{\"month\": \"5\"}"));
        QVERIFY(QFile::link(dir.filePath(u"real.json"_s), file)); // a link, even to a good file
        QVERIFY(!ferry::cost::monthBudgetInForce(state, settings));
        QVERIFY(QFile::remove(file));
        QVERIFY(ferry::test::writeFile(file, "{\"month\": \"" + QByteArray(5000, '9') + "\"}"));
        const auto big = ferry::cost::monthBudgetInForce(state, settings);
        QVERIFY(!big);
        QCOMPARE(big.error().path, file);
    }

    // This month's runs and kernels, each at its rate: last month's are not counted.
    void theMonthSpendsItsRunsAndKernels()
    {
        const QDateTime now = QDateTime::currentDateTime();
        const qint64 monthStart =
            QDateTime(QDate(now.date().year(), now.date().month(), 1), QTime(0, 0)).toMSecsSinceEpoch();
        const qint64 nowMs = now.toMSecsSinceEpoch();
        const QList<ferry::run::RunRecord> records{
            ferry::test::pastRecord({u"old"_s, u"t.py"_s, u"local"_s, {}, monthStart - 7200 * 1000, 3600}, u"/s"_s),
            ferry::test::pastRecord({u"a"_s, u"t.py"_s, u"local"_s, {}, monthStart + 1000, 1800}, u"/s"_s),
            ferry::test::pastRecord({u"b"_s, u"t.py"_s, u"ssh:nohost"_s, {}, monthStart + 2000, 900}, u"/s"_s)};
        // A kernel on this machine that ran 600 s (its spec written at its start, its end recorded).
        QTemporaryDir kernels;
        const QString folder = kernels.filePath(u"kernel-1"_s);
        QVERIFY(QDir().mkpath(folder));
        ferry::run::RunSpec kernel;
        kernel.id = u"kernel-1"_s;
        kernel.sourceDir = kernels.path();
        kernel.keeperArguments = {u"run"_s};
        const ferry::run::RunDirectory dir(folder);
        QVERIFY(dir.writeSpec(kernel));
        const QDateTime started = QDateTime::fromMSecsSinceEpoch(std::max(monthStart + 1000, nowMs - 3600 * 1000));
        QFile spec(dir.specFile());
        QVERIFY(spec.open(QIODevice::ReadWrite) && spec.setFileTime(started, QFileDevice::FileModificationTime));
        spec.close();
        ferry::run::ExitRecord end;
        end.exitCode = 0;
        end.finishedMs = started.toMSecsSinceEpoch() + 600 * 1000;
        QVERIFY(dir.writeExit(end));
        const QList<ferry::cost::KernelTime> times = ferry::cost::readKernelTimes(kernels.path());
        QCOMPARE(times.size(), 1);
        QCOMPARE(times[0].endedMs - times[0].startedMs, qint64(600 * 1000));

        const ferry::cost::MonthSpending s = ferry::cost::monthSpending(records, times, budgetRates(3.6), nowMs);
        QCOMPARE(s.runs, 2);
        QCOMPARE(s.kernels, 1);
        QCOMPARE(s.seconds, 1800.0 + 900 + 600);
        QCOMPARE(s.cost, 1.8 + 0.6); // run a and the kernel at 3.60 USD/h; run b's rate is unknown
        QCOMPARE(s.unpriced, 1);
        const auto money = *ferry::cost::parseMonthBudget(u"2.4"_s);
        QVERIFY(ferry::cost::monthSpent(s, money));
        QVERIFY(!ferry::cost::monthSpent(s, *ferry::cost::parseMonthBudget(u"2.41"_s)));
        QCOMPARE(ferry::cost::monthSpendingText(s, money),
                 u"2.40 USD of 2.40 USD spent in %1 (2 runs, 1 kernels; 1 at an unknown rate, not counted)"_s.arg(
                     s.monthName));
        QVERIFY(!ferry::cost::monthSpent(s, *ferry::cost::parseMonthBudget(u"1h"_s)));
        QVERIFY(ferry::cost::monthSpent(s, *ferry::cost::parseMonthBudget(u"0.9h"_s)));
    }

    // Done when (issue 38), the rule: the trials so far plus the next one's estimate, exactly.
    void aSweepStopsWhenTheNextTrialWouldCrossItsBudget()
    {
        const qint64 nowMs = QDateTime::currentMSecsSinceEpoch();
        const auto trial = [&](const QString &id, qint64 startedAgo, qint64 seconds) {
            return ferry::test::pastRecord({id, u"t.py"_s, u"local"_s, {}, nowMs - startedAgo * 1000, seconds},
                                           u"/s"_s);
        };
        // Two trials over, 10 s each, at 0.10 USD a second: 2.00 USD; the next is estimated 10 s.
        const QList<ferry::run::RunRecord> over{trial(u"t0"_s, 100, 10), trial(u"t1"_s, 50, 10)};
        const ferry::run::RunSpec next = ferry::test::pastSpec({u"t2"_s, u"t.py"_s, u"local"_s, {}}, u"/s"_s);
        const auto rates = budgetRates(360);
        QCOMPARE(ferry::cost::sweepBudgetStop(3.0, 0, over, next, over, rates, nowMs), QString()); // 3.00: fits
        QCOMPARE(ferry::cost::sweepBudgetStop(2.9, 0, over, next, over, rates, nowMs),
                 u"budget: max_cost 2.90 USD would be passed: 2.00 USD spent or committed by 2 trials, and the next "
                 u"trial (0:00:10, 1.00 USD: its estimate from 2 runs)"_s);
        QCOMPARE(ferry::cost::sweepBudgetStop(0, 30, over, next, over, rates, nowMs), QString());
        QCOMPARE(ferry::cost::sweepBudgetStop(0, 29, over, next, over, rates, nowMs),
                 u"budget: max_time 0:00:29 would be passed: 0:00:20 taken or committed by 2 trials, and the next "
                 u"trial (0:00:10, 1.00 USD: its estimate from 2 runs)"_s);
        // A running trial counts as the longer of its time so far (4 s) and the estimate (10 s).
        ferry::run::RunRecord running = trial(u"t2"_s, 4, 0);
        running.status = ferry::run::RunStatus::Running;
        running.finishedMs = 0;
        QList<ferry::run::RunRecord> withRunning = over;
        withRunning << running;
        QCOMPARE(ferry::cost::sweepBudgetStop(0, 40, withRunning, next, over, rates, nowMs), QString());
        QVERIFY(ferry::cost::sweepBudgetStop(0, 39, withRunning, next, over, rates, nowMs)
                    .startsWith(u"budget: max_time 0:00:39 would be passed: 0:00:30 taken or committed by 3 trials"_s));
        // Without history, the mean of the trials over (the store has none comparable here).
        QVERIFY(ferry::cost::sweepBudgetStop(0, 29, over, next, {}, rates, nowMs)
                    .endsWith(u"the next trial (0:00:10, 1.00 USD: the mean of the 2 trials over)"_s));
        // Nothing over and no history: the first trials start.
        QCOMPARE(ferry::cost::sweepBudgetStop(0.01, 1, {}, next, {}, rates, nowMs), QString());
        // A money cap without a rate cannot be judged: no trial starts.
        ferry::run::RunSpec remote = next;
        remote.target = *ferry::run::TargetSpec::parse(u"ssh:gpu1"_s);
        QVERIFY(
            ferry::cost::sweepBudgetStop(5, 0, {}, remote, {}, rates, nowMs).contains(u"needs a rate for ssh:gpu1"_s));
    }
};

FERRY_TEST_APPLESS_MAIN(TestBudget)
#include "tst_budget.moc"
