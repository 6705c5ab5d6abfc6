// store/metriccsv.h: what `ferry runs metrics --csv` writes reads back to the same points, bit for
// bit (the awkward doubles, the infinities, -0, a missing epoch, names holding commas and
// quotes), and a malformed file is an Error naming its line. Hostile files (review M5, M6) at a
// hundred times the review's size are refused in time linear in what is read, made as they are
// read (GeneratedText) so that the test holds none of them.
#include "metrics/metricnames.h"
#include "store/metriccsv.h"
#include "store/metricexport.h"
#include "store/runstore.h"
#include "support/cost.h"
#include "support/testmain.h"

#include <QBuffer>
#include <QLocale>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

bool sameBitsOrBothNaN(double a, double b)
{
    if (std::isnan(a) || std::isnan(b))
        return std::isnan(a) && std::isnan(b); // the text keeps no NaN's sign or payload (documented)
    return std::memcmp(&a, &b, sizeof a) == 0;
}

QList<MetricPoint> readBack(QIODevice &device, ferry::Error *error = nullptr)
{
    QList<MetricPoint> points;
    const auto read = readMetricsCsv(device, u"metrics.csv"_s, [&](QList<MetricPoint> batch) -> ferry::Expected<void> {
        points += batch;
        return {};
    });
    if (!read && error)
        *error = read.error();
    return points;
}

QList<MetricPoint> readBack(const QByteArray &text, ferry::Error *error = nullptr)
{
    QBuffer buffer;
    buffer.setData(text);
    buffer.open(QIODevice::ReadOnly);
    return readBack(buffer, error);
}

// A file of the header, then `count` pieces piece(0), piece(1), ..., made as they are read.
class GeneratedText : public QIODevice {
public:
    GeneratedText(qint64 count, std::function<QByteArray(qint64)> piece) : m_count(count), m_piece(std::move(piece))
    {
        m_pending = "name,step,wall_ms,value,epoch\n";
        open(QIODevice::ReadOnly);
    }
    bool isSequential() const override { return true; }
    qint64 bytesAvailable() const override { return m_pending.size() + QIODevice::bytesAvailable(); }
    bool atEnd() const override { return m_pending.isEmpty() && m_next == m_count && QIODevice::atEnd(); }
    qint64 bytesMade() const { return m_made; }

protected:
    qint64 readData(char *data, qint64 most) override
    {
        while (m_pending.size() < most && m_next < m_count)
            m_pending += m_piece(m_next++);
        const qint64 n = std::min<qint64>(most, m_pending.size());
        std::memcpy(data, m_pending.constData(), size_t(n));
        m_pending.remove(0, n);
        m_made += n;
        return n;
    }
    qint64 writeData(const char *, qint64) override { return -1; }

private:
    qint64 m_count, m_next = 0, m_made = 0;
    std::function<QByteArray(qint64)> m_piece;
    QByteArray m_pending;
};

// What a hostile file's reading gives: the Error, with its cost printed and bounded.
ferry::Error refusal(const char *what, const QString &size, GeneratedText &text)
{
    ferry::Error error;
    QList<MetricPoint> points;
    const auto cost = ferry::test::measure(what, size, [&] { points = readBack(text, &error); });
    std::printf("         %s read of it, refused: %s\n", qPrintable(QLocale::c().toString(text.bytesMade())),
                qPrintable(error.toString()));
    [&] {
        QVERIFY2(ferry::test::secondsWithin(cost.seconds, 5), "milliseconds expected");
        QVERIFY2(ferry::test::peakWithin(cost.peakBytes, 64 << 20), "a few MiB expected");
    }();
    return error;
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
            {u"val/loss, \"best\""_s, 3, nan, 2, 1},
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
            QVERIFY2(sameBitsOrBothNaN(back[i].step, stored[i].step) &&
                         sameBitsOrBothNaN(back[i].value, stored[i].value) &&
                         sameBitsOrBothNaN(back[i].epoch, stored[i].epoch) && back[i].wallMs == stored[i].wallMs,
                     qPrintable(u"point %1 of %2"_s.arg(i).arg(back[i].name)));
        }
    }

    // The text made on worker threads, slice by slice, is the text made on one thread, byte for
    // byte, whatever the slices' size: every series, in order, NaN, infinities, -0, the largest and
    // smallest doubles, repeated wall times, names that are quoted. A sink that refuses the text
    // ends the export with its error, however many slices are under way.
    void textOfThreadsIsTextOfOne()
    {
        QTemporaryDir dir;
        auto opened = RunStore::open(dir.filePath(u"runs.sqlite"_s));
        QVERIFY(opened.hasValue());
        RunStore &store = **opened;
        RunRecord r;
        r.id = u"r1"_s;
        store.createRun(r);
        const double special[]{std::numeric_limits<double>::quiet_NaN(),
                               std::numeric_limits<double>::infinity(),
                               -std::numeric_limits<double>::infinity(),
                               -0.0,
                               5e-324,
                               1.7976931348623157e308,
                               0.1 + 0.2,
                               1e22,
                               123456789012345678.0,
                               -2.5e-300};
        QList<MetricPoint> points;
        const QStringList names{u"loss"_s, u"a,b"_s, u"say \"hi\""_s, u"\u00fcn\u00ef/acc"_s, u"lr"_s};
        for (int i = 0; i < 20000; ++i) {
            const double value = i % 7 == 0 ? special[(i / 7) % std::size(special)] : std::sqrt(double(i)) / 3;
            const double step = i % 11 == 0 ? special[(i / 11) % std::size(special)] : double(i / 3);
            points << MetricPoint{names[i % names.size()], step, value, 1733390000000 + i / 5,
                                  i % 13 == 0 ? double(i) / 9 : kNoEpoch};
        }
        store.appendMetrics(r.id, points, 0);
        store.flush();
        for (const MetricTextFormat format : {MetricTextFormat::Csv, MetricTextFormat::Tabs}) {
            const auto text = [&](ExportThreads threads) {
                QByteArray all;
                const auto written = exportMetrics(
                    store, r.id, format,
                    [&](QByteArrayView bytes) -> ferry::Expected<void> {
                        all += bytes;
                        return {};
                    },
                    threads);
                return written && *written == points.size() ? all : QByteArray("export failed");
            };
            const QByteArray one = text({1, 0});
            QVERIFY(one.count('\n') >= points.size());
            for (const ExportThreads threads : {ExportThreads{2, 1}, ExportThreads{3, 7}, ExportThreads{4, 4096},
                                                ExportThreads{2, 1 << 20}, ExportThreads{}})
                QVERIFY2(text(threads) == one,
                         qPrintable(u"%1 threads, %2 points a slice"_s.arg(threads.workers).arg(threads.slicePoints)));
        }
        int calls = 0;
        const auto refused = exportMetrics(
            store, r.id, MetricTextFormat::Csv,
            [&](QByteArrayView) -> ferry::Expected<void> {
                if (++calls < 5)
                    return {};
                return ferry::Error{u"disk full"_s, {}, 0, 0, {}};
            },
            ExportThreads{3, 100});
        QVERIFY(!refused);
        QVERIFY2(refused.error().message.contains(u"disk full"_s), qPrintable(refused.error().toString()));
        QCOMPARE(calls, 5);
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
        QTest::newRow("a line break in a name")
            << QByteArray("name,step,wall_ms,value,epoch\nloss,1,2,3,\n\"two\nlines\",1,2,3,\n") << 3;
        QTest::newRow("a record over five lines")
            << QByteArray("name,step,wall_ms,value,epoch\n\"a\n\n\n\n\",1,2,3,\nloss,1,2,3,\n") << 2;
        QTest::newRow("a name of 257 bytes")
            << "name,step,wall_ms,value,epoch\nloss,1,2,3,\n" + QByteArray(257, 'x') + ",1,2,3,\n"
            << 3;
        QTest::newRow("a line of 5000 bytes")
            << "name,step,wall_ms,value,epoch\nloss,1,2,3,\nloss,1,2,3," + QByteArray(5000, '0') + "\n"
            << 3;
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

    // Names of 256 bytes, as many as 10,000: kept (metrics/metricnames.h's caps are limits, not less).
    void namesUpToTheCapsAreRead()
    {
        QByteArray text = "name,step,wall_ms,value,epoch\n";
        const QByteArray longest = QByteArray(254, 'x') + "é"; // 256 bytes of UTF-8
        text += longest + ",1,2,3,\n";
        for (int i = 1; i < ferry::run::kMostSeriesPerRun; ++i)
            text += "m" + QByteArray::number(i) + ",1,2,3,\n";
        ferry::Error error;
        const QList<MetricPoint> points = readBack(text, &error);
        QVERIFY2(error.message.isEmpty(), qPrintable(error.toString()));
        QCOMPARE(points.size(), ferry::run::kMostSeriesPerRun);
        QCOMPARE(points.first().name, QString::fromUtf8(longest));
    }

    // M5 at 100 times the review's file: a quote, then 40,000,000 line breaks (400,000 took 30 s,
    // each line counting the quotes of the whole record again).
    void anUnclosedQuoteIsRefusedAtOnce()
    {
        GeneratedText text(40'000'001, [](qint64 i) { return i == 0 ? QByteArray("\"") : QByteArray("\n"); });
        const ferry::Error error = refusal("a quote, then line breaks", u"40,000,001 bytes"_s, text);
        QCOMPARE(error.line, 2);
        QVERIFY2(error.message.contains(u"longer than 4096 bytes or 4 lines"_s), qPrintable(error.message));
    }

    // M6 at 100 times the review's names: one name of 800 MiB, and 20,000,000 names.
    void aHugeNameIsRefusedAtOnce()
    {
        GeneratedText text(800, [](qint64) { return QByteArray(1 << 20, 'n'); });
        const ferry::Error error = refusal("one name of 800 MiB", u"838,860,800 bytes on one line"_s, text);
        QCOMPARE(error.line, 2);
        QVERIFY2(text.bytesMade() < 1 << 21, "one piece read, or two");
    }

    void tooManyNamesAreRefusedWithTheCap()
    {
        GeneratedText text(20'000'000,
                           [](qint64 i) -> QByteArray { return "m" + QByteArray::number(i) + ",1,2,3,\n"; });
        const ferry::Error error = refusal("20,000,000 names", u"about 280 MB"_s, text);
        QCOMPARE(error.line, 2 + ferry::run::kMostSeriesPerRun);
        QVERIFY2(error.message.contains(u"at most 10000 metrics"_s), qPrintable(error.message));
    }
};

FERRY_TEST_APPLESS_MAIN(TestMetricCsv)
#include "tst_metriccsv.moc"
