// Rates (cost/rates.h): what the user may write, the round trip through the settings, which rate
// prices a run (the most specific), its nodes or GPUs counted, and 0 never standing for unknown.
#include "cost/rates.h"
#include "support/testmain.h"

#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using ferry::cost::Rate;
using ferry::cost::RateUnit;

namespace {

ferry::run::RunSpec runOn(const QString &target, const QJsonObject &options = {})
{
    ferry::run::RunSpec spec;
    spec.target = *ferry::run::TargetSpec::parse(target);
    spec.target.options = options;
    return spec;
}

} // namespace

class TestRates : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void amountsParse_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<double>("amount");
        QTest::addColumn<int>("unit");
        QTest::newRow("per hour") << u"3.60/h"_s << 3.6 << int(RateUnit::Hour);
        QTest::newRow("dollar sign") << u"$3.60/h"_s << 3.6 << int(RateUnit::Hour);
        QTest::newRow("currency") << u"3.60 USD/h"_s << 3.6 << int(RateUnit::Hour);
        QTest::newRow("word") << u"2.5/hour"_s << 2.5 << int(RateUnit::Hour);
        QTest::newRow("node-hour") << u"4/node-h"_s << 4.0 << int(RateUnit::Hour);
        QTest::newRow("gpu-hour") << u"1.20/gpu-h"_s << 1.2 << int(RateUnit::GpuHour);
        QTest::newRow("free") << u"0"_s << 0.0 << int(RateUnit::Hour);
        QTest::newRow("free per hour") << u"0/h"_s << 0.0 << int(RateUnit::Hour);
        QTest::newRow("no leading digit") << u".5/h"_s << 0.5 << int(RateUnit::Hour);
    }
    void amountsParse()
    {
        QFETCH(QString, text);
        QFETCH(double, amount);
        QFETCH(int, unit);
        const auto rate = ferry::cost::parseRate(text, {});
        QVERIFY2(rate, rate ? "" : qPrintable(rate.error().toString()));
        QCOMPARE(rate->amount, amount);
        QCOMPARE(int(rate->unit), unit);
        QCOMPARE(rate->source, QString(ferry::cost::kSetByYou));
    }

    void wrongAmountsAreRefused_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("said");
        QTest::newRow("per what") << u"3.60"_s << u"say per what"_s;
        QTest::newRow("per day") << u"3.60/day"_s << u"not a unit"_s;
        QTest::newRow("euros") << u"€3/h"_s << u"not a rate"_s;
        QTest::newRow("negative") << u"-1/h"_s << u"not a rate"_s;
        QTest::newRow("words") << u"cheap"_s << u"not a rate"_s;
        QTest::newRow("huge") << u"99999999/h"_s << u"more than"_s;
        QTest::newRow("unknown instance") << u"aws:p99.huge"_s << u"no aws instance"_s;
        QTest::newRow("no spot price") << u"azure:Standard_ND96isr_H100_v5:spot"_s << u"no spot price"_s;
    }
    void wrongAmountsAreRefused()
    {
        QFETCH(QString, text);
        QFETCH(QString, said);
        const auto rate = ferry::cost::parseRate(text, ferry::cost::loadPriceCatalog(m_noUserCatalog.path()));
        QVERIFY(!rate);
        QVERIFY2(rate.error().toString().contains(said), qPrintable(rate.error().toString()));
    }

    // A catalog instance: its price, with the instance, region and the catalog's date as source.
    void catalogInstancesAreRates()
    {
        const ferry::cost::PriceCatalog catalog = ferry::cost::loadPriceCatalog(m_noUserCatalog.path());
        auto rate = ferry::cost::parseRate(u"aws:g5.xlarge"_s, catalog);
        QVERIFY(rate);
        QCOMPARE(rate->amount, 1.006);
        QCOMPARE(rate->unit, RateUnit::Hour);
        QCOMPARE(rate->source, u"aws g5.xlarge in us-east-1, on demand, catalog of 2026-12-07"_s);
        rate = ferry::cost::parseRate(u"aws:g5.xlarge@us-west-2"_s, catalog);
        QVERIFY(rate && rate->source.contains(u"us-west-2"_s));
        rate = ferry::cost::parseRate(u"aws:p3.2xlarge:spot"_s, catalog);
        QVERIFY(rate);
        QCOMPARE(rate->amount, 0.5197);
        QVERIFY(rate->source.contains(u"spot"_s));
    }

    void rateTargets_data()
    {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("checked"); // empty: refused
        QTest::newRow("local") << u"local"_s << u"local"_s;
        QTest::newRow("ssh") << u" ssh:gpu1 "_s << u"ssh:gpu1"_s;
        QTest::newRow("ssh with user") << u"ssh:me@10.0.0.5"_s << u"ssh:me@10.0.0.5"_s;
        QTest::newRow("cluster") << u"slurm:hpc"_s << u"slurm:hpc"_s;
        QTest::newRow("partition") << u"slurm:hpc/gpu"_s << u"slurm:hpc/gpu"_s;
        QTest::newRow("kernel") << u"kernel:ssh:gpu1"_s << u"kernel:ssh:gpu1"_s;
        QTest::newRow("kernel here") << u"kernel:local"_s << u"kernel:local"_s;
        QTest::newRow("container") << u"container"_s << QString();
        QTest::newRow("no host") << u"ssh:"_s << QString();
        QTest::newRow("option as host") << u"ssh:-oProxyCommand=x"_s << QString();
        QTest::newRow("partition on ssh") << u"ssh:a/b"_s << QString();
        QTest::newRow("bad partition") << u"slurm:hpc/a b"_s << QString();
        QTest::newRow("kernel of kernel") << u"kernel:kernel:local"_s << QString();
        QTest::newRow("cloud") << u"aws"_s << QString();
    }
    void rateTargets()
    {
        QFETCH(QString, text);
        QFETCH(QString, checked);
        const auto target = ferry::cost::checkRateTarget(text);
        QCOMPARE(target.hasValue(), !checked.isEmpty());
        if (target)
            QCOMPARE(*target, checked);
    }

    // Set, read back, changed, removed: the settings hold exactly what was set.
    void ratesRoundTripThroughTheSettings()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.ini"_s), QSettings::IniFormat);
        QVERIFY(ferry::cost::setRate(settings, u"local"_s, Rate{3.6, RateUnit::Hour, u"set by you"_s}));
        QVERIFY(!ferry::cost::setRate(settings, u"ssh:me@gpu/1"_s, Rate{1, RateUnit::Hour, {}}));
        QVERIFY(ferry::cost::setRate(settings, u"ssh:me@gpu1"_s, Rate{2.5, RateUnit::Hour, u"set by you"_s}));
        QVERIFY(ferry::cost::setRate(settings, u"slurm:hpc/gpu"_s, Rate{1.2, RateUnit::GpuHour, u"the centre"_s}));
        QVERIFY(ferry::cost::setRate(settings, u"ssh:free"_s, Rate{0, RateUnit::Hour, u"set by you"_s}));
        settings.sync();
        QSettings again(dir.filePath(u"ferry.ini"_s), QSettings::IniFormat);
        const ferry::cost::RatesRead read = ferry::cost::readRates(again);
        QVERIFY(read.problems.isEmpty());
        const ferry::cost::Rates expected{{u"local"_s, Rate{3.6, RateUnit::Hour, u"set by you"_s}},
                                          {u"ssh:me@gpu1"_s, Rate{2.5, RateUnit::Hour, u"set by you"_s}},
                                          {u"slurm:hpc/gpu"_s, Rate{1.2, RateUnit::GpuHour, u"the centre"_s}},
                                          {u"ssh:free"_s, Rate{0, RateUnit::Hour, u"set by you"_s}}};
        QCOMPARE(read.rates, expected);
        QVERIFY(ferry::cost::setRate(again, u"local"_s, Rate{1.25, RateUnit::Hour, u"set by you"_s}));
        ferry::cost::removeRate(again, u"ssh:me@gpu1"_s);
        const ferry::cost::Rates now = ferry::cost::readRates(again).rates;
        QCOMPARE(now.size(), 3);
        QCOMPARE(now.value(u"local"_s).amount, 1.25);
        QVERIFY(!now.contains(u"ssh:me@gpu1"_s));
    }

    // A hand-edited settings file: what cannot be a rate is left out and said, never read as 0.
    void unreadableSettingIsLeftOutAndSaid()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.ini"_s), QSettings::IniFormat);
        settings.setValue(u"rates/ssh%3Agpu1/amount"_s, u"lots"_s);
        settings.setValue(u"rates/ssh%3Agpu1/unit"_s, u"hour"_s);
        settings.setValue(u"rates/ssh%3Agpu2/amount"_s, u"2"_s);
        settings.setValue(u"rates/ssh%3Agpu2/unit"_s, u"fortnight"_s);
        settings.setValue(u"rates/local/amount"_s, u"1.5"_s);
        settings.setValue(u"rates/local/unit"_s, u"hour"_s);
        const ferry::cost::RatesRead read = ferry::cost::readRates(settings);
        QCOMPARE(read.rates.keys(), QStringList{u"local"_s});
        QCOMPARE(read.problems.size(), 2);
        QVERIFY(read.problems.first().message.contains(u"ssh:gpu1"_s));
    }

    void gpuHourIsForSlurmOnly()
    {
        QTemporaryDir dir;
        QSettings settings(dir.filePath(u"ferry.ini"_s), QSettings::IniFormat);
        const auto refused = ferry::cost::setRate(settings, u"ssh:gpu1"_s, Rate{1, RateUnit::GpuHour, {}});
        QVERIFY(!refused);
        QVERIFY(refused.error().message.contains(u"Slurm"_s));
        QVERIFY(ferry::cost::setRate(settings, u"kernel:slurm:hpc"_s, Rate{1, RateUnit::GpuHour, {}}));
        QVERIFY(!ferry::cost::setRate(settings, u"local"_s, Rate{-1, RateUnit::Hour, {}}));
        QVERIFY(!ferry::cost::setRate(settings, u"local"_s, Rate{qQNaN(), RateUnit::Hour, {}}));
    }

    // The most specific rate set prices the run: a kernel's own, a partition's, the cluster's.
    void theMostSpecificRatePrices()
    {
        const ferry::cost::Rates rates{{u"slurm:hpc"_s, Rate{4, RateUnit::Hour, u"a"_s}},
                                       {u"slurm:hpc/gpu"_s, Rate{1.5, RateUnit::GpuHour, u"b"_s}},
                                       {u"kernel:slurm:hpc"_s, Rate{9, RateUnit::Hour, u"c"_s}}};
        auto applied = ferry::cost::rateFor(runOn(u"slurm:hpc"_s, {{u"partition"_s, u"cpu"_s}}), rates);
        QVERIFY(applied);
        QCOMPARE(applied->target, u"slurm:hpc"_s);
        QCOMPARE(applied->perHour(), 4.0);
        // Two nodes of two GPUs each at 1.5 a GPU-hour: 6 an hour.
        applied = ferry::cost::rateFor(
            runOn(u"slurm:hpc"_s, {{u"partition"_s, u"gpu"_s}, {u"nodes"_s, 2}, {u"gpusPerNode"_s, 2}}), rates);
        QCOMPARE(applied->target, u"slurm:hpc/gpu"_s);
        QCOMPARE(applied->units, 4.0);
        QCOMPARE(applied->perHour(), 6.0);
        // Two nodes at a node-hour rate: twice the rate.
        applied = ferry::cost::rateFor(runOn(u"slurm:hpc"_s, {{u"nodes"_s, 2}}), rates);
        QCOMPARE(applied->perHour(), 8.0);
        ferry::run::RunSpec kernel = runOn(u"slurm:hpc"_s);
        kernel.keeperArguments << u"--kernel"_s;
        QCOMPARE(ferry::cost::rateFor(kernel, rates)->target, u"kernel:slurm:hpc"_s);
        QCOMPARE(ferry::cost::rateTargetsFor(kernel), (QStringList{u"kernel:slurm:hpc"_s, u"slurm:hpc"_s}));
    }

    // Unknown is not 0: an SSH host without a rate has none; one set to 0 is free; this machine
    // is 0 by default, said to be the default.
    void zeroAndUnknownDiffer()
    {
        const ferry::cost::Rates rates{{u"ssh:free"_s, Rate{0, RateUnit::Hour, u"set by you"_s}}};
        QVERIFY(!ferry::cost::rateFor(runOn(u"ssh:gpu1"_s), rates).has_value());
        const auto free = ferry::cost::rateFor(runOn(u"ssh:free"_s), rates);
        QVERIFY(free && free->perHour() == 0 && !free->isDefault);
        for (const QString &here : {u"local"_s, u"container"_s, u"embedded"_s}) {
            const auto local = ferry::cost::rateFor(runOn(here), rates);
            QVERIFY(local && local->isDefault && local->perHour() == 0);
        }
        const auto set = ferry::cost::rateFor(runOn(u"container"_s), {{u"local"_s, Rate{3.6, RateUnit::Hour, {}}}});
        QVERIFY(set && !set->isDefault && set->perHour() == 3.6);
    }

private:
    QTemporaryDir m_noUserCatalog;
};

FERRY_TEST_APPLESS_MAIN(TestRates)
#include "tst_rates.moc"
