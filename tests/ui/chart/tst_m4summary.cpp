// The multi-resolution summary against brute force, and the M4 path against the polyline
// through every point, pixel for pixel.
#include "support/testmain.h"
#include "ui/chart/m4summary.h"
#include "ui/chart/seriespath.h"
#include "ui/chart/seriesstore.h"

#include <QImage>
#include <QPainter>
#include <QRandomGenerator>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

namespace {

YExtremes bruteForce(const std::vector<double> &y, qsizetype begin, qsizetype end)
{
    YExtremes e;
    for (qsizetype i = begin; i < end; ++i)
        e.add(y[std::size_t(i)]);
    return e;
}

bool same(const YExtremes &a, const YExtremes &b)
{
    return a.min == b.min && a.max == b.max && a.minPositive == b.minPositive;
}

// A noisy training loss: decaying, with spikes, a few negative and NaN values when asked.
std::vector<ChartPoint> lossCurve(qsizetype n, bool withInvalid, quint32 seed)
{
    QRandomGenerator rng(seed);
    std::vector<ChartPoint> points(static_cast<std::size_t>(n));
    double step = 0;
    for (qsizetype i = 0; i < n; ++i) {
        // Uneven steps: logging intervals change during a run.
        step += 1 + (i % 1000 < 10 ? rng.bounded(5) : 0);
        double v = 2.5 * std::exp(-double(i) / double(n) * 4) + 0.05;
        v *= 1 + 0.3 * (rng.generateDouble() - 0.5);
        if (rng.bounded(5000) == 0)
            v *= 8; // spike
        if (withInvalid && rng.bounded(3000) == 0)
            v = rng.bounded(2) ? -v : std::nan("");
        points[std::size_t(i)] = {step, 1'700'000'000'000 + i * 10, v};
    }
    return points;
}

QImage blank(const QSize &size)
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(Qt::white);
    return image;
}

qsizetype differingPixels(const QImage &a, const QImage &b)
{
    qsizetype n = 0;
    for (int y = 0; y < a.height(); ++y) {
        const auto *la = reinterpret_cast<const QRgb *>(a.constScanLine(y));
        const auto *lb = reinterpret_cast<const QRgb *>(b.constScanLine(y));
        for (int x = 0; x < a.width(); ++x)
            n += la[x] != lb[x];
    }
    return n;
}

} // namespace

class TestM4Summary : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void queriesMatchBruteForce()
    {
        QRandomGenerator rng(42);
        std::vector<double> y;
        M4Summary summary;
        // Grown in uneven batches, so buckets complete at every level between queries.
        for (int round = 0; round < 60; ++round) {
            const int batch = int(rng.bounded(1, 700));
            for (int i = 0; i < batch; ++i) {
                const int kind = int(rng.bounded(50));
                y.push_back(kind == 0   ? std::nan("")
                            : kind == 1 ? -std::numeric_limits<double>::infinity()
                                        : rng.generateDouble() * 200 - 100);
            }
            summary.update(y.data(), qsizetype(y.size()));
            const qsizetype n = qsizetype(y.size());
            for (int q = 0; q < 40; ++q) {
                qsizetype a = qsizetype(rng.bounded(quint64(n + 1)));
                qsizetype b = qsizetype(rng.bounded(quint64(n + 1)));
                if (a > b)
                    std::swap(a, b);
                QVERIFY2(same(summary.query(y.data(), a, b), bruteForce(y, a, b)),
                         qPrintable(u"range %1..%2 of %3"_s.arg(a).arg(b).arg(n)));
            }
        }
        QVERIFY(summary.levelCount() > 5);
        // Odd boundaries around every bucket size.
        const qsizetype n = qsizetype(y.size());
        for (qsizetype size = 1; size < n; size *= 2) {
            for (const qsizetype a : {size - 1, size, size + 1}) {
                for (const qsizetype b : {2 * size - 1, 2 * size, 2 * size + 1, n}) {
                    if (a >= 0 && a <= b && b <= n)
                        QVERIFY(same(summary.query(y.data(), a, b), bruteForce(y, a, b)));
                }
            }
        }
    }

    void firstAndLastValidSkipInvalidRuns()
    {
        std::vector<double> y(1000, -1.0);
        y[3] = 2;
        y[517] = 5;
        y[900] = std::nan("");
        y[901] = 0.5;
        M4Summary s;
        s.update(y.data(), qsizetype(y.size()));
        QCOMPARE(s.firstValid(y.data(), 0, 1000, true), 3);
        QCOMPARE(s.firstValid(y.data(), 4, 1000, true), 517);
        QCOMPARE(s.lastValid(y.data(), 0, 901, true), 517);
        QCOMPARE(s.lastValid(y.data(), 0, 1000, true), 901);
        QCOMPARE(s.firstValid(y.data(), 518, 901, true), -1);
        QCOMPARE(s.firstValid(y.data(), 518, 1000, false), 518);
        QCOMPARE(s.lastValid(y.data(), 0, 901, false), 899);
    }

    void outOfOrderAppendIsSortedAndResummarised()
    {
        SeriesData series(SeriesKey{u"r"_s, u"loss"_s});
        std::vector<ChartPoint> points;
        for (int i = 0; i < 5000; ++i)
            points.push_back({double(2 * i), i, double(i % 97)});
        series.append(points.data(), qsizetype(points.size()));
        (void)series.view(XAxisMode::Step, 0);
        // Late points, in reverse order, between existing steps and before the first.
        std::vector<ChartPoint> late = {{4001, 1, 1000}, {3001, 2, -1000}, {-5, 3, 7}, {4000, 4, 2000}};
        series.append(late.data(), qsizetype(late.size()));
        const SeriesView v = series.view(XAxisMode::Step, 0);
        QCOMPARE(v.size, 5004);
        QVERIFY(std::is_sorted(v.x, v.x + v.size));
        QCOMPARE(v.x[0], -5.0);
        // Equal steps keep their arrival order: the old 4000 before the late one.
        const auto at4000 = std::lower_bound(v.x, v.x + v.size, 4000.0) - v.x;
        QCOMPARE(v.y[at4000], double(2000 % 97));
        QCOMPARE(v.y[at4000 + 1], 2000.0);
        QCOMPARE(v.y[at4000 + 2], 1000.0);
        std::vector<double> y(v.y, v.y + v.size);
        for (const auto &[a, b] : {std::pair<qsizetype, qsizetype>{0, 5004}, {1500, 2600}, {2001, 2003}, {17, 4999}})
            QVERIFY(same(v.summary->query(v.y, a, b), bruteForce(y, a, b)));
        QCOMPARE(v.summary->query(v.y, 0, 5004).min, -1000.0);
    }

    void m4DrawsThePixelsOfThePolyline_data()
    {
        QTest::addColumn<QSize>("size");
        QTest::addColumn<bool>("logY");
        QTest::addColumn<bool>("withInvalid");
        QTest::addColumn<int>("shape"); // 0 whole curve, 1 zoomed in x and y, 2 values on a coarse grid
        QTest::newRow("1600x900 zoomed") << QSize(1600, 900) << false << false << 1;
        QTest::newRow("1600x900 log zoomed") << QSize(1600, 900) << true << true << 1;
        QTest::newRow("300x200 zoomed") << QSize(300, 200) << false << false << 1;
        QTest::newRow("1600x900 coarse values") << QSize(1600, 900) << false << false << 2;
        QTest::newRow("211x97 log coarse values") << QSize(211, 97) << true << true << 2;
        for (const QSize size : {QSize(97, 60), QSize(640, 400), QSize(1600, 900), QSize(3001, 500)}) {
            const QByteArray name = QByteArray::number(size.width()) + 'x' + QByteArray::number(size.height());
            QTest::newRow(QByteArray(name + " linear").constData()) << size << false << false << 0;
            QTest::newRow(QByteArray(name + " log").constData()) << size << true << false << 0;
            QTest::newRow(QByteArray(name + " log, negative and NaN values").constData()) << size << true << true << 0;
        }
    }

    void m4DrawsThePixelsOfThePolyline()
    {
        QFETCH(QSize, size);
        QFETCH(bool, logY);
        QFETCH(bool, withInvalid);
        QFETCH(int, shape);
        SeriesData series(SeriesKey{u"r"_s, u"loss"_s});
        auto points = lossCurve(1'000'000, withInvalid, 7);
        if (shape == 2) {
            // Long runs on one pixel row: what a loss logged with few digits looks like.
            for (ChartPoint &p : points)
                p.value = std::round(p.value * 20) / 20;
        }
        // In batches, as the chart receives them.
        for (std::size_t i = 0; i < points.size(); i += 4096)
            series.append(points.data() + i, qsizetype(std::min<std::size_t>(4096, points.size() - i)));
        const SeriesView v = series.view(XAxisMode::Step, 0);
        const YExtremes all = v.summary->query(v.y, 0, v.size);
        double y0 = logY ? std::log10(all.minPositive) : all.min;
        double y1 = logY ? std::log10(all.max) : all.max;
        // A plot area inset in the image, and an x range that cuts off both ends of the data.
        const QRect plot(10, 5, size.width() - 20, size.height() - 10);
        double x0 = v.x[1000], x1 = v.x[v.size - 1000];
        if (shape == 1) {
            // About 6 points per column; lines leave the plot through every edge.
            x0 = v.x[300'000];
            x1 = v.x[310'000];
        }
        if (shape == 1) {
            // The middle of the visible values only.
            const YExtremes near = v.summary->query(v.y, 300'000, 310'000);
            const double lo = logY ? std::log10(near.minPositive) : near.min;
            const double hi = logY ? std::log10(near.max) : near.max;
            y0 = lo + (hi - lo) * 0.2;
            y1 = hi - (hi - lo) * 0.2;
        }
        const PlotMapping m = PlotMapping::fit(x0, x1, y0, y1, plot, logY);

        QPolygonF decimated;
        appendM4Polyline(v, m, plot.left(), plot.right(), decimated);
        QPolygonF full;
        for (qsizetype i = 0; i < v.size; ++i) {
            if (m.valid(v.y[i]))
                full.append(QPointF(m.column(v.x[i]), m.row(v.y[i])));
        }
        QVERIFY(decimated.size() <= 6 * plot.width() + 2);

        const QPen pen(Qt::black, 1);
        QImage expected = blank(size), actual = blank(size);
        for (auto [image, line] : {std::pair{&expected, &full}, std::pair{&actual, &decimated}}) {
            QPainter p(image);
            p.setRenderHint(QPainter::Antialiasing, false);
            p.setClipRect(plot);
            p.setPen(pen);
            p.drawPolyline(*line);
        }
        if (qEnvironmentVariableIsSet("M4_DEBUG")) {
            int shown = 0;
            for (int yy = 0; yy < size.height() && shown < 6; ++yy)
                for (int xx = 0; xx < size.width() && shown < 6; ++xx)
                    if (expected.pixel(xx, yy) != actual.pixel(xx, yy)) {
                        ++shown;
                        qDebug() << "pixel" << xx << yy << "expected ink" << (expected.pixel(xx, yy) != 0xffffffff);
                        for (const auto *line : {&full, &decimated}) {
                            QString text;
                            QPointF prev(-1e9, -1e9);
                            for (const QPointF &pt : *line)
                                if (std::abs(pt.x() - xx) <= 1 && pt != prev) {
                                    text += u"(%1,%2) "_s.arg(pt.x()).arg(pt.y());
                                    prev = pt;
                                }
                            qDebug().noquote() << (line == &full ? "full" : "m4  ") << text.right(600) << line->first()
                                               << line->last();
                        }
                    }
        }
        QCOMPARE(differingPixels(expected, actual), 0);
        // Not vacuous: the curve is there.
        QVERIFY(differingPixels(expected, blank(size)) > size.width());
    }
};

FERRY_TEST_MAIN(TestM4Summary)
#include "tst_m4summary.moc"
