// Metric lines as training scripts print them.
#include "run/metricparser.h"

#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

QString render(const QList<MetricPoint> &points)
{
    QStringList parts;
    for (const MetricPoint &p : points)
        parts << u"%1@%2=%3"_s.arg(p.name).arg(p.step).arg(p.value);
    return parts.join(u' ');
}

QString parse(const QStringList &lines, const QList<MetricDefinition> &definitions = {})
{
    MetricParser parser(definitions);
    QList<MetricPoint> points;
    for (const QString &line : lines)
        parser.parseLine(line, 0, points);
    return render(points);
}

} // namespace

class TestMetricParser : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void defaults_data()
    {
        QTest::addColumn<QStringList>("lines");
        QTest::addColumn<QString>("expected");
        QTest::newRow("json with step") << QStringList{u"{\"loss\": 0.31, \"step\": 120}"_s} << u"loss@120=0.31"_s;
        QTest::newRow("json prefers step over epoch")
            << QStringList{u"{\"epoch\": 2, \"step\": 7, \"acc\": 0.5, \"tag\": \"x\", \"ok\": true}"_s}
            << u"acc@7=0.5"_s;
        QTest::newRow("json without step counts")
            << QStringList{u"{\"loss\": 1}"_s, u"{\"loss\": 0.5}"_s} << u"loss@0=1 loss@1=0.5"_s;
        QTest::newRow("key=value and key: value")
            << QStringList{u"epoch 3 loss=0.25 acc: 0.91"_s} << u"loss@3=0.25 acc@3=0.91"_s;
        QTest::newRow("keras style") << QStringList{u"Epoch 1/10 - loss: 0.6931 - accuracy: 0.5000 - val_loss: 0.69"_s}
                                     << u"loss@1=0.6931 accuracy@1=0.5 val_loss@1=0.69"_s;
        QTest::newRow("scientific and negative")
            << QStringList{u"step=10 lr=1e-4 grad_norm=-2.5E+1"_s} << u"lr@10=0.0001 grad_norm@10=-25"_s;
        QTest::newRow("nan and inf") << QStringList{u"step=1 loss=nan"_s} << u"loss@1=nan"_s;
        QTest::newRow("prose is not a metric")
            << QStringList{u"Downloading: 45% of 10MB, ETA 3s"_s, u"loss 0.3 is fine"_s, u"version 1.2.3"_s}
            << QString();
        QTest::newRow("time stamps are not metrics") << QStringList{u"2024-01-01 12:30:01 INFO started"_s} << QString();
        QTest::newRow("slashes and dots in names")
            << QStringList{u"iteration=5 train/loss=0.4 eval.acc=0.8"_s} << u"train/loss@5=0.4 eval.acc@5=0.8"_s;
        QTest::newRow("malformed json falls back") << QStringList{u"{epoch: 1, loss: 0.3}"_s} << u"loss@1=0.3"_s;
        QTest::newRow("empty and binary") << QStringList{QString(), u"\u0000\u0001\u00ff"_s} << QString();
    }
    void defaults()
    {
        QFETCH(QStringList, lines);
        QFETCH(QString, expected);
        QCOMPARE(parse(lines), expected);
    }

    void definitionsReplaceDefaults()
    {
        const QList<MetricDefinition> definitions{{u"train:loss"_s, u"loss = ([0-9.]+)"_s},
                                                  {u"valid:acc"_s, u"val_acc=([0-9.]+)"_s}};
        QCOMPARE(parse({u"loss = 0.5 val_acc=0.7 other=3"_s, u"loss = 0.4"_s}, definitions),
                 u"train:loss@0=0.5 valid:acc@0=0.7 train:loss@1=0.4"_s);
    }

    void badDefinitionsAreReported()
    {
        MetricParser parser({{u"a"_s, u"loss=([0-9"_s}, {u"b"_s, u"loss=[0-9]+"_s}, {u"c"_s, u"x=(\\d+)"_s}});
        QCOMPARE(parser.definitionErrors().size(), 2);
        QVERIFY(parser.definitionErrors().at(0).message.startsWith(u"metric 'a': bad regex"_s));
        QVERIFY(parser.definitionErrors().at(1).message.contains(u"no capture group"_s));
    }

    void hugeLineIsHandled()
    {
        const QString line = u"loss=0.5 "_s + QString(10 * 1024 * 1024, u'x');
        QCOMPARE(parse({line}), u"loss@0=0.5"_s);
    }
};

QTEST_APPLESS_MAIN(TestMetricParser)
#include "tst_metricparser.moc"
