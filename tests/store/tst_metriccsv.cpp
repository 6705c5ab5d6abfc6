// store/metriccsv.h: what `ferry runs metrics --csv` writes reads back to the same points, bit for
// bit (the awkward doubles, the infinities, -0, a missing epoch, names holding commas, quotes and
// line breaks), and a malformed file is an Error naming its line.
#include "store/metriccsv.h"
#include "store/metricexport.h"
#include "store/runstore.h"

#include <QBuffer>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

bool sameBits(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b); // the text keeps no NaN's sign or payload (documented)
    return std::memcmp(&a, &b, sizeof a) == 0;
}

QList<MetricPoint> readBack(const QByteArray &text, ferry::Error *error = nullptr)
{
    QBuffer buffer;
    buffer.setData(text);
    buffer.open(QIODevice::ReadOnly);
    QList<MetricPoint> points;
    const auto read = readMetricsCsv(buffer, u"metrics.csv"_s, [&](QList<MetricPoint> batch) -> ferry::Expected<void> {
        points += batch;
        return {};
    });
    if (!read && error)
        *error = read.error();
    return points;
}

} // namespace

class TestMetricCsv : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void everyPointReadsBackBitForBit()
    {
        QTemporaryDir dir;
        auto opened = RunStore::open(dir.filePath(u"runs.sqlite"_s));
        QVERIFY(opened.hasValue());
        RunStore &store = **opened;
        RunRecord r;
        r.id = u"r1"_s;
        store.createRun(r);
        const double inf = std::numeric_limits<double>::infinity();
        const double nan = std::numeric_limits<double>::quiet_NaN();
        QList<MetricPoint> points{
            {u"loss"_s, 1, 1.0 / 3, 1733390000123, 0.1 + 0.2},
            {u"loss"_s, 2, 5e-324, 1733390000124, nan},
            {u"loss"_s, 1e15 + 1, 1.7976931348623157e308, -5, -0.0},
            {u"a,b"_s, -0.0, -inf, 0, 2.5},
            {u"say \"hi\""_s, 0.5, inf, 1, nan},
            {u"two\nlines"_s, 3, nan, 2, 1},
            {u"ünï"_s, 4, -1e-310, 3, 1e300},
        };
        for (int i = 0; i < 5000; ++i) // more than one batch
            points << MetricPoint{u"many"_s, double(i), std::sqrt(double(i)), 1733390000000 + i, double(i) / 7};
        store.appendMetrics(r.id, points, 0);
        store.flush();
        QByteArray text;
        QVERIFY(exportMetrics(store, r.id, MetricTextFormat::Csv, [&](QByteArrayView bytes) -> ferry::Expected<void> {
            text += bytes;
            return {};
        }));
        const QList<MetricPoint> stored = store.metrics(r.id);
        const QList<MetricPoint> back = readBack(text);
        QCOMPARE(back.size(), stored.size());
        for (qsizetype i = 0; i < back.size(); ++i) {
            QCOMPARE(back[i].name, stored[i].name);
            QVERIFY2(sameBits(back[i].step, stored[i].step) && sameBits(back[i].value, stored[i].value) &&
                         sameBits(back[i].epoch, stored[i].epoch) && back[i].wallMs == stored[i].wallMs,
                     qPrintable(u"point %1 of %2"_s.arg(i).arg(back[i].name)));
        }
    }

    void malformedLinesAreNamed_data()
    {
        QTest::addColumn<QByteArray>("text");
        QTest::addColumn<int>("line");
        QTest::newRow("no header") << QByteArray("loss,1,2,3,\n") << 1;
        QTest::newRow("a word for a number") << QByteArray("name,step,wall_ms,value,epoch\nloss,1,2,three,\n") << 2;
        QTest::newRow("a field short") << QByteArray("name,step,wall_ms,value,epoch\nloss,1,2,3,\nloss,1,2\n") << 3;
        QTest::newRow("an unclosed quote") << QByteArray("name,step,wall_ms,value,epoch\n\"loss,1,2,3,\n") << 2;
        QTest::newRow("a fractional wall time") << QByteArray("name,step,wall_ms,value,epoch\nloss,1,2.5,3,\n") << 2;
    }

    void malformedLinesAreNamed()
    {
        QFETCH(QByteArray, text);
        QFETCH(int, line);
        ferry::Error error;
        readBack(text, &error);
        QCOMPARE(error.line, line);
        QCOMPARE(error.path, u"metrics.csv"_s);
    }
};

QTEST_APPLESS_MAIN(TestMetricCsv)
#include "tst_metriccsv.moc"
