// The rule for a run's value between its points and a group's statistics at each x
// (analysis/curves.h): holes, ends, repeated steps, the union of steps, and the picture at a
// chart's columns agreeing with the exact points.
#include "analysis/curves.h"
#include "support/testmain.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

using namespace ferry::run;

namespace {

constexpr double kCurveNaN = std::numeric_limits<double>::quiet_NaN();

CurveView viewOf(const std::vector<double> &x, const std::vector<double> &y)
{
    return {x.data(), y.data(), static_cast<qsizetype>(x.size())};
}

bool nearlyEqual(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

// A curve from 0 to `last` on a grid of its own (every `every`th step, the last one always), its
// values a walk of `random`.
Curve randomCurve(std::mt19937_64 &random, int every, int last)
{
    std::uniform_real_distribution<double> step(-1, 1);
    std::vector<double> x, y;
    double v = 0;
    for (int s = 0; s <= last; s += every) {
        x.push_back(s);
        y.push_back(v += step(random));
    }
    if (x.back() != last) {
        x.push_back(last);
        y.push_back(v);
    }
    return curveOf(x, y);
}

} // namespace

class TestCurves : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void valueAtFollowsTheRule_data()
    {
        QTest::addColumn<double>("x");
        QTest::addColumn<double>("expected"); // NaN: none
        QTest::newRow("before the first step") << -1.0 << kCurveNaN;
        QTest::newRow("at the first step") << 0.0 << 1.0;
        QTest::newRow("between: the later of the repeated step") << 1.0 << 2.0;
        QTest::newRow("at a repeated step: the later") << 2.0 << 3.0;
        QTest::newRow("between two points") << 3.0 << 5.0;
        QTest::newRow("at a point") << 4.0 << 7.0;
        QTest::newRow("on the segment to a NaN") << 5.0 << kCurveNaN;
        QTest::newRow("at the NaN") << 6.0 << kCurveNaN;
        QTest::newRow("on the segment from the NaN") << 8.0 << kCurveNaN;
        QTest::newRow("at the last step") << 10.0 << 0.0;
        QTest::newRow("beyond the last step") << 11.0 << kCurveNaN;
    }
    void valueAtFollowsTheRule()
    {
        QFETCH(double, x);
        QFETCH(double, expected);
        // A point without a step first (the store's order), step 2 written twice, a NaN at 6.
        const std::vector<double> xs{kCurveNaN, 0, 2, 2, 4, 6, 10};
        const std::vector<double> ys{99, 1, 5, 3, 7, kCurveNaN, 0};
        const auto got = valueAt(viewOf(xs, ys), x);
        if (std::isnan(expected)) {
            QVERIFY2(!got, got ? qPrintable(QString::number(*got)) : "");
        } else {
            QVERIFY(got);
            QCOMPARE(*got, expected);
        }
        // An infinity is a hole as NaN is.
        const std::vector<double> inf{99, 1, 5, 3, 7, std::numeric_limits<double>::infinity(), 0};
        QCOMPARE(valueAt(viewOf(xs, inf), x).has_value(), !std::isnan(expected));
    }

    void curveOfOrdersAndKeepsTheLaterOfEqualSteps()
    {
        const std::vector<double> x{3, 1, kCurveNaN, 3, 2, 1};
        const std::vector<double> y{30, 10, 0, 31, 20, 11};
        const Curve c = curveOf(x, y);
        QCOMPARE(std::vector<double>(c.x.begin(), c.x.end()), (std::vector<double>{1, 2, 3}));
        QCOMPARE(std::vector<double>(c.y.begin(), c.y.end()), (std::vector<double>{11, 20, 31}));
        const Curve s = stepCurve({{2, 5, 1.5, kCurveNaN},
                                   {kCurveNaN, 6, 9, kCurveNaN},
                                   {1, 7, kCurveNaN, kCurveNaN},
                                   {2, 8, 2.5, kCurveNaN}});
        QCOMPARE(std::vector<double>(s.x.begin(), s.x.end()), (std::vector<double>{1, 2}));
        QVERIFY(std::isnan(s.y[0])); // kept, as a hole
        QCOMPARE(s.y[1], 2.5);
    }

    void statsAreNumpys()
    {
        std::vector<double> four{4, 1, 3, 2};
        GroupStats s = statsOf(7, four);
        QCOMPARE(s.x, 7.0);
        QCOMPARE(s.n, 4);
        QCOMPARE(s.mean, 2.5);
        QCOMPARE(s.median, 2.5);          // the mean of the two middle values
        QCOMPARE(s.std, std::sqrt(1.25)); // ddof = 0
        QCOMPARE(s.min, 1.0);
        QCOMPARE(s.max, 4.0);
        QCOMPARE(bandLow(s, Band::Std), 2.5 - std::sqrt(1.25));
        QCOMPARE(bandHigh(s, Band::MinMax), 4.0);
        std::vector<double> three{5, 1, 3};
        QCOMPARE(statsOf(0, three).median, 3.0);
        std::vector<double> one{5};
        QCOMPARE(statsOf(0, one).std, 0.0);
        const GroupStats none = statsOf(0, {});
        QCOMPARE(none.n, 0);
        QVERIFY(std::isnan(none.mean) && std::isnan(none.median) && std::isnan(none.std) && std::isnan(none.min) &&
                std::isnan(none.max));
    }

    // Three runs on different grids: A at every step to 3, B every other step to 4, C at 1 (NaN)
    // and 3. n drops where a run has ended, before it starts, and around its NaN.
    void aggregateTakesTheUnionOfSteps()
    {
        const std::vector<double> ax{0, 1, 2, 3}, ay{0, 1, 2, 3};
        const std::vector<double> bx{0, 2, 4}, by{10, 12, 14};
        const std::vector<double> cx{1, 3}, cy{kCurveNaN, 5};
        const CurveView curves[]{viewOf(ax, ay), viewOf(bx, by), viewOf(cx, cy)};
        const std::vector<GroupStats> got = aggregate(curves);
        QCOMPARE(got.size(), std::size_t(5));
        const struct {
            double x;
            int n;
            double mean, min, max;
        } expected[]{{0, 2, 5, 0, 10}, {1, 2, 6, 1, 11}, {2, 2, 7, 2, 12}, {3, 3, 7, 3, 13}, {4, 1, 14, 14, 14}};
        for (std::size_t i = 0; i < got.size(); ++i) {
            QCOMPARE(got[i].x, expected[i].x);
            QCOMPARE(got[i].n, expected[i].n);
            QCOMPARE(got[i].mean, expected[i].mean);
            QCOMPARE(got[i].min, expected[i].min);
            QCOMPARE(got[i].max, expected[i].max);
        }
        QCOMPARE(got[4].std, 0.0);
        // A step where every run has a hole comes with n = 0.
        const std::vector<double> dx{0, 1, 2}, dy{1, kCurveNaN, 1};
        const CurveView alone[]{viewOf(dx, dy)};
        const std::vector<GroupStats> holes = aggregate(alone);
        QCOMPARE(holes.size(), std::size_t(3));
        QCOMPARE(holes[1].n, 0);
        QVERIFY(std::isnan(holes[1].mean));
        QCOMPARE(aggregate(std::span<const CurveView>()).size(), std::size_t(0));
    }

    // The picture: at the union's steps it is the exact aggregate; between two of them the mean
    // lies on the straight line between the exact means (runs covering the whole range).
    void pictureAgreesWithTheExactPoints()
    {
        std::mt19937_64 random(37);
        std::vector<Curve> curves;
        for (int every : {1, 3, 7, 10, 4})
            curves.push_back(randomCurve(random, every, 200));
        std::vector<CurveView> views;
        for (const Curve &c : curves)
            views.push_back(c.view());
        const std::vector<GroupStats> exact = aggregate(views);
        std::vector<double> steps;
        for (const GroupStats &s : exact)
            steps.push_back(s.x);
        QCOMPARE(steps.size(), std::size_t(201));
        const std::vector<GroupStats> onSteps = aggregateAt(views, steps);
        for (std::size_t i = 0; i < exact.size(); ++i) {
            QCOMPARE(onSteps[i].n, exact[i].n);
            QCOMPARE(onSteps[i].mean, exact[i].mean);
            QCOMPARE(onSteps[i].median, exact[i].median);
            QCOMPARE(onSteps[i].std, exact[i].std);
        }
        const std::vector<double> grid = evenGrid(0, 200, 37);
        const std::vector<GroupStats> picture = aggregateAt(views, grid);
        QCOMPARE(picture.size(), grid.size());
        for (const GroupStats &p : picture) {
            QCOMPARE(p.n, 5);
            const auto right = std::lower_bound(steps.begin(), steps.end(), p.x);
            const std::size_t j = std::size_t(right - steps.begin());
            if (steps[j] == p.x) {
                QCOMPARE(p.mean, exact[j].mean);
                continue;
            }
            const GroupStats &a = exact[j - 1], &b = exact[j];
            const double line = a.mean + (b.mean - a.mean) * (p.x - a.x) / (b.x - a.x);
            QVERIFY2(nearlyEqual(p.mean, line),
                     qPrintable(QStringLiteral("at %1: %2, the line %3").arg(p.x).arg(p.mean).arg(line)));
            QVERIFY(p.min >= std::min(a.min, b.min) - 1e-12 && p.max <= std::max(a.max, b.max) + 1e-12);
        }
        // x values out of order start the walk over; the answer is the same.
        const double back[]{150, 10};
        const std::vector<GroupStats> reversed = aggregateAt(views, back);
        QCOMPARE(reversed[1].mean, aggregateAt(views, std::span<const double>(back + 1, 1))[0].mean);
    }

    // Each curve read from its own origin (a chart's time since each run's start): the same as
    // the curves moved to a common origin.
    void originsShiftEachCurve()
    {
        std::mt19937_64 random(11);
        std::vector<Curve> curves, moved;
        const double origins[]{1000, 5000, 250};
        for (int k = 0; k < 3; ++k) {
            moved.push_back(randomCurve(random, 1 + k, 100));
            Curve c = moved.back();
            for (double &x : c.x)
                x += origins[k];
            curves.push_back(std::move(c));
        }
        std::vector<CurveView> views, movedViews;
        for (std::size_t k = 0; k < curves.size(); ++k) {
            views.push_back(curves[k].view());
            movedViews.push_back(moved[k].view());
        }
        const std::vector<double> grid = evenGrid(0, 100, 41);
        const std::vector<GroupStats> shifted = aggregateAt(views, grid, origins);
        const std::vector<GroupStats> expected = aggregateAt(movedViews, grid);
        QCOMPARE(shifted.size(), expected.size());
        for (std::size_t i = 0; i < grid.size(); ++i) {
            QCOMPARE(shifted[i].x, grid[i]);
            QCOMPARE(shifted[i].n, expected[i].n);
            if (expected[i].n > 0)
                QVERIFY(nearlyEqual(shifted[i].mean, expected[i].mean));
        }
        QCOMPARE(shifted[20].n, 3);
    }

    // Irregular grids (gaps of every size, repeated steps, NaN holes, a leading point without a
    // step), walked at random sorted x by the galloping cursor: each value is the rule's, found
    // by a plain search.
    void walksAgreeWithAPlainSearch()
    {
        std::mt19937_64 random(2027);
        std::uniform_real_distribution<double> unit(0, 1);
        std::vector<std::vector<double>> xs(6), ys(6);
        for (std::size_t c = 0; c < xs.size(); ++c) {
            xs[c].push_back(kCurveNaN);
            ys[c].push_back(1);
            double x = std::floor(unit(random) * 50);
            const int count = 50 + int(unit(random) * 3000);
            for (int i = 0; i < count; ++i) {
                const double r = unit(random);
                x += r < 0.1 ? 0 : r < 0.8 ? 1 : std::floor(unit(random) * 200);
                xs[c].push_back(x);
                ys[c].push_back(unit(random) < 0.02 ? kCurveNaN : unit(random));
            }
        }
        // The rule by a plain search: the last point at or before t, the first after it.
        const auto plain = [](const std::vector<double> &x, const std::vector<double> &y,
                              double t) -> std::optional<double> {
            qsizetype i = -1;
            for (qsizetype k = 1; k < qsizetype(x.size()); ++k) {
                if (x[std::size_t(k)] <= t)
                    i = k;
            }
            if (i < 0)
                return std::nullopt;
            if (x[std::size_t(i)] == t)
                return std::isfinite(y[std::size_t(i)]) ? std::optional<double>(y[std::size_t(i)]) : std::nullopt;
            if (i + 1 >= qsizetype(x.size()))
                return std::nullopt;
            qsizetype j = i + 1;
            while (j + 1 < qsizetype(x.size()) && x[std::size_t(j + 1)] == x[std::size_t(i + 1)])
                ++j;
            const double y0 = y[std::size_t(i)], y1 = y[std::size_t(j)];
            if (!std::isfinite(y0) || !std::isfinite(y1))
                return std::nullopt;
            const double x0 = x[std::size_t(i)], x1 = x[std::size_t(i + 1)];
            return y0 + (y1 - y0) * (t - x0) / (x1 - x0);
        };
        std::vector<CurveView> views;
        double end = 0;
        for (std::size_t c = 0; c < xs.size(); ++c) {
            views.push_back(viewOf(xs[c], ys[c]));
            end = std::max(end, xs[c].back());
        }
        std::vector<double> ts;
        for (int i = 0; i < 3000; ++i)
            ts.push_back(unit(random) < 0.3 ? std::floor(unit(random) * (end + 20)) : unit(random) * (end + 20) - 10);
        std::sort(ts.begin(), ts.end());
        const std::vector<GroupStats> walked = aggregateAt(views, ts);
        int counted = 0, partial = 0;
        for (const GroupStats &w : walked) {
            counted += w.n;
            partial += w.n > 0 && w.n < 6 ? 1 : 0;
        }
        QVERIFY2(counted > 6000 && partial > 100,
                 qPrintable(QStringLiteral("%1 values, %2 partly").arg(counted).arg(partial)));
        for (std::size_t i = 0; i < ts.size(); ++i) {
            std::vector<double> values;
            for (std::size_t c = 0; c < xs.size(); ++c) {
                if (const auto v = plain(xs[c], ys[c], ts[i]))
                    values.push_back(*v);
            }
            const GroupStats expected = statsOf(ts[i], values);
            QCOMPARE(walked[i].n, expected.n);
            if (expected.n > 0)
                QCOMPARE(walked[i].mean, expected.mean);
        }
        // The exact walk visits every distinct step once.
        std::vector<double> all;
        for (const auto &x : xs)
            all.insert(all.end(), x.begin() + 1, x.end());
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
        const std::vector<GroupStats> exact = aggregate(views);
        QCOMPARE(exact.size(), all.size());
        for (std::size_t i = 0; i < all.size(); i += 97)
            QCOMPARE(exact[i].x, all[i]);
    }

    void evenGridEndsExactly()
    {
        const std::vector<double> g = evenGrid(0.1, 0.7, 7);
        QCOMPARE(g.size(), std::size_t(7));
        QCOMPARE(g.front(), 0.1);
        QCOMPARE(g.back(), 0.7);
        QVERIFY(std::is_sorted(g.begin(), g.end()));
        QCOMPARE(evenGrid(3, 9, 1), std::vector<double>{3});
    }
};

FERRY_TEST_APPLESS_MAIN(TestCurves)
#include "tst_curves.moc"
