// Real training logs (../shared/corpus/logs/: Hugging Face Trainer and Keras stdout, progress
// bars and all), read line by line as a run's follower reads them (metricRecords, then the
// metric parser): the metrics a person reading the file would chart, with the right counts,
// steps, epochs and last values. What to expect is computed independently, by tests/metrics/log_oracle.py
// (Python's ast.literal_eval on the printed dicts, a regex on Keras' final redraws).
#include "support/corpus.h"
#include "support/process.h"
#include "support/testmain.h"

#include "metrics/metricparser.h"
#include "metrics/terminaltext.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

struct Curve {
    int count = 0;
    double lastStep = 0;
    double lastValue = 0;
    double lastEpoch = 0;
};

QMap<QString, Curve> ferryCurves(const QByteArray &log)
{
    MetricParser parser;
    QList<MetricPoint> points;
    for (const QByteArray &line : log.split('\n')) {
        for (const QString &record : metricRecords(line))
            parser.parseLine(record, 0, points);
    }
    QMap<QString, Curve> curves;
    for (const MetricPoint &p : std::as_const(points)) {
        Curve &c = curves[p.name];
        ++c.count;
        c.lastStep = p.step;
        c.lastValue = p.value;
        c.lastEpoch = p.epoch;
    }
    return curves;
}

bool same(double a, double b)
{
    return a == b || (std::isnan(a) && std::isnan(b)) || std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b));
}

} // namespace

class TestLogCorpus : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void chartsWhatAReaderWould_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QStringList>("alsoFound"); // what Ferry reads beyond the oracle, and why
        // Besides the Trainer's dicts the scripts print facts as "key: value" lines, which Ferry
        // reads as it reads any such line (one point each) and the oracle leaves aside:
        // "trainable params: 25,460,736 || all params: 9,267,166,720".
        QTest::newRow("hf: LMSYS, tqdm bars with the dicts glued after them")
            << u"logs/hf/stdout/2200xiaohu__LMSYS/train.log"_s << QStringList{u"params"_s};
        // "Perplexity: 1.00", "Num of classes: 19", "Train dataset length:  1802", the datasets'
        // "num_rows: 4358"; not "original model block size =  512", a banner (words before a
        // key=value pair, no step: metricsyntax::bannerPrefix).
        QTest::newRow("hf: language modelling, train and eval dicts")
            << u"logs/hf/stdout/EshaUbale__Language-Modeling-with-Huggiingface/train_log.txt"_s
            << QStringList{u"Perplexity"_s, u"classes"_s, u"length"_s, u"num_rows"_s};
        QTest::newRow("keras: cat or dog, one final redraw per epoch")
            << u"logs/text/AntoineDW__cat-or-dog-keras/training_log.txt"_s << QStringList{};
    }
    void chartsWhatAReaderWould()
    {
        QFETCH(QString, file);
        QFETCH(QStringList, alsoFound);
        const QString path = corpusPath(file);
        QFile log(path);
        QVERIFY2(log.open(QIODevice::ReadOnly), qPrintable(path));
        const QMap<QString, Curve> found = ferryCurves(log.readAll());

        const auto oracle = ferry::test::runCommand(
            u"/usr/bin/python3"_s, {QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/log_oracle.py"), path});
        QVERIFY2(oracle.code == 0, oracle.err.constData());
        const QJsonObject expected = QJsonDocument::fromJson(oracle.out).object();
        QVERIFY(!expected.isEmpty());
        for (auto it = expected.begin(); it != expected.end(); ++it) {
            const QJsonArray e = it.value().toArray();
            QVERIFY2(found.contains(it.key()), qPrintable(u"no curve for "_s + it.key()));
            const Curve &c = found[it.key()];
            QVERIFY2(c.count == e.at(0).toInt(),
                     qPrintable(u"%1: %2 points, expected %3"_s.arg(it.key()).arg(c.count).arg(e.at(0).toInt())));
            QVERIFY2(same(c.lastStep, e.at(1).toDouble()), qPrintable(it.key()));
            const double value = e.at(2).isString() ? e.at(2).toString().toDouble() : e.at(2).toDouble();
            QVERIFY2(same(c.lastValue, value),
                     qPrintable(u"%1: last %2, expected %3"_s.arg(it.key()).arg(c.lastValue).arg(value)));
            const double epoch = e.at(3).isNull() ? std::nan("") : e.at(3).toDouble();
            QVERIFY2(same(c.lastEpoch, epoch),
                     qPrintable(u"%1: last epoch %2, expected %3"_s.arg(it.key()).arg(c.lastEpoch).arg(epoch)));
        }
        QStringList extra;
        for (auto it = found.begin(); it != found.end(); ++it) {
            if (!expected.contains(it.key()))
                extra << it.key();
        }
        QVERIFY2(extra == alsoFound, qPrintable(u"also found: "_s + extra.join(u", "_s)));
    }
};

FERRY_TEST_APPLESS_MAIN(TestLogCorpus)
#include "tst_logcorpus.moc"
