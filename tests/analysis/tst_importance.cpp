// Parameter importance (analysis/importance.h, analysis/randomforest.h): on runs whose metric
// depends on the learning rate alone the forest says so, the correlations are numpy.corrcoef's,
// text parameters are one-hot, and the same runs give the same numbers in any order.
#include "analysis/importance.h"
#include "support/process.h"
#include "support/testmain.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <random>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

using Params = QList<QHash<QString, QString>>;

const FeatureImportance *feature(const ImportanceReport &report, const QString &name)
{
    for (const FeatureImportance &f : report.features) {
        if (f.name == name)
            return &f;
    }
    return nullptr;
}

// 60 runs: lr log-uniform in [1e-4, 1e-1], noise uniform in [0, 1], an optimizer drawn at random,
// a batch size the same in all; the metric a function of lr alone.
struct Synthetic {
    Params params;
    std::vector<double> metric;
};

Synthetic synthetic()
{
    std::mt19937_64 random(2026);
    std::uniform_real_distribution<double> unit(0, 1);
    Synthetic s;
    for (int i = 0; i < 60; ++i) {
        const double lr = std::pow(10.0, -4 + 3 * unit(random));
        const double noise = unit(random);
        const QString opt = unit(random) < 0.5 ? u"adam"_s : u"sgd"_s;
        s.params.append({{u"lr"_s, QString::number(lr, 'g', 17)},
                         {u"noise"_s, QString::number(noise, 'g', 17)},
                         {u"opt"_s, opt},
                         {u"batch"_s, u"32"_s}});
        const double x = std::log10(lr) + 2.5;
        s.metric.push_back(0.2 + x * x);
    }
    return s;
}

// numpy.corrcoef of each named parameter (as numbers) with the metric.
QJsonObject numpyCorrelations(const Synthetic &s, const QStringList &names)
{
    QJsonObject columns;
    for (const QString &name : names) {
        QJsonArray values;
        for (const auto &p : s.params)
            values.append(p.value(name).toDouble());
        columns[name] = values;
    }
    QJsonArray metric;
    for (const double v : s.metric)
        metric.append(v);
    const QByteArray input = QJsonDocument(QJsonObject{{u"columns"_s, columns}, {u"metric"_s, metric}}).toJson();
    const QString script = u"import json, sys\nimport numpy as np\nd = json.load(sys.stdin)\n"
                           u"print(json.dumps(dict((k, float(np.corrcoef(v, d['metric'])[0][1])) "
                           u"for k, v in d['columns'].items())))\n"_s;
    const auto run = ferry::test::runCommand(u"/usr/bin/python3"_s, {u"-c"_s, script}, {}, input);
    if (run.code != 0)
        qWarning("python: %s", run.err.constData());
    return QJsonDocument::fromJson(run.out).object();
}

} // namespace

class TestImportance : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void lrDominatesAndNoiseIsNearZero()
    {
        const Synthetic s = synthetic();
        const auto report = parameterImportance(s.params, s.metric);
        QVERIFY2(report, report ? "" : qPrintable(report.error().toString()));
        QCOMPARE(report->runs, 60);
        QCOMPARE(report->features.first().name, u"lr"_s);
        const FeatureImportance *lr = feature(*report, u"lr"_s);
        const FeatureImportance *noise = feature(*report, u"noise"_s);
        const FeatureImportance *opt = feature(*report, u"opt=sgd"_s); // two values: one column
        QVERIFY(lr && noise && opt);
        QVERIFY(!feature(*report, u"opt=adam"_s));
        QCOMPARE(opt->param, u"opt"_s);
        QCOMPARE(opt->category, u"sgd"_s);
        qInfo("importance: lr %.4f, noise %.4f, opt %.4f", lr->importance, noise->importance, opt->importance);
        QVERIFY2(lr->importance > 0.95, qPrintable(QString::number(lr->importance)));
        QVERIFY2(noise->importance < 0.03, qPrintable(QString::number(noise->importance)));
        QVERIFY2(opt->importance < 0.01, qPrintable(QString::number(opt->importance)));
        double sum = 0;
        for (const FeatureImportance &f : report->features)
            sum += f.importance;
        QVERIFY(std::abs(sum - 1) < 1e-12);
        // A random subset of the features at each split: lr still first, but noise takes the
        // splits it was drawn for alone (why importance tries every feature).
        ForestOptions subsets;
        subsets.featuresPerSplit = 1;
        const auto drawn = parameterImportance(s.params, s.metric, subsets);
        QVERIFY(drawn);
        QCOMPARE(drawn->features.first().name, u"lr"_s);
        QVERIFY(feature(*drawn, u"noise"_s)->importance > 5 * noise->importance);
        QVERIFY(report->notes.contains(u"batch: the same in every run"_s));
        QVERIFY(!feature(*report, u"batch"_s));
        // Pearson's correlation is numpy's.
        Params asNumbers = s.params;
        for (auto &p : asNumbers)
            p[u"opt"_s] = p.value(u"opt"_s) == "sgd"_L1 ? u"1"_s : u"0"_s;
        const QJsonObject numpy = numpyCorrelations({asNumbers, s.metric}, {u"lr"_s, u"noise"_s, u"opt"_s});
        QCOMPARE(numpy.size(), 3);
        const std::pair<QString, const FeatureImportance *> checks[]{
            {u"lr"_s, lr}, {u"noise"_s, noise}, {u"opt"_s, opt}};
        for (const auto &[name, f] : checks) {
            const double expected = numpy[name].toDouble();
            QVERIFY2(std::abs(f->correlation - expected) < 1e-12,
                     qPrintable(u"%1: %2, numpy %3"_s.arg(name).arg(f->correlation).arg(expected)));
        }
    }

    // The same runs in another order: the store's form sorts them by id, so the numbers are the
    // same; the pure form is deterministic for one order.
    void sameRunsSameNumbers()
    {
        const Synthetic s = synthetic();
        const auto once = parameterImportance(s.params, s.metric);
        const auto again = parameterImportance(s.params, s.metric);
        QVERIFY(once && again);
        for (qsizetype i = 0; i < once->features.size(); ++i) {
            QCOMPARE(once->features[i].name, again->features[i].name);
            QCOMPARE(once->features[i].importance, again->features[i].importance);
        }
        QTemporaryDir dir;
        auto store = RunStore::open(RunStore::pathInWorkspace(dir.path()));
        QVERIFY(store);
        QList<RunRecord> records;
        for (int i = 0; i < 60; ++i) {
            RunRecord r;
            r.id = u"run%1"_s.arg(i, 2, 10, QChar(u'0'));
            r.status = RunStatus::Succeeded;
            (*store)->createRun(r);
            QList<Hyperparameter> hps;
            for (auto it = s.params[i].cbegin(); it != s.params[i].cend(); ++it)
                hps.append({it.key(), it.value()});
            (*store)->setParams(r.id, hps);
            (*store)->appendMetrics(r.id, {{u"val_loss"_s, 0, 9.0, 1}, {u"val_loss"_s, 1, s.metric[std::size_t(i)], 2}},
                                    1);
            records.append(r);
        }
        RunRecord bare;
        bare.id = u"zz-no-metric"_s;
        (*store)->createRun(bare);
        records.append(bare);
        (*store)->flush();
        const RunValueSpec last = *RunValueSpec::parse(u"val_loss"_s);
        const auto forward = parameterImportance(**store, records, last);
        std::reverse(records.begin(), records.end());
        const auto backward = parameterImportance(**store, records, last);
        QVERIFY(forward && backward);
        QCOMPARE(forward->runs, 60);
        QCOMPARE(forward->features.size(), once->features.size());
        for (qsizetype i = 0; i < forward->features.size(); ++i) {
            QCOMPARE(forward->features[i].name, backward->features[i].name);
            QCOMPARE(forward->features[i].importance, backward->features[i].importance);
            QCOMPARE(forward->features[i].correlation, backward->features[i].correlation);
        }
        QVERIFY2(forward->notes.first().contains(u"zz-no-metric"_s), qPrintable(forward->notes.join(u'\n')));
        // Its best (the least: a loss) is the same value here, the first point (9) being the worst.
        const auto best = parameterImportance(**store, records, *RunValueSpec::parse(u"metrics.val_loss.best"_s));
        QVERIFY(best);
        QCOMPARE(best->features.first().name, u"lr"_s);
    }

    void textParametersAreOneHot()
    {
        // Three optimizers (a column each), a flag in two runs only (a column for its one value),
        // a missing number (the mean in the forest, left out of its correlation), too many names.
        Params params;
        std::vector<double> metric;
        const QString opts[]{u"adam"_s, u"sgd"_s, u"lion"_s};
        for (int i = 0; i < 40; ++i) {
            QHash<QString, QString> p{{u"opt"_s, opts[i % 3]}, {u"name"_s, u"run-%1"_s.arg(i)}};
            if (i < 2)
                p[u"flag"_s] = u"on"_s;
            if (i % 4 != 0)
                p[u"wd"_s] = QString::number(i);
            params.append(p);
            metric.push_back(i % 3 == 1 ? 1.0 : 0.0); // sgd's runs are worse
        }
        const auto report = parameterImportance(params, metric);
        QVERIFY2(report, report ? "" : qPrintable(report.error().toString()));
        QStringList names;
        for (const FeatureImportance &f : report->features)
            names << f.name;
        names.sort();
        QCOMPARE(names, (QStringList{u"flag=on"_s, u"opt=adam"_s, u"opt=lion"_s, u"opt=sgd"_s, u"wd"_s}));
        QCOMPARE(report->features.first().name, u"opt=sgd"_s);
        QVERIFY(std::abs(report->features.first().correlation - 1) < 1e-12);
        QCOMPARE(feature(*report, u"wd"_s)->runs, 30);
        QCOMPARE(feature(*report, u"flag=on"_s)->runs, 2);
        QVERIFY2(report->notes.contains(u"name: 40 different values, more than 32: left out"_s),
                 qPrintable(report->notes.join(u'\n')));
    }

    void tooFewRunsOrNothingToLearn()
    {
        QVERIFY(!parameterImportance(Params{{{u"lr"_s, u"1"_s}}}, std::vector<double>{1.0}));
        const auto constant =
            parameterImportance(Params{{{u"lr"_s, u"1"_s}}, {{u"lr"_s, u"2"_s}}}, std::vector<double>{3.0, 3.0});
        QVERIFY(constant);
        QCOMPARE(constant->features.size(), 1);
        QCOMPARE(constant->features.first().importance, 0.0); // a constant metric: nothing explains it
        QVERIFY(std::isnan(constant->features.first().correlation));
        const auto same =
            parameterImportance(Params{{{u"lr"_s, u"1"_s}}, {{u"lr"_s, u"1"_s}}}, std::vector<double>{1.0, 2.0});
        QVERIFY(same);
        QVERIFY(same->features.isEmpty());
        QVERIFY(same->notes.contains(u"no parameter differs between the runs"_s));
    }

    void forestLearnsAStep()
    {
        // y = 1 where the first feature > 0.5, else 0; the second feature random.
        std::mt19937_64 random(7);
        std::uniform_real_distribution<double> unit(0, 1);
        std::vector<double> x, y;
        for (int i = 0; i < 200; ++i) {
            const double a = unit(random), b = unit(random);
            x.insert(x.end(), {a, b});
            y.push_back(a > 0.5 ? 1 : 0);
        }
        const RandomForest forest = RandomForest::fit(x, 2, y, {});
        QVERIFY(forest.importance()[0] > 0.95);
        const double low[]{0.2, 0.5}, high[]{0.8, 0.5};
        QVERIFY(forest.predict(low) < 0.05);
        QVERIFY(forest.predict(high) > 0.95);
        // Another seed: another forest, the same conclusion.
        ForestOptions other;
        other.seed = 99;
        QVERIFY(RandomForest::fit(x, 2, y, other).importance()[0] > 0.95);
    }

    void pearsonEdges()
    {
        const double a[]{1, 2, 3}, b[]{2, 4, 6}, c[]{5, 5, 5}, d[]{3, 2, 1};
        QCOMPARE(pearson(a, b), 1.0);
        QCOMPARE(pearson(a, d), -1.0);
        QVERIFY(std::isnan(pearson(a, c)));
        QVERIFY(std::isnan(pearson(std::span<const double>(a, 1), std::span<const double>(b, 1))));
    }
};

FERRY_TEST_APPLESS_MAIN(TestImportance)
#include "tst_importance.moc"
