// How runs are told apart (tracking/runlabels.h, review 2026-12-06 finding 1): the short id a
// legend shows, the name that says what differs among runs of one script, the key metrics, an id
// given by its start or its end (ambiguous ones refused with the candidates), and the one rule for
// a metric's "best" (tracking/rundiff.h: a throughput's is its greatest).
#include "support/testmain.h"
#include "tracking/rundiff.h"
#include "tracking/runlabels.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

NamedRun namedRun(const QString &id, const QString &name, const QList<Hyperparameter> &params)
{
    return NamedRun{id, name, params};
}

RunRecord recordOf(const QString &id)
{
    RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    return r;
}

} // namespace

class TestRunLabels : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void shortIdIsTheEndOfTheId()
    {
        QCOMPARE(shortRunId(u"20261206-101530-train-0eaa"_s), u"0eaa"_s);
        QCOMPARE(shortRunId(u"plain"_s), u"plain"_s);
        QCOMPARE(shortRunId(u"ends-with-dash-"_s), u"ends-with-dash-"_s);
        QCOMPARE(shortRunId(u"a-0123456789abcdef"_s), u"89abcdef"_s); // at most 8
    }

    void namesSayWhatDiffersAmongRunsOfOneScript()
    {
        const QList<NamedRun> runs{
            namedRun(u"a"_s, u"train"_s, {{u"lr"_s, u"0.01"_s}, {u"seed"_s, u"1"_s}, {u"epochs"_s, u"5"_s}}),
            namedRun(u"b"_s, u"train"_s, {{u"lr"_s, u"0.03"_s}, {u"seed"_s, u"2"_s}, {u"epochs"_s, u"5"_s}}),
            namedRun(u"c"_s, u"train"_s, {{u"lr"_s, u"0.03"_s}, {u"seed"_s, u"1"_s}, {u"epochs"_s, u"5"_s}}),
            namedRun(u"d"_s, u"eval"_s, {{u"lr"_s, u"9"_s}}), // alone with its name: kept as it is
            namedRun(u"e"_s, QString(), {}),                  // no name: its id
        };
        QCOMPARE(differingParameters(runs.first(3)), (QStringList{u"lr"_s, u"seed"_s}));
        const QHash<QString, QString> names = distinguishingNames(runs);
        QCOMPARE(names.value(u"a"_s), u"train lr=0.01 seed=1"_s);
        QCOMPARE(names.value(u"b"_s), u"train lr=0.03 seed=2"_s);
        QCOMPARE(names.value(u"c"_s), u"train lr=0.03 seed=1"_s);
        QCOMPARE(names.value(u"d"_s), u"eval"_s);
        QCOMPARE(names.value(u"e"_s), u"e"_s);
    }

    void aParameterOnlySomeRunsHaveDiffers()
    {
        const QList<NamedRun> runs{namedRun(u"a"_s, u"train"_s, {{u"lr"_s, u"0.1"_s}}),
                                   namedRun(u"b"_s, u"train"_s, {{u"lr"_s, u"0.1"_s}, {u"dropout"_s, u"0.5"_s}})};
        QCOMPARE(differingParameters(runs), QStringList{u"dropout"_s});
        const QHash<QString, QString> names = distinguishingNames(runs);
        QCOMPARE(names.value(u"a"_s), u"train"_s); // it has none: nothing to say
        QCOMPARE(names.value(u"b"_s), u"train dropout=0.5"_s);
        QVERIFY(differingParameters(runs.first(1)).isEmpty()); // one run: nothing differs
    }

    void longNamesAreBounded()
    {
        QList<Hyperparameter> a, b;
        for (int i = 0; i < 6; ++i) {
            a << Hyperparameter{u"p%1"_s.arg(i), u"1"_s};
            b << Hyperparameter{u"p%1"_s.arg(i), u"2"_s};
        }
        b[0].value = u"a-very-long-value-of-a-path/that/goes/on"_s;
        const QHash<QString, QString> names =
            distinguishingNames({namedRun(u"a"_s, u"t"_s, a), namedRun(u"b"_s, u"t"_s, b)});
        QCOMPARE(names.value(u"a"_s), u"t p0=1 p1=1 p2=1 p3=1 …"_s);
        const QString first = names.value(u"b"_s).section(u' ', 1, 1);
        QCOMPARE(first.size(), 3 + kNamedValueLength);
        QVERIFY(first.endsWith(u'…'));
    }

    void parametersComeFromTheStoreElseTheSpec()
    {
        RunRecord r = recordOf(u"x"_s);
        r.spec =
            QJsonObject{{u"hyperparameters"_s, QJsonArray{QJsonObject{{u"name"_s, u"lr"_s}, {u"value"_s, u"0.5"_s}}}}};
        QCOMPARE(runParameters(r, {}), (QList<Hyperparameter>{{u"lr"_s, u"0.5"_s}}));
        QCOMPARE(runParameters(r, {{u"lr"_s, u"0.7"_s}}), (QList<Hyperparameter>{{u"lr"_s, u"0.7"_s}}));
    }

    void keyMetricsPreferTheObjectives()
    {
        QCOMPARE(keyMetricNames({u"zeta"_s, u"loss"_s, u"val_accuracy"_s, u"alpha"_s, u"system/cpu_percent"_s}, 3),
                 (QStringList{u"val_accuracy"_s, u"loss"_s, u"alpha"_s}));
        QCOMPARE(keyMetricNames({u"system/memory_rss_mib"_s}, 3), QStringList());
    }

    void anIdIsFoundByItsStartOrItsEnd()
    {
        const QList<RunRecord> runs{recordOf(u"20261206-101530-train-0eaa"_s),
                                    recordOf(u"20261206-101541-train-cfbb"_s),
                                    recordOf(u"20261206-111111-train-1eaa"_s)};
        QCOMPARE(resolveRun(runs, u"20261206-101530-train-0eaa"_s)->id, u"20261206-101530-train-0eaa"_s);
        QCOMPARE(resolveRun(runs, u"cfbb"_s)->id, u"20261206-101541-train-cfbb"_s); // the legend's end
        QCOMPARE(resolveRun(runs, u"20261206-1015"_s).hasValue(), false);           // two start so
        QCOMPARE(resolveRun(runs, u"20261206-1115"_s).hasValue(), false);           // none
        QCOMPARE(resolveRun(runs, u"20261206-11"_s)->id, u"20261206-111111-train-1eaa"_s);

        // "eaa" ends two ids: refused, both named, with what to do.
        const auto ambiguous = resolveRun(runs, u"eaa"_s);
        QVERIFY(!ambiguous);
        QVERIFY2(ambiguous.error().message.contains(u"'eaa' matches 2 runs"_s), qPrintable(ambiguous.error().message));
        QVERIFY(ambiguous.error().message.contains(u"20261206-101530-train-0eaa"_s));
        QVERIFY(ambiguous.error().message.contains(u"20261206-111111-train-1eaa"_s));
        QVERIFY(!ambiguous.error().message.contains(u"cfbb"_s));
        QVERIFY(ambiguous.error().hint.contains(u"more of the id"_s));

        const auto none = resolveRun(runs, u"zzzz"_s);
        QVERIFY(!none);
        QVERIFY(none.error().message.contains(u"no run 'zzzz'"_s));
        QVERIFY(!resolveRun(runs, QString()));
    }

    // samples_per_s's best is its most (the review found `runs diff` giving its least); a metric
    // of no known direction (lr) is neither better nor worse when it changes.
    void bestFollowsTheMetricsDirection_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<MetricDirection>("direction");
        const auto row = [](const char *name, MetricDirection direction) {
            QTest::newRow(name) << QString::fromUtf8(name) << direction;
        };
        row("loss", MetricDirection::Lower);
        row("val_loss", MetricDirection::Lower);
        row("val_accuracy", MetricDirection::Higher);
        row("F1", MetricDirection::Higher);
        row("samples_per_s", MetricDirection::Higher);
        row("train/tokens/sec", MetricDirection::Higher);
        row("it/s", MetricDirection::Higher);
        row("throughput", MetricDirection::Higher);
        row("eval/fps", MetricDirection::Higher);
        row("ms_per_step", MetricDirection::Lower);
        row("time_per_sample", MetricDirection::Lower);
        row("epoch_time", MetricDirection::Lower);
        row("test_error", MetricDirection::Lower);
        row("lr", MetricDirection::Unknown);
        row("epoch", MetricDirection::Unknown);
        row("seed", MetricDirection::Unknown);
    }

    void bestFollowsTheMetricsDirection()
    {
        QFETCH(QString, name);
        QFETCH(MetricDirection, direction);
        QCOMPARE(int(metricDirection(name)), int(direction));
        QCOMPARE(higherIsBetter(name), direction == MetricDirection::Higher);
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunLabels)
#include "tst_runlabels.moc"
