// The chart's grouped view (groups.sh): 32 runs of a million points each in a LossChart, grouped into
// 4 bands, and the time a view change (regroup, zoom, pan, band or line switched) takes on the GUI
// thread to the exact picture (LossChart::render), p50 and p99 (goal p99 <= 100 ms); peer in the
// same run: the same chart ungrouped, each run's line drawn exactly after a zoom.
#include "ui/chart/losschart.h"
#include "ui/chart/runcolors.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <string>
#include <vector>

using namespace ferry::ui;
using namespace Qt::StringLiterals;

namespace {

struct ChartBenchOptions {
    int runs = 32;
    qsizetype points = 1'000'000;
    int changes = 200;
};

// Run r logs every (1 + r % 3)th step, as groupsbench's runs.
std::shared_ptr<SeriesStore> makeStore(const ChartBenchOptions &o)
{
    auto store = std::make_shared<SeriesStore>();
    std::mt19937_64 random(37);
    std::normal_distribution<double> noise(0, 0.02);
    for (int r = 0; r < o.runs; ++r) {
        ferry::run::SeriesColumns c;
        c.steps.resize(std::size_t(o.points));
        c.wallMs.resize(std::size_t(o.points));
        c.values.resize(std::size_t(o.points));
        const double stride = 1 + r % 3;
        for (qsizetype i = 0; i < o.points; ++i) {
            c.steps[std::size_t(i)] = double(i) * stride;
            c.wallMs[std::size_t(i)] = 1.7e12 + double(i) * 10;
            c.values[std::size_t(i)] = (1 + 0.1 * (r % 4)) * std::exp(-double(i) / double(o.points)) + noise(random);
        }
        store->append(store->series(u"run%1"_s.arg(r, 2, 10, QChar(u'0')), u"val_loss"_s), std::move(c));
    }
    store->drain();
    return store;
}

// The runs in 4 groups by one of three rules.
QList<ChartGroup> groupsBy(int rule, int runs)
{
    QList<ChartGroup> groups;
    QStringList labels;
    for (int g = 0; g < 4; ++g)
        labels << u"g%1=%2"_s.arg(rule).arg(g);
    const QList<QColor> colors = groupColors(4);
    for (int g = 0; g < 4; ++g) {
        ChartGroup group{QString::number(g), labels[g], {}, colors[g]};
        for (int r = 0; r < runs; ++r) {
            const int key = rule == 0 ? r % 4 : rule == 1 ? r * 4 / runs : (r / 2) % 4;
            if (key == g)
                group.runIds << u"run%1"_s.arg(r, 2, 10, QChar(u'0'));
        }
        groups << group;
    }
    return groups;
}

double percentile(std::vector<double> ms, double p)
{
    std::sort(ms.begin(), ms.end());
    return ms[std::min(ms.size() - 1, std::size_t(p * double(ms.size())))];
}

double timed(LossChart &chart, QImage &image, const std::function<void()> &change)
{
    QElapsedTimer timer;
    timer.start();
    change();
    chart.render(image);
    return double(timer.nsecsElapsed()) / 1e6;
}

} // namespace

int main(int argc, char **argv)
{
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    ChartBenchOptions o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--points" && i + 1 < argc)
            o.points = std::atoll(argv[++i]);
        else if (a == "--changes" && i + 1 < argc)
            o.changes = std::atoi(argv[++i]);
        else {
            std::fprintf(stderr, "usage: groupschartbench [--points N] [--changes K]\n");
            return 2;
        }
    }
    const auto store = makeStore(o);
    LossChart chart;
    chart.resize(2100, 800);
    chart.setStore(store);
    QImage image(chart.size(), QImage::Format_RGB32);
    chart.render(image); // summaries built, as a chart shown once has them
    const double end = double(o.points - 1) * 3;
    std::mt19937_64 random(1);
    std::uniform_real_distribution<double> unit(0, 1);
    const auto zoom = [&] {
        const double x0 = unit(random) * end / 2;
        chart.setXRange(x0, x0 + (end - x0) * (0.01 + unit(random) / 2));
    };

    // Peer: ungrouped, each run's line exact after a zoom.
    std::vector<double> runsMs;
    for (int k = 0; k < std::max(10, o.changes / 10); ++k)
        runsMs.push_back(timed(chart, image, zoom));

    chart.setGroups(groupsBy(0, o.runs));
    chart.resetZoom();
    chart.render(image);
    std::vector<double> ms;
    for (int k = 0; k < o.changes; ++k) {
        switch (k % 5) {
        case 0:
            ms.push_back(timed(chart, image, [&] { chart.setGroups(groupsBy(k % 3, o.runs)); }));
            break;
        case 1:
            ms.push_back(timed(chart, image, zoom));
            break;
        case 2:
            ms.push_back(timed(chart, image, [&] { chart.resetZoom(); }));
            break;
        case 3:
            ms.push_back(timed(chart, image, [&] {
                chart.setGroupBand(k % 2 ? ferry::run::Band::MinMax : ferry::run::Band::Std);
                chart.setGroupStatistic(k % 2 ? GroupStatistic::Median : GroupStatistic::Mean);
            }));
            break;
        default:
            ms.push_back(timed(chart, image, [&] { chart.setLogY(!chart.logY()); }));
            break;
        }
    }
    const std::vector<DrawnGroup> drawn = chart.drawnGroups();
    const int columns = drawn.empty() ? 0 : int(drawn.front().stats.size());
    std::printf("%d runs x %lld points in a LossChart, 4 groups, %d columns, %zu view changes\n", o.runs,
                static_cast<long long>(o.points), columns, ms.size());
    const double p99 = percentile(ms, 0.99);
    std::printf("grouped view change to the exact picture (regroup, zoom, reset, band/line, log y): p50 %.2f ms, "
                "p99 %.2f ms, max %.2f ms (goal p99 <= 100 ms)\n",
                percentile(ms, 0.5), p99, *std::max_element(ms.begin(), ms.end()));
    const double peer = percentile(runsMs, 0.99);
    std::printf("peer, same run: ungrouped (every run's line, exact) after a zoom: p50 %.2f ms, p99 %.2f ms; "
                "grouped p99 / peer p99 = %.2f\n",
                percentile(runsMs, 0.5), peer, p99 / peer);
    return 0;
}
