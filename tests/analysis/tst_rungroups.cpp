// Runs of a real store grouped by a parameter, tags, sweep and experiment (analysis/rungroups.h),
// a metric against another x (analysis/xaxis.h) and one value per run (analysis/runvalues.h).
#include "analysis/rungroups.h"
#include "analysis/runvalues.h"
#include "analysis/xaxis.h"
#include "support/testmain.h"

#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

constexpr double kGroupNaN = std::numeric_limits<double>::quiet_NaN();
constexpr qint64 kGroupStart = 1'764'000'000'000;

RunRecord groupRecord(const QString &id)
{
    RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    r.status = RunStatus::Succeeded;
    r.target = u"local"_s;
    r.createdMs = kGroupStart;
    r.startedMs = kGroupStart;
    r.spec = QJsonObject{{u"script"_s, u"train.py"_s}};
    return r;
}

QString groupLabels(const QList<RunGroup> &groups)
{
    QStringList text;
    for (const RunGroup &g : groups)
        text << g.label + u'[' + g.runIds.join(u',') + u']';
    return text.join(u"; "_s);
}

} // namespace

class TestRunGroups : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    std::unique_ptr<RunStore> m_store;

    QList<RunRecord> runs(const QStringList &ids) const
    {
        QList<RunRecord> result;
        for (const QString &id : ids)
            result << *m_store->run(id);
        return result;
    }

private Q_SLOTS:
    // r1..r5 with lr 0.01, 1e-3, 0.1, none, 0.01; tags, a sweep, an experiment; loss and accuracy.
    void initTestCase()
    {
        auto opened = RunStore::open(RunStore::pathInWorkspace(m_dir.path()));
        QVERIFY(opened);
        m_store = std::move(*opened);
        RunRecord r1 = groupRecord(u"r1"_s), r2 = groupRecord(u"r2"_s), r3 = groupRecord(u"r3"_s),
                  r4 = groupRecord(u"r4"_s), r5 = groupRecord(u"r5"_s);
        r1.tags = {u"baseline"_s, u"method/adam"_s};
        r2.tags = {u"method/sgd"_s};
        r5.tags = {u"baseline"_s, u"method/adam"_s};
        r3.spec[u"sweep"_s] = QJsonObject{{u"id"_s, u"sw1"_s}, {u"trial"_s, 0}};
        r5.spec[u"sweep"_s] = QJsonObject{{u"id"_s, u"sw1"_s}, {u"trial"_s, 1}};
        r2.experiment = u"exp"_s;
        r4.startedMs = 0; // imported: no start
        for (const RunRecord &r : {r1, r2, r3, r4, r5})
            m_store->createRun(r);
        m_store->setParams(u"r1"_s, {{u"lr"_s, u"0.01"_s}, {u"opt"_s, u"adam"_s}});
        m_store->setParams(u"r2"_s, {{u"lr"_s, u"1e-3"_s}, {u"opt"_s, u"sgd"_s}});
        m_store->setParams(u"r3"_s, {{u"lr"_s, u"0.1"_s}, {u"opt"_s, u"adam"_s}});
        m_store->setParams(u"r5"_s, {{u"lr"_s, u"0.01"_s}});
        // r1: loss at steps 0..10 (10 - s), tokens_seen every 5 steps (100 a step), accuracy.
        QList<MetricPoint> r1Points;
        for (int s = 0; s <= 10; ++s)
            r1Points << MetricPoint{u"loss"_s, double(s), 10.0 - s, kGroupStart + 1000 * s};
        for (int s = 0; s <= 5; s += 5)
            r1Points << MetricPoint{u"tokens_seen"_s, double(s), 100.0 * s, kGroupStart + 1000 * s};
        r1Points << MetricPoint{u"val_acc"_s, 1, 0.5, kGroupStart} << MetricPoint{u"val_acc"_s, 2, 0.9, kGroupStart}
                 << MetricPoint{u"val_acc"_s, 3, 0.7, kGroupStart};
        m_store->appendMetrics(u"r1"_s, r1Points, 1);
        // r5: loss at steps 0, 4, 8 (20, 16, 12), its last point NaN at step 9.
        m_store->appendMetrics(u"r5"_s,
                               {{u"loss"_s, 0, 20, kGroupStart},
                                {u"loss"_s, 4, 16, kGroupStart},
                                {u"loss"_s, 8, 12, kGroupStart},
                                {u"loss"_s, 9, kGroupNaN, kGroupStart}},
                               1);
        // r4: written at wall times from kGroupStart + 5000 on, never started.
        m_store->appendMetrics(u"r4"_s, {{u"loss"_s, 1, 3, kGroupStart + 5000}, {u"loss"_s, 2, 2, kGroupStart + 7000}},
                               1);
        m_store->flush();
        QCOMPARE(m_store->runs().size(), 5);
    }

    void groupsComeInTheOrderOfTheirKeys_data()
    {
        QTest::addColumn<QString>("by");
        QTest::addColumn<QString>("groups");
        QTest::newRow("a parameter, as numbers")
            << u"hp.lr"_s << u"lr=1e-3[r2]; lr=0.01[r1,r5]; lr=0.1[r3]; no lr[r4]"_s;
        QTest::newRow("a parameter, as text") << u"hp.opt"_s << u"opt=adam[r1,r3]; opt=sgd[r2]; no opt[r4,r5]"_s;
        QTest::newRow("all tags") << u"tag"_s
                                  << u"tags: baseline method/adam[r1,r5]; tags: method/sgd[r2]; no tags[r3,r4]"_s;
        QTest::newRow("tags with a prefix")
            << u"tag:method/"_s << u"tags: method/adam[r1,r5]; tags: method/sgd[r2]; no method/ tag[r3,r4]"_s;
        QTest::newRow("sweep") << u"sweep"_s << u"sweep sw1[r3,r5]; no sweep[r1,r2,r4]"_s;
        QTest::newRow("experiment") << u"experiment"_s << u"experiment exp[r2]; no experiment[r1,r3,r4,r5]"_s;
    }
    void groupsComeInTheOrderOfTheirKeys()
    {
        QFETCH(QString, by);
        QFETCH(QString, groups);
        const auto parsed = GroupBy::parse(by);
        QVERIFY2(parsed, parsed ? "" : qPrintable(parsed.error().toString()));
        QCOMPARE(parsed->text(), by);
        const QList<RunGroup> got = groupRuns(*m_store, runs({u"r1"_s, u"r2"_s, u"r3"_s, u"r4"_s, u"r5"_s}), *parsed);
        QCOMPARE(groupLabels(got), groups);
    }

    void groupByIsRefusedWithTheFormsThereAre()
    {
        for (const QString &text : {u"lr"_s, u"hp."_s, u"tag:"_s, u""_s, u"sweeps"_s}) {
            const auto parsed = GroupBy::parse(text);
            QVERIFY2(!parsed, qPrintable(text));
            QVERIFY(parsed.error().hint.contains(u"hp.NAME"_s));
        }
    }

    // lr=0.01: r1 (loss 10 - s, steps 0..10) and r5 (20, 16, 12 at 0, 4, 8; NaN at 9).
    void aggregateGroupsReadsEveryPoint()
    {
        const QList<RunRecord> chosen = runs({u"r1"_s, u"r5"_s, u"r3"_s});
        const QList<RunGroup> groups = groupRuns(*m_store, chosen, *GroupBy::parse(u"hp.lr"_s));
        const QList<GroupAggregate> got = aggregateGroups(*m_store, chosen, groups, u"loss"_s);
        QCOMPARE(got.size(), 2);
        QCOMPARE(got[0].group.label, u"lr=0.01"_s);
        QCOMPARE(got[1].runsWithoutMetric, QStringList{u"r3"_s});
        QVERIFY(got[1].points.empty());
        const std::vector<GroupStats> &p = got[0].points;
        QCOMPARE(p.size(), std::size_t(11)); // steps 0..10
        QCOMPARE(p[0].n, 2);
        QCOMPARE(p[0].mean, 15.0);
        QCOMPARE(p[2].mean, (8.0 + 18.0) / 2); // r5 between 0 and 4
        QCOMPARE(p[8].n, 2);
        QCOMPARE(p[8].max, 12.0);
        QCOMPARE(p[9].n, 1);  // r5's NaN at 9 and the segment to it
        QCOMPARE(p[10].n, 1); // r5 ended at 9
        QCOMPARE(p[10].mean, 0.0);
    }

    void metricAgainstEachAxis()
    {
        const RunRecord r1 = *m_store->run(u"r1"_s);
        const MetricAgainst steps = metricAgainst(*m_store, r1, u"loss"_s, XAxis{});
        QCOMPARE(steps.size(), 11);
        QCOMPARE(steps.x[3], 3.0);
        QCOMPARE(steps.y[3], 7.0);
        const MetricAgainst wall = metricAgainst(*m_store, r1, u"loss"_s, *XAxis::parse(u"wall"_s));
        QCOMPARE(wall.x[2], double(kGroupStart + 2000));
        const MetricAgainst time = metricAgainst(*m_store, r1, u"loss"_s, *XAxis::parse(u"time"_s));
        QCOMPARE(time.x[2], 2.0);
        // loss against tokens seen (at steps 0 and 5: interpolated between, none after 5).
        const MetricAgainst tokens = metricAgainst(*m_store, r1, u"loss"_s, *XAxis::parse(u"metrics.tokens_seen"_s));
        QCOMPARE(tokens.size(), 6);
        QCOMPARE(tokens.x, (std::vector<double>{0, 100, 200, 300, 400, 500}));
        QCOMPARE(tokens.y, (std::vector<double>{10, 9, 8, 7, 6, 5}));
        QCOMPARE(tokens.steps.back(), 5.0);
        const Curve curve = curveOf(tokens);
        QCOMPARE(curve.size(), 6);
        // A run that never started counts from its first point.
        const MetricAgainst never =
            metricAgainst(*m_store, *m_store->run(u"r4"_s), u"loss"_s, *XAxis::parse(u"time"_s));
        QCOMPARE(never.x, (std::vector<double>{0, 2}));
        // The same rule for a group on another axis: r1's loss against its tokens.
        const QList<GroupAggregate> grouped =
            aggregateGroups(*m_store, {r1}, {RunGroup{{}, {}, {u"r1"_s}}}, u"loss"_s, *XAxis::parse(u"tokens_seen"_s));
        QCOMPARE(grouped[0].points.size(), std::size_t(6));
        QCOMPARE(grouped[0].points[2].x, 200.0);
        QCOMPARE(grouped[0].points[2].mean, 8.0);
    }

    void xAxisTexts()
    {
        for (const QString &text : {u"step"_s, u"wall"_s, u"time"_s, u"metrics.tokens_seen"_s}) {
            const auto parsed = XAxis::parse(text);
            QVERIFY(parsed);
            QCOMPARE(parsed->text(), text);
        }
        QCOMPARE(XAxis::parse(u""_s)->kind, XAxis::Kind::Step);
        QCOMPARE(XAxis::parse(u"epoch"_s)->metric, u"epoch"_s);
        QCOMPARE(XAxis::parse(u"time"_s)->label(), u"time since start (s)"_s);
        QVERIFY(!XAxis::parse(u"metrics."_s));
    }

    void valuesOfRuns_data()
    {
        QTest::addColumn<QString>("spec");
        QTest::addColumn<QString>("values"); // run=text, sorted by run
        QTest::newRow("a number parameter") << u"hp.lr"_s << u"r1=0.01 r2=1e-3 r3=0.1 r5=0.01"_s;
        QTest::newRow("a text parameter") << u"hp.opt"_s << u"r1=adam r2=sgd r3=adam"_s;
        QTest::newRow("last, a NaN last is none") << u"metrics.loss.last"_s << u"r1=0 r4=2"_s;
        QTest::newRow("a bare name is last") << u"loss"_s << u"r1=0 r4=2"_s;
        QTest::newRow("best of a loss: least") << u"metrics.loss.best"_s << u"r1=0 r4=2 r5=12"_s;
        QTest::newRow("best of an accuracy: most") << u"metrics.val_acc.best"_s << u"r1=0.9"_s;
        QTest::newRow("min") << u"metrics.val_acc.min"_s << u"r1=0.5"_s;
        QTest::newRow("max") << u"metrics.loss.max"_s << u"r1=10 r4=3 r5=20"_s;
        QTest::newRow("at a step, interpolated") << u"metrics.loss@2"_s << u"r1=8 r4=2 r5=18"_s;
        QTest::newRow("at a step in a hole") << u"metrics.loss@8.5"_s << u"r1=1.5"_s;
    }
    void valuesOfRuns()
    {
        QFETCH(QString, spec);
        QFETCH(QString, values);
        const auto parsed = RunValueSpec::parse(spec);
        QVERIFY2(parsed, parsed ? "" : qPrintable(parsed.error().toString()));
        const QHash<QString, RunValue> got = runValues(*m_store, m_store->runs(), *parsed);
        QStringList text;
        for (auto it = got.cbegin(); it != got.cend(); ++it)
            text << it.key() + u'=' + it->text;
        text.sort();
        QCOMPARE(text.join(u' '), values);
        if (parsed->isMetric()) {
            for (const RunValue &v : got)
                QVERIFY(v.number && std::isfinite(*v.number));
        }
        QCOMPARE(got.value(u"r2"_s).number.has_value(), spec == "hp.lr"_L1); // "sgd" is no number
    }

    void valueSpecs()
    {
        QCOMPARE(RunValueSpec::parse(u"metrics.loss@1000"_s)->text(), u"metrics.loss@1000"_s);
        QCOMPARE(RunValueSpec::parse(u"metrics.a.b.best"_s)->name, u"a.b"_s);
        QCOMPARE(RunValueSpec::parse(u"val_acc"_s)->text(), u"metrics.val_acc.last"_s);
        RunValueSpec best = *RunValueSpec::parse(u"metrics.loss.best"_s);
        QVERIFY(!best.higher());
        best.higherIsBetter = true; // a sweep's goal says so
        QVERIFY(best.higher());
        QCOMPARE(runValues(*m_store, runs({u"r1"_s}), best).value(u"r1"_s).number, std::optional<double>(10));
        for (const QString &bad : {u"metrics.loss"_s, u"metrics.loss.mean"_s, u"metrics.loss@x"_s, u"hp."_s, u""_s})
            QVERIFY2(!RunValueSpec::parse(bad), qPrintable(bad));
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunGroups)
#include "tst_rungroups.moc"
