// Frame times of the loss chart against Qt Charts and QCustomPlot (tests/bench/chart.sh).
//
//   chartbench [--seconds S] [--runs N] [--points P] [--live L] [--live-rate R]
//              [--qtcharts-points Q] [--peer-seconds T] [--ingest-rate I] [--skip-peers]
//
// Scenario: N runs of P points each overlaid (a noisy loss with spikes) plus L live series
// receiving R points/s each from another thread, in a 1600x900 window. Frames are rendered back
// to back for S seconds; each frame is timed from taking the new points to the end of a
// synchronous repaint() (QWidget::repaint: paint into the backing store and flush it). Then an
// ingest stress: I points/s spread over the live series while frames run at 60 Hz.
// Peers, each with the same runs and live series: Qt Charts (QChartView, one QLineSeries per
// series, live ones updated with replace()) with Q points per run, since it cannot draw P in
// useful time, and QCustomPlot (one QCPGraph per series, adaptive sampling on) with P points.

// QCustomPlot's header uses Qt's `signals` and `foreach` keywords, which every Ferry target
// switches off; this file only includes Ferry headers that do not care.
#undef QT_NO_KEYWORDS
#undef QT_NO_FOREACH

#include "ui/chart/losschart.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QValueAxis>
#ifdef FERRY_HAVE_QCUSTOMPLOT
#include <qcustomplot.h>
#endif

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <mutex>
#include <numeric>
#include <random>
#include <thread>

using namespace Qt::StringLiterals;
using namespace ferry::ui;

namespace {

struct Options {
    double seconds = 60;
    int runs = 32;
    qsizetype points = 1'000'000;
    int live = 8;
    int liveRate = 1000;
    qsizetype qtChartsPoints = 10'000;
    double peerSeconds = 10;
    int ingestRate = 100'000;
    bool peers = true;
};

struct Stats {
    QString name;
    QString what;
    std::vector<double> ms;

    double quantile(double q) const
    {
        if (ms.empty())
            return 0;
        std::vector<double> s = ms;
        std::sort(s.begin(), s.end());
        return s[std::min(s.size() - 1, std::size_t(q * double(s.size())))];
    }
    double max() const { return ms.empty() ? 0 : *std::max_element(ms.begin(), ms.end()); }
    qsizetype over(double limit) const
    {
        return std::count_if(ms.begin(), ms.end(), [&](double v) { return v > limit; });
    }
};

// Counts the paint events a widget gets, to prove that frames were painted.
class PaintCounter : public QObject {
public:
    qint64 paints = 0;
    bool eventFilter(QObject *, QEvent *event) override
    {
        paints += event->type() == QEvent::Paint;
        return false;
    }
};

// A run's loss curve, deterministic per run.
void lossCurve(int run, qsizetype n, std::vector<double> &values)
{
    std::mt19937_64 rng(quint64(run) * 7919 + 1);
    std::uniform_real_distribution<double> noise(-0.5, 0.5);
    values.resize(std::size_t(n));
    const double scale = 1 + 0.1 * run;
    for (qsizetype i = 0; i < n; ++i) {
        double v = scale * (2.5 * std::exp(-double(i) / double(n) * 4) + 0.05) * (1 + 0.3 * noise(rng));
        if (rng() % 5000 == 0)
            v *= 6;
        values[std::size_t(i)] = v;
    }
}

// Appends `rate` points/s to each live series until stopped, in 10 ms batches.
class LiveProducer {
public:
    LiveProducer(int series, int rate, std::function<void(int, const std::vector<ChartPoint> &)> sink)
        : m_thread([this, series, rate, sink = std::move(sink)] {
              std::vector<qint64> next(std::size_t(series), 0);
              QElapsedTimer clock;
              clock.start();
              std::mt19937 rng(5);
              std::uniform_real_distribution<double> noise(0.9, 1.1);
              std::vector<ChartPoint> batch;
              while (!m_stop) {
                  const qint64 due = clock.elapsed() * rate / 1000;
                  for (int s = 0; s < series; ++s) {
                      batch.clear();
                      for (; next[std::size_t(s)] < due; ++next[std::size_t(s)]) {
                          const double step = double(next[std::size_t(s)]);
                          batch.push_back({step, 1'700'000'000'000 + qint64(step),
                                           (1.5 + s * 0.1) / (1 + step / 5000) * noise(rng)});
                      }
                      if (!batch.empty())
                          sink(s, batch);
                  }
                  m_sent = std::accumulate(next.begin(), next.end(), qint64(0));
                  std::this_thread::sleep_for(std::chrono::milliseconds(10));
              }
          })
    {
    }
    ~LiveProducer()
    {
        m_stop = true;
        m_thread.join();
    }
    qint64 sent() const { return m_sent; }

private:
    std::atomic<bool> m_stop = false;
    std::atomic<qint64> m_sent = 0;
    std::thread m_thread;
};

// Frames back to back (periodMs 0) or paced, for `seconds`; frame() is timed.
Stats measure(const QString &name, const QString &what, double seconds, double periodMs,
              const std::function<void()> &frame)
{
    Stats stats{name, what, {}};
    QElapsedTimer total, t;
    total.start();
    while (total.elapsed() < seconds * 1000) {
        QCoreApplication::processEvents();
        t.start();
        frame();
        const double ms = double(t.nsecsElapsed()) / 1e6;
        stats.ms.push_back(ms);
        if (periodMs > ms)
            std::this_thread::sleep_for(std::chrono::microseconds(qint64((periodMs - ms) * 1000)));
    }
    return stats;
}

void print(const Stats &s)
{
    std::printf("%-12s %7zu %9.2f %9.2f %9.2f %8lld  %s\n", qPrintable(s.name), s.ms.size(), s.quantile(0.5),
                s.quantile(0.99), s.max(), static_cast<long long>(s.over(16)), qPrintable(s.what));
    std::fflush(stdout);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    Options o;
    const QStringList args = app.arguments();
    for (qsizetype i = 1; i < args.size(); ++i) {
        const QString a = args[i];
        auto next = [&] { return i + 1 < args.size() ? args[++i] : QString(); };
        if (a == u"--seconds"_s)
            o.seconds = next().toDouble();
        else if (a == u"--runs"_s)
            o.runs = next().toInt();
        else if (a == u"--points"_s)
            o.points = next().toLongLong();
        else if (a == u"--live"_s)
            o.live = next().toInt();
        else if (a == u"--live-rate"_s)
            o.liveRate = next().toInt();
        else if (a == u"--qtcharts-points"_s)
            o.qtChartsPoints = next().toLongLong();
        else if (a == u"--peer-seconds"_s)
            o.peerSeconds = next().toDouble();
        else if (a == u"--ingest-rate"_s)
            o.ingestRate = next().toInt();
        else if (a == u"--skip-peers"_s)
            o.peers = false;
        else {
            std::fprintf(stderr, "chartbench: unknown argument %s\n", qPrintable(a));
            return 1;
        }
    }
    const QSize size(1600, 900);
    std::printf("platform %s, window %dx%d, %d runs x %lld points + %d live series x %d points/s\n",
                qPrintable(QGuiApplication::platformName()), size.width(), size.height(), o.runs,
                static_cast<long long>(o.points), o.live, o.liveRate);

    std::vector<Stats> results;
    std::vector<double> values;
    {
        // Ferry.
        auto store = std::make_shared<SeriesStore>();
        QElapsedTimer load;
        load.start();
        std::vector<ChartPoint> points;
        for (int r = 0; r < o.runs; ++r) {
            lossCurve(r, o.points, values);
            points.resize(values.size());
            for (std::size_t i = 0; i < values.size(); ++i)
                points[i] = {double(i), 1'700'000'000'000 + qint64(i), values[i]};
            const int id = store->series(u"run-%1"_s.arg(r), u"loss"_s);
            for (std::size_t i = 0; i < points.size(); i += 65536)
                store->append(id, points.data() + i, qsizetype(std::min<std::size_t>(65536, points.size() - i)));
            store->drain();
        }
        std::vector<int> live;
        for (int s = 0; s < o.live; ++s)
            live.push_back(store->series(u"live-%1"_s.arg(s), u"loss"_s));
        LossChart chart;
        chart.resize(size);
        chart.setStore(store);
        chart.setMetrics({u"loss"_s});
        chart.show();
        PaintCounter counter;
        chart.installEventFilter(&counter);
        // Warm-up, untimed: the window is exposed and the summaries are built on first paint.
        for (int i = 0; i < 20; ++i) {
            QCoreApplication::processEvents();
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        }
        chart.repaint();
        std::printf("ferry: loaded and summarised %lld points in %.1f s\n", static_cast<long long>(store->pointCount()),
                    double(load.elapsed()) / 1000);
        // Fixed x range: the live series grow inside the overlaid runs' range.
        chart.setXRange(0, double(o.points));
        if (qEnvironmentVariableIsSet("CHARTBENCH_BREAKDOWN")) {
            QImage image(size, QImage::Format_RGB32);
            QElapsedTimer t;
            t.start();
            for (int i = 0; i < 50; ++i)
                chart.render(image);
            std::printf("render into QImage: %.2f ms\n", double(t.nsecsElapsed()) / 50e6);
            t.start();
            for (int i = 0; i < 50; ++i)
                chart.repaint();
            std::printf("repaint: %.2f ms\n", double(t.nsecsElapsed()) / 50e6);
        }
        {
            LiveProducer producer(o.live, o.liveRate, [&](int s, const std::vector<ChartPoint> &b) {
                store->append(live[std::size_t(s)], b);
            });
            results.push_back(measure(
                u"ferry"_s,
                u"%1 x %2 pts + %3 live, refresh()+repaint() back to back"_s.arg(o.runs).arg(o.points).arg(o.live),
                o.seconds, 0, [&] {
                    chart.refresh();
                    chart.repaint();
                }));
            print(results.back());
            std::printf("ferry: %lld paint events for %zu frames\n", static_cast<long long>(counter.paints),
                        results.back().ms.size());
        }
        {
            // Panning: the view moves every frame. Each frame shows the last layer moved (the
            // new one is drawn on another thread) with the live series drawn exactly.
            LiveProducer producer(o.live, o.liveRate, [&](int s, const std::vector<ChartPoint> &b) {
                store->append(live[std::size_t(s)], b);
            });
            // Half the data in view, panned from one end to the other and back (a pixel's worth
            // per frame), so every frame shows ~16 M points.
            const double half = double(o.points) / 2;
            const double stepPerFrame = half / 800;
            double shift = 0, direction = 1;
            qint64 exactFrames = 0;
            const int buildsBefore = chart.layerBuilds();
            results.push_back(measure(u"ferry-pan"_s,
                                      u"same, x range moved every frame (layer redrawn in the background)"_s,
                                      std::min(o.seconds, 10.0), 0, [&] {
                                          shift += direction * stepPerFrame;
                                          if (shift <= 0 || shift >= half)
                                              direction = -direction;
                                          chart.setXRange(shift, shift + half);
                                          chart.refresh();
                                          chart.repaint();
                                          exactFrames += chart.lastFrameExact() ? 1 : 0;
                                      }));
            print(results.back());
            std::printf("ferry-pan: %d layers drawn in the background for %zu frames, %lld frames exact\n",
                        chart.layerBuilds() - buildsBefore, results.back().ms.size(),
                        static_cast<long long>(exactFrames));
            // How long after one view change the exact picture is on screen, frames painted
            // back to back meanwhile: the latency of the background layer.
            Stats settle{u"ferry-exact"_s, u"ms from a view change to the exact picture (30 changes)"_s, {}};
            for (int i = 0; i < 30; ++i) {
                const double from = half * (i % 10) / 10;
                chart.setXRange(from, from + half + i); // a new view each time, data all across it
                QElapsedTimer t;
                t.start();
                do {
                    QCoreApplication::processEvents();
                    chart.refresh();
                    chart.repaint();
                } while (!chart.lastFrameExact());
                settle.ms.push_back(double(t.nsecsElapsed()) / 1e6);
            }
            print(settle);
            results.push_back(settle);
            // Back to the full view, drawn once untimed: that redraw belongs to panning, not ingest.
            chart.setXRange(0, double(o.points));
            chart.repaint();
        }
        const int buildsBeforeIngest = chart.layerBuilds();
        {
            LiveProducer producer(
                o.live, o.ingestRate / std::max(1, o.live),
                [&](int s, const std::vector<ChartPoint> &b) { store->append(live[std::size_t(s)], b); });
            results.push_back(measure(
                u"ferry-ingest"_s, u"same + %1 points/s arriving from another thread, 60 Hz frames"_s.arg(o.ingestRate),
                std::min(o.seconds, 20.0), 1000.0 / 60, [&] {
                    chart.refresh();
                    chart.repaint();
                }));
            print(results.back());
            std::printf("ferry-ingest: %lld live points sent, %lld in the chart, %d layer builds\n",
                        static_cast<long long>(producer.sent()), static_cast<long long>(store->pointCount()),
                        chart.layerBuilds() - buildsBeforeIngest);
        }
        // The same chart with the peers' Qt Charts load, for the per-point comparison.
        auto small = std::make_shared<SeriesStore>();
        for (int r = 0; r < o.runs; ++r) {
            lossCurve(r, o.qtChartsPoints, values);
            std::vector<ChartPoint> pts(values.size());
            for (std::size_t i = 0; i < values.size(); ++i)
                pts[i] = {double(i) * double(o.points) / double(o.qtChartsPoints), 0, values[i]};
            small->append(small->series(u"run-%1"_s.arg(r), u"loss"_s), pts);
        }
        chart.setStore(small);
        chart.setXRange(0, double(o.points));
        chart.repaint();
        results.push_back(measure(u"ferry-small"_s,
                                  u"%1 x %2 pts (Qt Charts' load), no live"_s.arg(o.runs).arg(o.qtChartsPoints),
                                  std::min(o.seconds, 5.0), 0, [&] { chart.repaint(); }));
        print(results.back());
    }

    if (o.peers) {
        // Qt Charts.
        QChartView view;
        view.resize(size);
        auto *chart = new QChart;
        chart->legend()->hide();
        chart->setAnimationOptions(QChart::NoAnimation);
        view.setChart(chart);
        view.setRenderHint(QPainter::Antialiasing, false);
        auto *ax = new QValueAxis;
        auto *ay = new QValueAxis;
        ax->setRange(0, double(o.points));
        ay->setRange(0, 10);
        chart->addAxis(ax, Qt::AlignBottom);
        chart->addAxis(ay, Qt::AlignLeft);
        for (int r = 0; r < o.runs; ++r) {
            lossCurve(r, o.qtChartsPoints, values);
            QList<QPointF> pts;
            pts.reserve(qsizetype(values.size()));
            for (std::size_t i = 0; i < values.size(); ++i)
                pts.append(QPointF(double(i) * double(o.points) / double(o.qtChartsPoints), values[i]));
            auto *series = new QLineSeries;
            series->replace(pts);
            chart->addSeries(series);
            series->attachAxis(ax);
            series->attachAxis(ay);
        }
        std::vector<QLineSeries *> liveSeries;
        for (int s = 0; s < o.live; ++s) {
            auto *series = new QLineSeries;
            chart->addSeries(series);
            series->attachAxis(ax);
            series->attachAxis(ay);
            liveSeries.push_back(series);
        }
        view.show();
        view.repaint();
        std::mutex mutex;
        std::vector<std::vector<ChartPoint>> pending(std::size_t(o.live));
        std::vector<QList<QPointF>> livePts(std::size_t(o.live));
        {
            LiveProducer producer(o.live, o.liveRate, [&](int s, const std::vector<ChartPoint> &b) {
                std::lock_guard lock(mutex);
                auto &p = pending[std::size_t(s)];
                p.insert(p.end(), b.begin(), b.end());
            });
            results.push_back(
                measure(u"qtcharts"_s,
                        u"%1 x %2 pts + %3 live, replace()+repaint()"_s.arg(o.runs).arg(o.qtChartsPoints).arg(o.live),
                        o.peerSeconds, 0, [&] {
                            {
                                std::lock_guard lock(mutex);
                                for (int s = 0; s < o.live; ++s) {
                                    for (const ChartPoint &p : pending[std::size_t(s)])
                                        livePts[std::size_t(s)].append(QPointF(p.step, p.value));
                                    pending[std::size_t(s)].clear();
                                }
                            }
                            for (int s = 0; s < o.live; ++s)
                                liveSeries[std::size_t(s)]->replace(livePts[std::size_t(s)]);
                            view.repaint();
                        }));
            print(results.back());
        }
    }
#ifdef FERRY_HAVE_QCUSTOMPLOT
    if (o.peers) {
        QCustomPlot plot;
        plot.resize(size);
        QVector<double> keys(o.points);
        for (qsizetype i = 0; i < o.points; ++i)
            keys[i] = double(i);
        for (int r = 0; r < o.runs; ++r) {
            lossCurve(r, o.points, values);
            QCPGraph *g = plot.addGraph();
            g->setAdaptiveSampling(true);
            g->setData(keys, QVector<double>(values.begin(), values.end()), true);
        }
        std::vector<QCPGraph *> liveGraphs;
        for (int s = 0; s < o.live; ++s)
            liveGraphs.push_back(plot.addGraph());
        plot.xAxis->setRange(0, double(o.points));
        plot.yAxis->setRange(0, 10);
        plot.show();
        plot.replot(QCustomPlot::rpImmediateRefresh);
        std::mutex mutex;
        std::vector<std::vector<ChartPoint>> pending(std::size_t(o.live));
        LiveProducer producer(o.live, o.liveRate, [&](int s, const std::vector<ChartPoint> &b) {
            std::lock_guard lock(mutex);
            auto &p = pending[std::size_t(s)];
            p.insert(p.end(), b.begin(), b.end());
        });
        results.push_back(measure(
            u"qcustomplot"_s,
            u"%1 x %2 pts + %3 live, addData()+replot(rpImmediateRefresh)"_s.arg(o.runs).arg(o.points).arg(o.live),
            o.peerSeconds, 0, [&] {
                {
                    std::lock_guard lock(mutex);
                    for (int s = 0; s < o.live; ++s) {
                        for (const ChartPoint &p : pending[std::size_t(s)])
                            liveGraphs[std::size_t(s)]->addData(p.step, p.value);
                        pending[std::size_t(s)].clear();
                    }
                }
                plot.replot(QCustomPlot::rpImmediateRefresh);
            }));
        print(results.back());
    }
#endif

    std::printf("\n%-12s %7s %9s %9s %9s %8s  %s\n", "chart", "frames", "p50 ms", "p99 ms", "max ms", ">16ms", "what");
    for (const Stats &s : results)
        print(s);
    auto find = [&](const QString &name) -> const Stats * {
        for (const Stats &s : results) {
            if (s.name == name)
                return &s;
        }
        return nullptr;
    };
    const Stats *ferry = find(u"ferry"_s), *small = find(u"ferry-small"_s), *qt = find(u"qtcharts"_s),
                *qcp = find(u"qcustomplot"_s);
    if (ferry && qt) {
        const double perPointQt = qt->quantile(0.5) / double(qsizetype(o.runs) * o.qtChartsPoints);
        std::printf("ferry p50 / qtcharts p50 with %lld x fewer points for Qt Charts: %.4f (goal <= 0.1)\n",
                    static_cast<long long>(o.points / o.qtChartsPoints), ferry->quantile(0.5) / qt->quantile(0.5));
        std::printf("qtcharts scaled linearly to %lld points per run: %.0f ms per frame -> ferry/qtcharts %.6f\n",
                    static_cast<long long>(o.points), perPointQt * double(qsizetype(o.runs) * o.points),
                    ferry->quantile(0.5) / (perPointQt * double(qsizetype(o.runs) * o.points)));
    }
    if (small && qt)
        std::printf("same load (%d x %lld points): ferry-small p50 / qtcharts p50 = %.4f\n", o.runs,
                    static_cast<long long>(o.qtChartsPoints), small->quantile(0.5) / qt->quantile(0.5));
    if (ferry && qcp)
        std::printf("ferry p50 / qcustomplot p50 (same data): %.3f, p99: %.3f\n",
                    ferry->quantile(0.5) / qcp->quantile(0.5), ferry->quantile(0.99) / qcp->quantile(0.99));
    return 0;
}
