// `ferry runs aggregate` and `ferry runs importance` through the built `ferry` on a real store: the
// CSV's numbers are numpy's on the same points (runs on different step grids, a repeated step, a
// NaN, a run ending early), runs named by id starts or chosen by --where, and bad input refused.
#include "store/runstore.h"
#include "support/cli.h"
#include "support/testmain.h"
#include "tst_runsanalysiscli_data.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>
#include <random>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

using ferry::test::runFerry;
using Result = ferry::test::CliResult;

constexpr double kAnalysisNaN = std::numeric_limits<double>::quiet_NaN();

struct AnalysisSeries {
    QString run;
    QString lr; // empty: the run has none
    QList<std::pair<double, double>> points;
};

} // namespace

class TestRunsAnalysisCli : public QObject {
    Q_OBJECT
private:
    QTemporaryDir m_dir;
    QList<AnalysisSeries> m_series;
    const QStringList m_grouped{u"grp-a1"_s, u"grp-a2"_s, u"grp-a3"_s, u"grp-b1"_s,
                                u"grp-b2"_s, u"grp-c"_s,  u"grp-d"_s};

    Result aggregate(const QStringList &extra)
    {
        return runFerry(m_dir.path(), QStringList{u"runs"_s, u"aggregate"_s} + extra);
    }

    // The numpy reference's verdict on `csv`, the runs of `series` grouped by their lr.
    QJsonObject numpyVerdict(const QString &csv, const QString &band, const QList<AnalysisSeries> &series)
    {
        QJsonObject groups;
        for (const AnalysisSeries &s : series) {
            if (s.points.isEmpty())
                continue;
            QJsonArray steps, values;
            for (const auto &[step, value] : s.points) {
                steps.append(step);
                values.append(std::isnan(value) ? QJsonValue() : QJsonValue(value));
            }
            QJsonArray runs = groups[s.lr].toArray();
            runs.append(QJsonArray{steps, values});
            groups[s.lr] = runs;
        }
        const QByteArray input =
            QJsonDocument(QJsonObject{{u"groups"_s, groups}, {u"csv"_s, csv}, {u"band"_s, band}}).toJson();
        const auto run = ferry::test::runCommand(
            u"/usr/bin/python3"_s, {u"-c"_s, QString::fromUtf8(ferry::test::kAggregateReference)}, {}, input);
        if (run.code != 0)
            qWarning("python: %s", run.err.constData());
        return QJsonDocument::fromJson(run.out).object();
    }

private Q_SLOTS:
    // lr=0.01: a1 every step 0..40, a2 every 3rd step to 60 (ends later), a3 at half steps from 5
    // to 25 with step 10 written twice and a NaN at 15. lr=0.1: b1 every 5th step to 50, b2 odd
    // steps 1..39. grp-c (lr=0.1) has no val_loss; grp-d no lr. Runs tagged `imp` for importance.
    void initTestCase()
    {
        auto opened = RunStore::open(RunStore::pathInWorkspace(m_dir.path()));
        QVERIFY(opened);
        std::unique_ptr<RunStore> store = std::move(*opened);
        const auto add = [&](const QString &run, const QString &lr, double from, double to, double every,
                             double scale) {
            AnalysisSeries s{run, lr, {}};
            for (double step = from; step <= to; step += every)
                s.points.append({step, scale * std::exp(-step / 20) + 0.01 * std::sin(step * 7 + scale)});
            m_series.append(s);
        };
        add(u"grp-a1"_s, u"0.01"_s, 0, 40, 1, 1.0);
        add(u"grp-a2"_s, u"0.01"_s, 0, 60, 3, 1.3);
        add(u"grp-a3"_s, u"0.01"_s, 5, 25, 0.5, 0.8);
        m_series.last().points.append({10, 0.123}); // step 10 again: the later is its value
        for (auto &[step, value] : m_series.last().points) {
            if (step == 15)
                value = kAnalysisNaN;
        }
        add(u"grp-b1"_s, u"0.1"_s, 0, 50, 5, 2.0);
        add(u"grp-b2"_s, u"0.1"_s, 1, 39, 2, 1.7);
        m_series.append(AnalysisSeries{u"grp-c"_s, u"0.1"_s, {}});
        add(u"grp-d"_s, QString(), 2, 12, 2, 1.1);
        add(u"other"_s, u"0.01"_s, 0, 10, 1, 9.0);
        qint64 wall = 1'764'000'000'000;
        for (const AnalysisSeries &s : std::as_const(m_series)) {
            RunRecord r;
            r.id = s.run;
            r.name = u"train"_s;
            r.status = RunStatus::Succeeded;
            r.target = u"local"_s;
            r.createdMs = wall;
            store->createRun(r);
            if (!s.lr.isEmpty())
                store->setParams(s.run, {{u"lr"_s, s.lr}});
            QList<MetricPoint> points;
            for (const auto &[step, value] : s.points)
                points.append(MetricPoint{u"val_loss"_s, step, value, ++wall});
            points.append(MetricPoint{u"train_loss"_s, 0, 1, wall});
            store->appendMetrics(s.run, points, 1);
        }
        // For importance: val_loss a function of lr alone, noise a second parameter.
        std::mt19937_64 random(37);
        std::uniform_real_distribution<double> unit(0, 1);
        for (int i = 0; i < 30; ++i) {
            RunRecord r;
            r.id = u"imp-%1"_s.arg(i, 2, 10, QChar(u'0'));
            r.status = RunStatus::Succeeded;
            r.tags = {u"imp"_s};
            store->createRun(r);
            const double lr = std::pow(10.0, -4 + 3 * unit(random));
            store->setParams(
                r.id, {{u"lr"_s, QString::number(lr, 'g', 17)}, {u"noise"_s, QString::number(unit(random), 'g', 17)}});
            const double x = std::log10(lr) + 2.5;
            store->appendMetrics(r.id, {MetricPoint{u"val_loss"_s, 1, 0.2 + x * x, 1}}, 1);
        }
        store->flush();
    }

    void aggregateCsvIsNumpys_data()
    {
        QTest::addColumn<QString>("band");
        QTest::newRow("no band") << QString();
        QTest::newRow("std") << u"std"_s;
        QTest::newRow("minmax") << u"minmax"_s;
    }
    void aggregateCsvIsNumpys()
    {
        QFETCH(QString, band);
        QStringList arguments =
            m_grouped + QStringList{u"--group-by"_s, u"hp.lr"_s, u"--metric"_s, u"val_loss"_s, u"--csv"_s};
        if (!band.isEmpty())
            arguments << u"--band"_s << band;
        const Result r = aggregate(arguments);
        QVERIFY2(r.exitCode == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains(u"no point of val_loss in grp-c"_s), qPrintable(r.err));
        QVERIFY(r.out.startsWith(u"step,group,n,mean,std,min,max"_s));
        QList<AnalysisSeries> grouped = m_series;
        grouped.removeIf([](const AnalysisSeries &s) { return s.run == "other"_L1; });
        const QJsonObject verdict = numpyVerdict(r.out, band, grouped);
        QVERIFY2(verdict[u"mismatches"_s].toArray().isEmpty(),
                 QJsonDocument(verdict[u"mismatches"_s].toArray()).toJson().constData());
        QVERIFY(verdict[u"rows"_s].toInt() > 100);
        QCOMPARE(verdict[u"rows"_s].toInt(), verdict[u"expected"_s].toInt());
        // a3's NaN at 15 and the segments to it (14.5 to 15.5, both ends excluded): n is 2 at 15.
        QVERIFY(r.out.contains(u"\n14.5,0.01,3,"_s));
        QVERIFY(r.out.contains(u"\n15,0.01,2,"_s));
        QVERIFY(r.out.contains(u"\n15.5,0.01,3,"_s));
        QVERIFY(r.out.contains(u"\n16,0.01,3,"_s));
        QVERIFY(r.out.contains(u"\n60,0.01,1,"_s)); // a2 alone after a1 ends
        QVERIFY(r.out.contains(u"\n12,,1,"_s));     // grp-d: the group without lr, last
    }

    void runsByIdStartOrQuery()
    {
        const QStringList options{u"--group-by"_s, u"hp.lr"_s, u"--metric"_s, u"val_loss"_s, u"--csv"_s};
        const Result named = aggregate(QStringList{u"grp-a1"_s, u"grp-a2"_s, u"grp-a3"_s} + options);
        const Result byQuery = aggregate(QStringList{u"--where"_s, u"hp.lr = 0.01 and id ~ grp"_s} + options);
        QCOMPARE(byQuery.exitCode, 0);
        QCOMPARE(byQuery.out, named.out);
        const Result both = aggregate(QStringList{u"grp-a1"_s, u"grp-b1"_s, u"--where"_s, u"hp.lr = 0.1"_s} + options);
        QCOMPARE(both.exitCode, 0);
        QVERIFY(!both.out.contains(u",0.01,"_s));
        QVERIFY(both.out.contains(u",0.1,"_s));
        const Result ambiguous = aggregate(QStringList{u"grp-a"_s} + options);
        QCOMPARE(ambiguous.exitCode, 1);
        QVERIFY2(ambiguous.err.contains(u"matches 3 runs"_s), qPrintable(ambiguous.err));
        const Result none = aggregate(QStringList{u"grp-a1"_s, u"--where"_s, u"hp.lr = 5"_s} + options);
        QCOMPARE(none.exitCode, 1);
        QVERIFY(none.err.contains(u"no run matches --where"_s));
        const Result badQuery = aggregate(QStringList{u"--where"_s, u"hp.lr <"_s} + options);
        QCOMPARE(badQuery.exitCode, 1);
        QVERIFY2(badQuery.err.contains(u"ferry runs aggregate: --where: column"_s), qPrintable(badQuery.err));
    }

    void tableAndJson()
    {
        const Result table = aggregate({u"grp-b1"_s, u"grp-b2"_s, u"--group-by"_s, u"hp.lr"_s, u"--metric"_s,
                                        u"val_loss"_s, u"--band"_s, u"minmax"_s});
        QVERIFY2(table.exitCode == 0, qPrintable(table.err));
        QVERIFY2(table.out.contains(u"lr=0.1: grp-b1 grp-b2"_s), qPrintable(table.out));
        for (const QString &column : {u"STEP"_s, u"GROUP"_s, u"MEAN"_s, u"MEDIAN"_s, u"STD"_s, u"LOW"_s, u"HIGH"_s})
            QVERIFY2(table.out.contains(column), qPrintable(column));
        const Result json = aggregate({u"grp-a1"_s, u"grp-a2"_s, u"grp-d"_s, u"--group-by"_s, u"hp.lr"_s, u"--metric"_s,
                                       u"val_loss"_s, u"--json"_s});
        QCOMPARE(json.exitCode, 0);
        const QJsonObject o = ferry::test::jsonObject(json);
        QCOMPARE(o[u"groupBy"_s].toString(), u"hp.lr"_s);
        const QJsonArray groups = o[u"groups"_s].toArray();
        QCOMPARE(groups.size(), 2);
        QCOMPARE(groups[0][u"label"_s].toString(), u"lr=0.01"_s);
        QCOMPARE(groups[1][u"label"_s].toString(), u"no lr"_s);
        const QJsonObject points = groups[0][u"points"_s].toObject();
        const QJsonArray steps = points[u"step"_s].toArray();
        QCOMPARE(steps.size(), 41 + 7); // a1's 0..40 and a2's 42..60
        QCOMPARE(points[u"median"_s].toArray().size(), steps.size());
        QCOMPARE(points[u"n"_s].toArray()[0].toInt(), 2);
        QCOMPARE(points[u"median"_s].toArray()[0].toDouble(), points[u"mean"_s].toArray()[0].toDouble());
        // Another x: its column is named after it.
        const Result time = aggregate({u"grp-a1"_s, u"--metric"_s, u"val_loss"_s, u"--x"_s, u"time"_s, u"--csv"_s});
        QCOMPARE(time.exitCode, 0);
        QVERIFY2(time.out.startsWith(u"time_s,group,n,mean"_s), qPrintable(time.out.left(100)));
        // Without --group-by: every run one group.
        const Result all = aggregate({u"grp-a1"_s, u"grp-b1"_s, u"--metric"_s, u"val_loss"_s, u"--csv"_s});
        QCOMPARE(all.exitCode, 0);
        QVERIFY2(all.out.contains(u"\n0,all,2,"_s), qPrintable(all.out.left(200)));
    }

    void badInputIsRefused_data()
    {
        QTest::addColumn<QStringList>("arguments");
        QTest::addColumn<QString>("message");
        QTest::newRow("no metric") << QStringList{u"grp-a1"_s} << u"name the metric, --metric NAME"_s;
        QTest::newRow("no runs") << QStringList{u"--metric"_s, u"val_loss"_s} << u"name the runs (ID...)"_s;
        QTest::newRow("unknown run") << QStringList{u"nope"_s, u"--metric"_s, u"val_loss"_s} << u"no run 'nope'"_s;
        QTest::newRow("group by") << QStringList{u"grp-a1"_s, u"--metric"_s, u"val_loss"_s, u"--group-by"_s, u"lr"_s}
                                  << u"cannot group by 'lr'"_s;
        QTest::newRow("band") << QStringList{u"grp-a1"_s, u"--metric"_s, u"val_loss"_s, u"--band"_s, u"iqr"_s}
                              << u"--band is std"_s;
        QTest::newRow("x axis") << QStringList{u"grp-a1"_s, u"--metric"_s, u"val_loss"_s, u"--x"_s, u"metrics."_s}
                                << u"--x:"_s;
    }
    void badInputIsRefused()
    {
        QFETCH(QStringList, arguments);
        QFETCH(QString, message);
        const Result r = aggregate(arguments);
        QCOMPARE(r.exitCode, 1);
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(r.out.isEmpty());
    }

    void importance()
    {
        const Result json = runFerry(m_dir.path(), {u"runs"_s, u"importance"_s, u"--where"_s, u"tag = imp"_s,
                                                    u"--metric"_s, u"val_loss"_s, u"--json"_s});
        QVERIFY2(json.exitCode == 0, qPrintable(json.err));
        const QJsonObject o = ferry::test::jsonObject(json);
        QCOMPARE(o[u"metric"_s].toString(), u"metrics.val_loss.last"_s);
        QCOMPARE(o[u"runs"_s].toInt(), 30);
        const QJsonArray features = o[u"features"_s].toArray();
        QCOMPARE(features.size(), 2);
        QCOMPARE(features[0][u"name"_s].toString(), u"lr"_s);
        QVERIFY(features[0][u"importance"_s].toDouble() > 0.85);
        QVERIFY(features[1][u"importance"_s].toDouble() < 0.15);
        const Result table = runFerry(m_dir.path(), {u"runs"_s, u"importance"_s, u"--where"_s, u"tag = imp"_s,
                                                     u"--metric"_s, u"metrics.val_loss.best"_s});
        QCOMPARE(table.exitCode, 0);
        QVERIFY2(table.out.contains(u"PARAMETER"_s) && table.out.contains(u"CORRELATION"_s), qPrintable(table.out));
        const Result param =
            runFerry(m_dir.path(), {u"runs"_s, u"importance"_s, u"grp-a1"_s, u"--metric"_s, u"hp.lr"_s});
        QCOMPARE(param.exitCode, 1);
        QVERIFY2(param.err.contains(u"name a metric"_s), qPrintable(param.err));
        const Result one =
            runFerry(m_dir.path(), {u"runs"_s, u"importance"_s, u"grp-a1"_s, u"--metric"_s, u"val_loss"_s});
        QCOMPARE(one.exitCode, 1);
        QVERIFY2(one.err.contains(u"two runs or more"_s), qPrintable(one.err));
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunsAnalysisCli)
#include "tst_runsanalysiscli.moc"
