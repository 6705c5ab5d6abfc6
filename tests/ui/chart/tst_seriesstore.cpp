// The chart's data: concurrent producers, the EMA, run colours.
#include "support/testmain.h"
#include "ui/chart/losschart.h"
#include "ui/chart/seriesstore.h"

#include <QRandomGenerator>
#include <QTest>

#include <atomic>
#include <cmath>
#include <thread>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

class TestSeriesStore : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void seriesAreKeyedByRunAndMetric()
    {
        SeriesStore store;
        const int loss = store.series(u"a"_s, u"loss"_s);
        QCOMPARE(store.series(u"a"_s, u"loss"_s), loss);
        QVERIFY(store.series(u"b"_s, u"loss"_s) != loss);
        QVERIFY(store.series(u"a"_s, u"val_loss"_s) != loss);
        QCOMPARE(store.seriesCount(), 0); // nothing drained yet
        QVERIFY(store.drain());
        QCOMPARE(store.seriesCount(), 3);
        QCOMPARE(store.data(2).key(), (SeriesKey{u"a"_s, u"val_loss"_s}));
        QVERIFY(!store.drain());
    }

    void everyPointArrivesOnceWhileTheChartDrains()
    {
        auto store = std::make_shared<SeriesStore>();
        LossChart chart;
        chart.resize(640, 400);
        chart.setStore(store);
        chart.show();
        QVERIFY(QTest::qWaitForWindowExposed(&chart));

        constexpr int Threads = 4, PerThread = 60'000;
        std::atomic<int> done = 0;
        std::vector<std::thread> producers;
        for (int t = 0; t < Threads; ++t) {
            producers.emplace_back([&store, &done, t] {
                QRandomGenerator rng(quint32(t + 1));
                // One series of its own, and one that every thread writes to (arrives out of order).
                const int own = store->series(u"run-%1"_s.arg(t), u"loss"_s);
                const int shared = store->series(u"shared"_s, u"loss"_s);
                int i = 0;
                while (i < PerThread) {
                    const int n = std::min(PerThread - i, int(rng.bounded(1, 300)));
                    std::vector<ChartPoint> batch;
                    for (int k = 0; k < n; ++k, ++i)
                        batch.push_back({double(t * PerThread + i), i, double(t * PerThread + i)});
                    store->append(own, batch);
                    store->append(shared, batch);
                    // Slow enough that the chart's 25 Hz timer drains between batches.
                    if (rng.bounded(2) == 0)
                        std::this_thread::sleep_for(std::chrono::milliseconds(1));
                }
                ++done;
            });
        }
        int drainsSeen = 0;
        quint64 revision = store->revision();
        while (done < Threads) {
            QTest::qWait(5);
            if (store->revision() != revision) {
                ++drainsSeen;
                revision = store->revision();
            }
        }
        for (auto &p : producers)
            p.join();
        chart.refresh();
        QVERIFY2(drainsSeen > 0, "the chart's timer drained while producers ran");

        QCOMPARE(store->seriesCount(), Threads + 1);
        for (int i = 0; i < store->seriesCount(); ++i) {
            const SeriesData &d = store->data(i);
            const bool shared = d.key().runId == u"shared"_s;
            QCOMPARE(d.size(), qsizetype(shared ? Threads * PerThread : PerThread));
            QVERIFY(std::is_sorted(d.steps().begin(), d.steps().end()));
            // Steps are unique ids: sorted and distinct means each point exactly once.
            QVERIFY(std::adjacent_find(d.steps().begin(), d.steps().end()) == d.steps().end());
            for (qsizetype k = 0; k < d.size(); ++k)
                QCOMPARE(d.values()[std::size_t(k)], d.steps()[std::size_t(k)]);
            if (!shared) {
                const int t = d.key().runId.mid(4).toInt();
                QCOMPARE(d.steps().front(), double(t * PerThread));
                QCOMPARE(d.steps().back(), double(t * PerThread + PerThread - 1));
            }
        }
    }

    // Columns read from the store: an empty series takes them whole, a series with points merges
    // them by step like points; either way the series holds exactly the points in step order.
    void columnsAreTakenOrMerged()
    {
        SeriesStore store;
        const int fresh = store.series(u"a"_s, u"loss"_s), merged = store.series(u"b"_s, u"loss"_s);
        const auto columns = [](std::initializer_list<double> steps) {
            ferry::run::SeriesColumns c;
            for (double s : steps) {
                c.steps.push_back(s);
                c.wallMs.push_back(1000 + s);
                c.values.push_back(s / 10);
                c.epochs.push_back(std::floor(s / 2));
            }
            return c;
        };
        store.append(fresh, columns({1, 2, 3, 4}));
        store.append(merged, std::vector<ChartPoint>{{2.5, 7, 0.25, NAN}, {10, 8, 1.0, NAN}});
        store.append(merged, columns({1, 2, 3, 4}));
        store.append(merged, columns({0})); // two column batches of one series before a drain
        QVERIFY(store.drain());
        const SeriesData &a = store.data(fresh);
        QCOMPARE(a.size(), 4);
        QCOMPARE(a.steps().back(), 4.0);
        QCOMPARE(a.values().at(2), 0.3);
        QCOMPARE(a.firstWallMs(), 1001);
        QVERIFY(a.hasEpochs());
        const SeriesData &b = store.data(merged);
        QCOMPARE(std::vector<double>(b.steps().begin(), b.steps().end()),
                 (std::vector<double>{0, 1, 2, 2.5, 3, 4, 10}));
        QCOMPARE(b.values().at(3), 0.25);
        QCOMPARE(b.firstWallMs(), 7);
        QCOMPARE(store.pointCount(), 11);
    }

    void preparedSeriesAreTakenInOrder()
    {
        SeriesStore store;
        const int fresh = store.series(u"a"_s, u"loss"_s), late = store.series(u"b"_s, u"loss"_s);
        const auto prepared = [](const QString &run, std::initializer_list<double> steps) {
            ferry::run::SeriesColumns c;
            for (double s : steps) {
                c.steps.push_back(s);
                c.wallMs.push_back(1000 + s);
                c.values.push_back(s / 10);
                c.epochs.push_back(NAN);
            }
            auto data = std::make_unique<SeriesData>(SeriesKey{run, u"loss"_s});
            data->append(std::move(c));
            data->prepare();
            return data;
        };
        QVERIFY(store.drain());
        const SeriesData *before = &store.data(fresh);
        store.append(fresh, prepared(u"a"_s, {1, 2, 3}));
        store.append(fresh, std::vector<ChartPoint>{{2.5, 7, 0.25, NAN}}); // a live point after it
        // Columns came first: the prepared series follows them.
        ferry::run::SeriesColumns first;
        first.steps = {5};
        first.wallMs = {1};
        first.values = {0.5};
        first.epochs = {NAN};
        store.append(late, std::move(first));
        store.append(late, prepared(u"b"_s, {6, 7}));
        QVERIFY(store.drain());
        QCOMPARE(&store.data(fresh), before); // the chart's reference stays good
        const SeriesData &a = store.data(fresh);
        QCOMPARE(a.key().runId, u"a"_s);
        QCOMPARE(std::vector<double>(a.steps().begin(), a.steps().end()), (std::vector<double>{1, 2, 2.5, 3}));
        QCOMPARE(a.firstWallMs(), 7);
        const SeriesView view = store.data(fresh).view(XAxisMode::Step, 0);
        QCOMPARE(view.size, 4);
        QCOMPARE(view.summary->query(view.y, 0, 4).max, 0.3);
        const SeriesData &b = store.data(late);
        QCOMPARE(std::vector<double>(b.steps().begin(), b.steps().end()), (std::vector<double>{5, 6, 7}));
        QCOMPARE(store.pointCount(), 7);
    }

    void emaMatchesAHandComputedSequence()
    {
        // TensorBoard's debiased EMA with weight 0.5, NaN skipped:
        //   last = 0.5, 1.25, 2.125, -, 3.0625; divided by 1 - 0.5^n = 0.5, 0.75, 0.875, -, 0.9375
        const std::vector<double> values = {1, 2, 3, std::nan(""), 4};
        const std::vector<double> expected = {1.0, 1.25 / 0.75, 2.125 / 0.875, std::nan(""), 3.0625 / 0.9375};
        std::vector<double> out;
        SeriesData::ema(values.data(), qsizetype(values.size()), 0.5, out);
        QCOMPARE(out.size(), expected.size());
        for (std::size_t i = 0; i < out.size(); ++i) {
            if (std::isnan(expected[i]))
                QVERIFY(std::isnan(out[i]));
            else
                QVERIFY2(qFuzzyCompare(out[i], expected[i]), qPrintable(QString::number(out[i])));
        }

        // The series keeps it up to date as points arrive, and recomputes after a late point.
        SeriesData series(SeriesKey{u"r"_s, u"loss"_s});
        std::vector<ChartPoint> first = {{0, 0, 1}, {1, 0, 2}};
        series.append(first.data(), 2);
        QCOMPARE(series.view(XAxisMode::Step, 0.5).y[1], 1.25 / 0.75);
        std::vector<ChartPoint> rest = {{2, 0, 3}, {3, 0, std::nan("")}, {4, 0, 4}};
        series.append(rest.data(), 3);
        SeriesView v = series.view(XAxisMode::Step, 0.5);
        QVERIFY(qFuzzyCompare(v.y[4], 3.0625 / 0.9375));
        QCOMPARE(v.summary->query(v.y, 0, 5).max, v.y[4]);
        std::vector<ChartPoint> late = {{0.5, 0, 10}};
        series.append(late.data(), 1);
        v = series.view(XAxisMode::Step, 0.5);
        std::vector<double> again;
        SeriesData::ema(series.values().data(), series.size(), 0.5, again);
        for (qsizetype i = 0; i < v.size; ++i)
            QVERIFY(std::isnan(again[std::size_t(i)]) ? std::isnan(v.y[i]) : v.y[i] == again[std::size_t(i)]);
        QCOMPARE(v.summary->query(v.y, 0, v.size).max, *std::max_element(again.begin(), again.begin() + 3));
        // Weight 0: the raw values.
        QCOMPARE(series.view(XAxisMode::Step, 0).y[1], 10.0);
    }

    void wallTimeThatGoesBackIsSortedForTheWallAxis()
    {
        SeriesData series(SeriesKey{u"r"_s, u"loss"_s});
        std::vector<ChartPoint> points = {{0, 1000, 1}, {1, 3000, 2}, {2, 2000, 3}, {3, 4000, 4}};
        series.append(points.data(), 4);
        const SeriesView v = series.view(XAxisMode::WallTime, 0);
        QCOMPARE(std::vector<double>(v.x, v.x + 4), (std::vector<double>{1000, 2000, 3000, 4000}));
        QCOMPARE(std::vector<double>(v.y, v.y + 4), (std::vector<double>{1, 3, 2, 4}));
        QCOMPARE(series.firstWallMs(), 1000);
    }

    void epochAxisTakesThePointsThatCarryAnEpochInEpochOrder()
    {
        const double none = std::nan("");
        SeriesData series(SeriesKey{u"r"_s, u"val_loss"_s});
        // In step order with its epochs: the direct view.
        std::vector<ChartPoint> points = {{100, 0, 0.5, 1}, {200, 0, 0.4, 2}};
        series.append(points.data(), 2);
        QVERIFY(series.hasEpochs());
        SeriesView v = series.view(XAxisMode::Epoch, 0);
        QCOMPARE(std::vector<double>(v.x, v.x + v.size), (std::vector<double>{1, 2}));
        // A point without an epoch is left out of the epoch axis (kept on the others); an
        // epoch that goes back (a restart from a checkpoint) is sorted in.
        std::vector<ChartPoint> more = {{250, 0, 9, none}, {300, 0, 0.3, 1.5}};
        series.append(more.data(), 2);
        v = series.view(XAxisMode::Epoch, 0);
        QCOMPARE(std::vector<double>(v.x, v.x + v.size), (std::vector<double>{1, 1.5, 2}));
        QCOMPARE(std::vector<double>(v.y, v.y + v.size), (std::vector<double>{0.5, 0.3, 0.4}));
        QCOMPARE(v.summary->query(v.y, 0, v.size).max, 0.5);
        QCOMPARE(series.view(XAxisMode::Step, 0).size, 4);
        // A series with no epoch at all has none to show.
        SeriesData loss(SeriesKey{u"r"_s, u"loss"_s});
        std::vector<ChartPoint> plain = {{0, 0, 1}, {1, 0, 2}};
        loss.append(plain.data(), 2);
        QVERIFY(!loss.hasEpochs());
        QVERIFY(loss.epochs().empty()); // no memory for epochs nobody carries
        QCOMPARE(loss.view(XAxisMode::Epoch, 0).size, 0);
        // The first epoch gives the points before it theirs (none), in order and merged.
        std::vector<ChartPoint> late = {{2, 0, 3, 7}};
        loss.append(late.data(), 1);
        QCOMPARE(loss.epochs().size(), std::size_t(3));
        QVERIFY(std::isnan(loss.epochs()[0]));
        v = loss.view(XAxisMode::Epoch, 0);
        QCOMPARE(std::vector<double>(v.x, v.x + v.size), (std::vector<double>{7}));
        SeriesData merged(SeriesKey{u"r"_s, u"acc"_s});
        merged.append(plain.data(), 2);
        std::vector<ChartPoint> before = {{0.5, 0, 4, 2}};
        merged.append(before.data(), 1);
        QCOMPARE(std::vector<double>(merged.steps().begin(), merged.steps().end()), (std::vector<double>{0, 0.5, 1}));
        QCOMPARE(merged.epochs().size(), std::size_t(3));
        QCOMPARE(merged.epochs()[1], 2.0);
        QVERIFY(merged.hasEpochs());
        // Columns read from the store without epochs.
        SeriesData loaded(SeriesKey{u"r"_s, u"lr"_s});
        ferry::run::SeriesColumns c;
        c.steps = {1, 2};
        c.wallMs = {5, 6};
        c.values = {0.1, 0.2};
        loaded.append(std::move(c));
        QVERIFY(!loaded.hasEpochs());
        QCOMPARE(loaded.view(XAxisMode::Epoch, 0).size, 0);
        QCOMPARE(loaded.view(XAxisMode::WallTime, 0).size, 2);
    }

    // One metric against another of the run, joined on step by analysis' rule: each point's x is
    // the other's value at its step, on the line between its points; outside the other's first to
    // last step, none; the points sorted by that x.
    void pairedViewPlotsAMetricAgainstAnother()
    {
        SeriesData loss({u"r"_s, u"loss"_s});
        SeriesData tokens({u"r"_s, u"tokens"_s});
        const std::vector<ChartPoint> l = {{0, 0, 4}, {1, 0, 3}, {2, 0, 2}, {3, 0, 1}, {4, 0, 0.5}};
        const std::vector<ChartPoint> t = {{1, 0, 1000}, {3, 0, 500}}; // logged every other step
        loss.append(l.data(), qsizetype(l.size()));
        tokens.append(t.data(), qsizetype(t.size()));
        SeriesView v = loss.pairedView(tokens, 0);
        QCOMPARE(v.size, 3); // step 0 is before tokens' first point, step 4 after its last
        QCOMPARE(std::vector<double>(v.x, v.x + v.size), (std::vector<double>{500, 750, 1000}));
        QCOMPARE(std::vector<double>(v.y, v.y + v.size), (std::vector<double>{1, 2, 3}));
        QCOMPARE(v.summary->query(v.y, 0, v.size).max, 3.0);
        const ChartPoint more{5, 0, 2000};
        tokens.append(&more, 1);
        v = loss.pairedView(tokens, 0); // rebuilt: step 4 now lies between 500 and 2000
        QCOMPARE(v.size, 4);
        QCOMPARE(v.x[3], 1250.0);
        QCOMPARE(v.y[3], 0.5);
    }
};

FERRY_TEST_MAIN(TestSeriesStore)
#include "tst_seriesstore.moc"
