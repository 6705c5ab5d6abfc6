// Groups of runs benchmark (groups.sh): 32 runs of a million points each, in memory as a chart keeps
// them, grouped into 4 bands, and the time a view change takes to the picture at a chart's columns
// (core/analysis/curves.h, aggregateAt), against the exact aggregate over every step of the union
// (aggregate) measured in the same run; with --store, the exact aggregate of `ferry runs aggregate`
// read from a real run store.
#include "analysis/curves.h"
#include "analysis/rungroups.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <random>
#include <string>
#include <vector>

using namespace ferry::run;
using namespace Qt::StringLiterals;

namespace {

struct Options {
    int runs = 32;
    qsizetype points = 1'000'000;
    int columns = 2000;
    int changes = 200;
    bool store = false;
};

// Run r logs every (1 + r % 3)th step: 32 runs on three grids, of different lengths.
std::vector<Curve> makeRuns(const Options &o)
{
    std::vector<Curve> runs(std::size_t(o.runs));
    std::mt19937_64 random(37);
    std::normal_distribution<double> noise(0, 0.02);
    for (int r = 0; r < o.runs; ++r) {
        Curve &c = runs[std::size_t(r)];
        c.x.resize(std::size_t(o.points));
        c.y.resize(std::size_t(o.points));
        const double stride = 1 + r % 3;
        for (qsizetype i = 0; i < o.points; ++i) {
            c.x[std::size_t(i)] = double(i) * stride;
            c.y[std::size_t(i)] = (1 + 0.1 * (r % 4)) * std::exp(-double(i) / double(o.points)) + noise(random);
        }
    }
    return runs;
}

// This thread's CPU time (ms): what a change costs whatever else the machine runs.
double threadCpuMs()
{
    timespec ts{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e3 + double(ts.tv_nsec) / 1e6;
}

double percentile(std::vector<double> ms, double p)
{
    std::sort(ms.begin(), ms.end());
    return ms[std::min(ms.size() - 1, std::size_t(p * double(ms.size())))];
}

// One view change: the runs regrouped into 4 groups (by one of three rules) and each group's
// picture at `columns` columns over [x0, x1].
double viewChange(const std::vector<Curve> &runs, int rule, double x0, double x1, int columns, double &checksum)
{
    QElapsedTimer timer;
    timer.start();
    const std::vector<double> grid = evenGrid(x0, x1, columns);
    for (int g = 0; g < 4; ++g) {
        std::vector<CurveView> group;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            const int key = rule == 0 ? int(r % 4) : rule == 1 ? int(r * 4 / runs.size()) : int((r / 2) % 4);
            if (key == g)
                group.push_back(runs[r].view());
        }
        const std::vector<GroupStats> picture = aggregateAt(group, grid);
        checksum += picture[picture.size() / 2].mean;
    }
    return double(timer.nsecsElapsed()) / 1e6;
}

double exactAll(const std::vector<Curve> &runs, qint64 &rows)
{
    QElapsedTimer timer;
    timer.start();
    for (int g = 0; g < 4; ++g) {
        std::vector<CurveView> group;
        for (std::size_t r = 0; r < runs.size(); ++r) {
            if (int(r % 4) == g)
                group.push_back(runs[r].view());
        }
        aggregate(group, [&](const GroupStats &) { ++rows; });
    }
    return double(timer.nsecsElapsed()) / 1e6;
}

int fromStore(const Options &o, const std::vector<Curve> &runs)
{
    QTemporaryDir dir;
    auto opened = RunStore::open(RunStore::pathInWorkspace(dir.path()));
    if (!opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().toString()));
        return 1;
    }
    RunStore &store = **opened;
    QList<RunRecord> records;
    for (int r = 0; r < o.runs; ++r) {
        RunRecord record;
        record.id = u"run%1"_s.arg(r, 2, 10, QChar(u'0'));
        record.status = RunStatus::Succeeded;
        store.createRun(record);
        store.setParams(record.id, {{u"group"_s, QString::number(r % 4)}});
        const Curve &c = runs[std::size_t(r)];
        for (qsizetype from = 0; from < c.size(); from += 100'000) {
            QList<MetricPoint> points;
            for (qsizetype i = from; i < std::min(c.size(), from + 100'000); ++i)
                points.append(MetricPoint{u"val_loss"_s, c.x[std::size_t(i)], c.y[std::size_t(i)], 1000 + i});
            store.appendMetrics(record.id, points, from + 1);
        }
        records.append(record);
    }
    store.flush();
    QElapsedTimer timer;
    timer.start();
    const QList<RunGroup> groups = groupRuns(store, records, *GroupBy::parse(u"hp.group"_s));
    qint64 rows = 0;
    aggregateGroups(store, records, groups, u"val_loss"_s, {},
                    [&](GroupAggregate &&g) { rows += qint64(g.points.size()); });
    const double ms = double(timer.nsecsElapsed()) / 1e6;
    std::printf("exact from the store (ferry runs aggregate's work): %.0f ms for %lld points, %.1f M points/s, "
                "%lld rows\n",
                ms, static_cast<long long>(o.runs) * o.points, double(o.runs) * double(o.points) / ms / 1e3,
                static_cast<long long>(rows));
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    QCoreApplication app(argc, argv);
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        const bool more = i + 1 < argc;
        if (a == "--points" && more)
            o.points = std::atoll(argv[++i]);
        else if (a == "--columns" && more)
            o.columns = std::atoi(argv[++i]);
        else if (a == "--changes" && more)
            o.changes = std::atoi(argv[++i]);
        else if (a == "--store")
            o.store = true;
        else {
            std::fprintf(stderr, "usage: groupsbench [--points N] [--columns C] [--changes K] [--store]\n");
            return 2;
        }
    }
    const std::vector<Curve> runs = makeRuns(o);
    std::printf("%d runs x %lld points in memory, 4 groups, %d columns\n", o.runs, static_cast<long long>(o.points),
                o.columns);
    std::mt19937_64 random(1);
    std::uniform_real_distribution<double> unit(0, 1);
    std::vector<double> ms, cpu;
    double checksum = 0;
    const double end = double(o.points - 1) * 3;
    for (int k = 0; k < o.changes; ++k) {
        // Every fourth change zooms into a part; the others show everything.
        double x0 = 0, x1 = end;
        if (k % 4 == 3) {
            x0 = unit(random) * end / 2;
            x1 = x0 + (end - x0) * (0.01 + unit(random) / 2);
        }
        const double cpu0 = threadCpuMs();
        ms.push_back(viewChange(runs, k % 3, x0, x1, o.columns, checksum));
        cpu.push_back(threadCpuMs() - cpu0);
    }
    qint64 rows = 0;
    const double exact = exactAll(runs, rows);
    const double p50 = percentile(ms, 0.5), p99 = percentile(ms, 0.99);
    std::printf("view change to the picture (regroup, zoom): p50 %.2f ms, p99 %.2f ms, max %.2f ms "
                "(goal p99 <= 100 ms)\n",
                p50, p99, *std::max_element(ms.begin(), ms.end()));
    std::printf("  its CPU time (this thread's, whatever else runs): p50 %.2f ms, p99 %.2f ms\n", percentile(cpu, 0.5),
                percentile(cpu, 0.99));
    std::printf("peer, same run: the exact aggregate over every step of the union (%lld rows): %.0f ms, "
                "%.0fx the picture's p99\n",
                static_cast<long long>(rows), exact, exact / p99);
    std::printf("(checksum %g)\n", checksum);
    return o.store ? fromStore(o, runs) : 0;
}
