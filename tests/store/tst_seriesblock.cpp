// The metric store's block codec (core/store/seriesblock.h): every point decodes bit for bit,
// whatever it holds, and a block's size on the curves scripts log.
#include "store/seriesblock.h"
#include "support/testmain.h"

#include <QRandomGenerator>
#include <QTest>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using seriesblock::Codec;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

bool sameBits(double a, double b)
{
    return std::bit_cast<quint64>(a) == std::bit_cast<quint64>(b);
}

// Encodes and decodes; fails the test at the first point that differs in any bit.
std::vector<SeriesPoint> roundTrip(const std::vector<SeriesPoint> &points, QByteArray *block = nullptr)
{
    const QByteArray bytes = seriesblock::encode(points);
    if (block)
        *block = bytes;
    std::vector<SeriesPoint> back;
    const auto done = seriesblock::decode(bytes, back);
    if (!done)
        qWarning("%s", qPrintable(done.error().message));
    return done ? back : std::vector<SeriesPoint>{};
}

void compareBits(const std::vector<SeriesPoint> &points, const std::vector<SeriesPoint> &back)
{
    QCOMPARE(back.size(), points.size());
    for (size_t i = 0; i < points.size(); ++i) {
        const SeriesPoint &a = points[i], &b = back[i];
        if (!sameBits(a.step, b.step) || a.wallMs != b.wallMs || !sameBits(a.value, b.value) ||
            !sameBits(a.epoch, b.epoch))
            QFAIL(qPrintable(u"point %1: step %2/%3 wall %4/%5 value %6/%7 epoch %8/%9"_s.arg(i)
                                 .arg(a.step, 0, 'g', 17)
                                 .arg(b.step, 0, 'g', 17)
                                 .arg(a.wallMs)
                                 .arg(b.wallMs)
                                 .arg(a.value, 0, 'g', 17)
                                 .arg(b.value, 0, 'g', 17)
                                 .arg(a.epoch, 0, 'g', 17)
                                 .arg(b.epoch, 0, 'g', 17)));
    }
}

double fromBits(quint64 bits)
{
    return std::bit_cast<double>(bits);
}

// A loss curve as a script prints it: `digits` significant digits, parsed back.
std::vector<SeriesPoint> printedCurve(int n, int digits, quint32 seed)
{
    QRandomGenerator random(seed);
    std::vector<SeriesPoint> points;
    qint64 wall = 1'764'000'000'000;
    for (int i = 0; i < n; ++i) {
        const double t = double(i) / n;
        const double noise = (random.generateDouble() - 0.5) * 0.05;
        const double loss = 2.3 * std::exp(-6 * t) + 0.35 + noise;
        wall += 100 + random.bounded(-5, 6);
        points.push_back(SeriesPoint{double(i + 1), wall, QString::number(loss, 'g', digits).toDouble(), kNaN});
    }
    return points;
}

} // namespace

class TestSeriesBlock : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void specialValuesRoundTrip()
    {
        const double specials[] = {kNaN,
                                   -kNaN,
                                   fromBits(0x7ff0000000000001ull), // a signalling NaN's payload
                                   fromBits(0x7ff8dead0000beefull),
                                   fromBits(0xfff0000000000123ull),
                                   kInf,
                                   -kInf,
                                   0.0,
                                   -0.0,
                                   std::numeric_limits<double>::denorm_min(),
                                   -std::numeric_limits<double>::denorm_min(),
                                   fromBits(0x000fffffffffffffull), // the largest denormal
                                   std::numeric_limits<double>::min(),
                                   std::numeric_limits<double>::max(),
                                   -std::numeric_limits<double>::max(),
                                   std::numeric_limits<double>::epsilon(),
                                   0.1 + 0.2,
                                   1e22,
                                   1e23,
                                   9007199254740993.0,
                                   0.2831,
                                   double(0.2831f)};
        std::vector<SeriesPoint> points;
        int i = 0;
        for (double v : specials) {
            for (double w : specials) // every pair as value and step, epoch, so each column meets each
                points.push_back(SeriesPoint{w, qint64(i++) * 7919 - 100000, v, i % 3 ? v : w});
        }
        compareBits(points, roundTrip(points));
        // The same values alone in a column, each codec's own way: a block of one repeated value.
        for (double v : specials) {
            const std::vector<SeriesPoint> same(5, SeriesPoint{v, 0, v, v});
            compareBits(same, roundTrip(same));
        }
    }

    void stepsAndWallTimesOfEveryShape()
    {
        const std::vector<std::vector<double>> stepSets{
            {1, 2, 3, 4, 5, 6},
            {5, 5, 5, 2, 2, 9},                                           // repeated and out of order
            {0, 1e15, -1e15, 9007199254740991.0, -9007199254740991.0, 3}, // huge, below 2^53
            {9007199254740992.0, 1e300, -1e300, 1.5, 0.25, -0.0},         // beyond 2^53, fractional, -0
            {0.5, 1.0, 1.5, 2.0, 2.5, 3.0},                               // fractional steps
            {kNaN, 1, 2, kNaN, kInf, -kInf},                              // no step, infinities
        };
        const std::vector<std::vector<qint64>> wallSets{
            {1'764'000'000'000, 1'764'000'000'100, 1'764'000'000'200, 1'764'000'000'300, 1'764'000'000'400,
             1'764'000'000'500},
            {0, 0, 0, 0, 0, 0},
            {5, 3, 9, -4, 7, 7}, // clocks that go back
            {std::numeric_limits<qint64>::max(), std::numeric_limits<qint64>::min(), 0, -1, 1, 1ll << 62},
        };
        for (const auto &steps : stepSets) {
            for (const auto &walls : wallSets) {
                std::vector<SeriesPoint> points;
                for (size_t i = 0; i < steps.size(); ++i)
                    points.push_back(SeriesPoint{steps[i], walls[i], 0.1 * double(i), double(i / 2)});
                compareBits(points, roundTrip(points));
            }
        }
    }

    void randomBitPatternsRoundTrip()
    {
        QRandomGenerator random(17);
        for (int round = 0; round < 200; ++round) {
            const int n = int(random.bounded(1, 1500));
            std::vector<SeriesPoint> points;
            for (int i = 0; i < n; ++i) {
                // A mix: random bits, printed decimals, floats, integers, repeats.
                const auto pick = [&]() -> double {
                    switch (random.bounded(5)) {
                    case 0:
                        return fromBits(random.generate64());
                    case 1:
                        return QString::number(random.generateDouble() * 10, 'g', int(random.bounded(1, 18)))
                            .toDouble();
                    case 2:
                        return double(float(random.generateDouble()));
                    case 3:
                        return double(qint64(random.generate64()) >> random.bounded(64));
                    default:
                        return points.empty() ? 0.0 : points.back().value;
                    }
                };
                points.push_back(
                    SeriesPoint{pick(), qint64(random.generate64()) >> random.bounded(64), pick(), pick()});
            }
            compareBits(points, roundTrip(points));
        }
    }

    void emptyBlock() { compareBits({}, roundTrip({})); }

    void printedCurvesAreSmall_data()
    {
        QTest::addColumn<int>("digits");
        QTest::addColumn<double>("maxBytesPerPoint");
        // docs/metric-store.md measures these; the bounds leave room, they are not the figures.
        QTest::newRow("4 digits") << 4 << 3.2;
        QTest::newRow("5 digits") << 5 << 3.5;
        QTest::newRow("6 digits") << 6 << 4.2;
    }

    void printedCurvesAreSmall()
    {
        QFETCH(int, digits);
        QFETCH(double, maxBytesPerPoint);
        const std::vector<SeriesPoint> points = printedCurve(seriesblock::kBlockPoints, digits, 3);
        QByteArray block;
        compareBits(points, roundTrip(points, &block));
        const double perPoint = double(block.size()) / double(points.size());
        QVERIFY2(perPoint <= maxBytesPerPoint, qPrintable(u"%1 bytes per point"_s.arg(perPoint)));
        const auto stats = seriesblock::columnStats(block);
        QVERIFY(stats);
        QCOMPARE((*stats)[0].codec, Codec::DeltaOfDelta); // steps 1, 2, 3...
        QVERIFY((*stats)[0].bytes <= 4);                  // the first step and one run of zero delta-of-deltas
        QCOMPARE((*stats)[2].codec, Codec::Decimal);
        QCOMPARE((*stats)[3].codec, Codec::Constant); // no epochs
    }

    void float32ValuesUseTheirOwnDecimals()
    {
        std::vector<SeriesPoint> points = printedCurve(seriesblock::kBlockPoints, 4, 5);
        for (SeriesPoint &p : points)
            p.value = double(float(p.value)); // as TensorBoard's simple_value holds them
        QByteArray block;
        compareBits(points, roundTrip(points, &block));
        const auto stats = seriesblock::columnStats(block);
        QVERIFY(stats);
        QCOMPARE((*stats)[2].codec, Codec::Decimal32);
        QVERIFY((*stats)[2].bytes < 3 * seriesblock::kBlockPoints);
    }

    void noiseFallsBackToGorillaOrRaw()
    {
        QRandomGenerator random(9);
        std::vector<SeriesPoint> points;
        for (int i = 0; i < 1000; ++i)
            points.push_back(SeriesPoint{double(i), 0, random.generateDouble() * 2 - 1, kNaN});
        QByteArray block;
        compareBits(points, roundTrip(points, &block));
        const auto stats = seriesblock::columnStats(block);
        QVERIFY(stats);
        QVERIFY((*stats)[2].codec == Codec::Gorilla || (*stats)[2].codec == Codec::Raw);
        QVERIFY((*stats)[2].bytes <= 8 * 1000);
    }

    void damagedBlocksAreRefused()
    {
        const std::vector<SeriesPoint> points = printedCurve(300, 5, 1);
        const QByteArray block = seriesblock::encode(points);
        QCOMPARE(seriesblock::header(block)->count, 300);
        // Every single flipped bit is caught by the checksum; every truncation too.
        for (qsizetype byte = 0; byte < block.size(); byte += 7) {
            QByteArray bad = block;
            bad[byte] = char(bad[byte] ^ (1 << (byte % 8)));
            std::vector<SeriesPoint> out{SeriesPoint{}};
            const auto decoded = seriesblock::decode(bad, out);
            QVERIFY(!decoded);
            QVERIFY(decoded.error().message.startsWith(u"damaged metric block"_s));
            QCOMPARE(out.size(), size_t(1)); // nothing appended
        }
        for (qsizetype size : {qsizetype(0), qsizetype(3), block.size() / 2, block.size() - 1}) {
            std::vector<SeriesPoint> out;
            QVERIFY(!seriesblock::decode(block.first(size), out));
            QVERIFY(out.empty());
        }
    }

    void decodeAppends()
    {
        const std::vector<SeriesPoint> a = printedCurve(10, 4, 1), b = printedCurve(20, 4, 2);
        std::vector<SeriesPoint> out;
        QVERIFY(seriesblock::decode(seriesblock::encode(a), out));
        QVERIFY(seriesblock::decode(seriesblock::encode(b), out));
        std::vector<SeriesPoint> both = a;
        both.insert(both.end(), b.begin(), b.end());
        compareBits(both, out);
    }

    // Decoded into columns, epochs take memory only once some point carries one: the points
    // before it get NaN, and a damaged block leaves the columns as they were.
    void columnsKeepEpochsOnlyWhenThereAreAny()
    {
        std::vector<SeriesPoint> plain = printedCurve(10, 4, 1), epochs = printedCurve(5, 4, 2);
        for (SeriesPoint &p : plain)
            p.epoch = std::nan("");
        for (size_t i = 0; i < epochs.size(); ++i)
            epochs[i].epoch = i < 2 ? std::nan("") : double(i);
        SeriesColumns out;
        QVERIFY(seriesblock::decode(seriesblock::encode(plain), out));
        QCOMPARE(out.size(), 10);
        QVERIFY(out.epochs.empty());
        QVERIFY(std::isnan(out.epoch(3)));
        QByteArray damaged = seriesblock::encode(epochs);
        damaged[damaged.size() / 2] = char(damaged[damaged.size() / 2] ^ 0x5a);
        QVERIFY(!seriesblock::decode(damaged, out));
        QCOMPARE(out.size(), 10);
        QVERIFY(out.epochs.empty());
        QVERIFY(seriesblock::decode(seriesblock::encode(epochs), out));
        QVERIFY(seriesblock::decode(seriesblock::encode(plain), out));
        QCOMPARE(out.size(), 25);
        QCOMPARE(out.epochs.size(), size_t(25));
        for (size_t i = 0; i < 25; ++i) {
            const bool carries = i >= 12 && i < 15;
            QVERIFY2(carries != std::isnan(out.epochs[i]), qPrintable(QString::number(i)));
        }
        QCOMPARE(out.epochs[14], 4.0);
        // Columns appended to columns: the same rule.
        SeriesColumns none;
        QVERIFY(seriesblock::decode(seriesblock::encode(plain), none));
        SeriesColumns joined;
        joined.append(none, 4);
        QVERIFY(joined.epochs.empty());
        joined.append(out, 10);
        QCOMPARE(joined.size(), 21);
        QCOMPARE(joined.epochs.size(), size_t(21));
        QCOMPARE(joined.epochs[10], 4.0);
        QVERIFY(std::isnan(joined.epochs[5]));
        joined.append(none);
        QCOMPARE(joined.epochs.size(), size_t(31));
    }
};

FERRY_TEST_GUILESS_MAIN(TestSeriesBlock)
#include "tst_seriesblock.moc"
