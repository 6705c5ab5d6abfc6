// Frame times of the sweep view with many trials (tests/bench/sweepview.sh).
//
//   sweepviewbench [--trials N] [--frames F] [--points P]
//
// A sweep of N trials (five parameters: log lr, a list, uniform, int and log int; objectives of
// a synthetic function) written as a controller writes it, each trial a run with P points of
// three metrics in a real run store, shown in the sweep view at 1600x900: each tab (parallel
// coordinates, objective, parameters, curves) repainted F times back to back, each frame a
// synchronous repaint() (paint into the backing store and flush it); then the parallel
// coordinates while a range is dragged on the objective's axis (a new range each frame). Peer, in the same run: the
// parallel coordinates as Qt Charts draws them (a QChartView with one QLineSeries per trial over the same axes, its
// viewport repainted). Prints p50, p99 and max per view, and each against the peer.
#include "store/runstore.h"
#include "sweep/sweepstate.h"
#include "ui/chart/losschartpanel.h"
#include "ui/sweep/sweepplots.h"
#include "ui/sweep/sweepview.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QElapsedTimer>
#include <QLineSeries>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <random>
#include <vector>

using namespace Qt::StringLiterals;
using namespace ferry;

namespace {

struct Times {
    double p50 = 0, p99 = 0, max = 0;
};

// `before` runs ahead of each frame (a drag's new range).
Times framesOf(QWidget &widget, int frames, const std::function<void(int)> &before = {})
{
    std::vector<double> ms;
    QElapsedTimer clock;
    for (int i = 0; i < frames; ++i) {
        widget.update();
        if (before)
            before(i);
        clock.start();
        widget.repaint();
        ms.push_back(double(clock.nsecsElapsed()) / 1e6);
        QApplication::processEvents();
    }
    std::sort(ms.begin(), ms.end());
    return {ms[ms.size() / 2], ms[std::min(ms.size() - 1, ms.size() * 99 / 100)], ms.back()};
}

void print(const char *what, const Times &t, const Times *peer)
{
    std::printf("%-44s %8.2f %8.2f %8.2f", what, t.p50, t.p99, t.max);
    if (peer)
        std::printf("   %6.2fx", t.p50 / peer->p50);
    std::printf("\n");
}

const char *const kSweep = R"(ferry-sweep: 1
script: train.py
method: random
metric: val_loss
parameters:
  lr: {distribution: log_uniform, min: 1.0e-5, max: 1.0e-1}
  layers: {values: ["64,32", "128,64", "256,128"]}
  dropout: {distribution: uniform, min: 0.0, max: 0.5}
  batch-size: {distribution: int_uniform, min: 16, max: 256}
  width: {distribution: log_int_uniform, min: 8, max: 512}
max_trials: 100000
max_parallel: 8
)";

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    int trials = 1000, frames = 60, points = 100;
    for (int i = 1; i + 1 < argc; i += 2) {
        const QByteArray flag = argv[i];
        const int value = QByteArray(argv[i + 1]).toInt();
        if (flag == "--trials")
            trials = value;
        else if (flag == "--frames")
            frames = value;
        else if (flag == "--points")
            points = value;
    }
    QTemporaryDir dir;
    QDir().mkpath(dir.filePath(u"sweeps"_s));
    QFile script(dir.filePath(u"train.py"_s));
    (void)script.open(QIODevice::WriteOnly);
    script.write("print(1)\n");
    script.close();
    auto opened = run::RunStore::open(dir.filePath(u".ferry/runs.sqlite"_s));
    if (!opened) {
        std::fprintf(stderr, "%s\n", qPrintable(opened.error().toString()));
        return 1;
    }
    std::unique_ptr<run::RunStore> store = std::move(*opened);
    std::mt19937_64 rng(7);
    std::uniform_real_distribution<double> u(0, 1);
    const QStringList layers{u"64,32"_s, u"128,64"_s, u"256,128"_s};
    sweep::SweepState state;
    state.id = u"bench"_s;
    state.name = u"bench"_s;
    state.sourceFile = dir.filePath(u"sweeps/bench.yml"_s);
    QElapsedTimer made;
    made.start();
    for (int n = 0; n < trials; ++n) {
        const double lr = std::pow(10.0, -5 + 4 * u(rng)), dropout = 0.5 * u(rng);
        const int layer = int(u(rng) * 3), batch = 16 + int(u(rng) * 241);
        const int width = int(std::round(std::exp(std::log(8.0) + u(rng) * std::log(64.0))));
        const double floor = 0.15 + 0.4 * std::pow(std::log10(lr) + 2.5, 2) + 0.6 * std::pow(dropout - 0.2, 2) +
                             0.3 / (layer + 1) + 0.002 * std::abs(batch - 96) / 16 + 2.0 / width;
        sweep::Trial t;
        t.number = n;
        t.runId = u"bench-%1"_s.arg(n, 5, 10, QChar(u'0'));
        t.status = sweep::TrialStatus::Succeeded;
        t.hyperparameters = {{u"lr"_s, QString::number(lr)},
                             {u"layers"_s, layers[layer]},
                             {u"dropout"_s, QString::number(dropout)},
                             {u"batch-size"_s, QString::number(batch)},
                             {u"width"_s, QString::number(width)}};
        t.objective = floor;
        t.startedMs = 1000 + n * 1000;
        t.finishedMs = t.startedMs + 900;
        state.trials << t;
        run::RunSpec spec;
        spec.id = t.runId;
        spec.script = u"train.py"_s;
        spec.sourceDir = dir.path();
        spec.hyperparameters = t.hyperparameters;
        store->createRun(run::newRunRecord(spec));
        QList<run::MetricPoint> metric;
        for (int step = 1; step <= points; ++step) {
            const double decay = std::exp(-step / (points / 5.0));
            metric << run::MetricPoint{u"val_loss"_s, double(step), floor + 2 * decay, 0, NAN}
                   << run::MetricPoint{u"loss"_s, double(step), floor * 0.9 + 2.2 * decay, 0, NAN}
                   << run::MetricPoint{u"accuracy"_s, double(step), 1 - (floor + 2 * decay) / 3, 0, NAN};
        }
        store->appendMetrics(t.runId, metric, 0);
        store->setStatus(t.runId, run::RunStatus::Succeeded, 0);
    }
    store->flush();
    const sweep::SweepDirectory sweepDir(dir.filePath(u".ferry/sweeps/bench"_s));
    if (const auto created = sweepDir.create(kSweep, state); !created) {
        std::fprintf(stderr, "%s\n", qPrintable(created.error().toString()));
        return 1;
    }
    std::printf("sweep of %d trials, %d points x 3 metrics each, made in %.1f s\n", trials, points,
                double(made.elapsed()) / 1000);

    ui::SweepView view;
    view.resize(1600, 900);
    QElapsedTimer load;
    load.start();
    view.setWorkspace(*workspace::Workspace::open(dir.path()), store.get(), {});
    view.show();
    (void)QTest::qWaitForWindowExposed(&view);
    const double loadMs = double(load.nsecsElapsed()) / 1e6;
    QTest::qWait(300);

    // The peer: the parallel coordinates as Qt Charts would draw them.
    QChart *chart = new QChart;
    chart->legend()->hide();
    auto *x = new QValueAxis, *y = new QValueAxis;
    x->setRange(0, 5);
    y->setRange(0, 1);
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    for (const ui::SweepPlotTrial &t : view.plotData().trials()) {
        auto *series = new QLineSeries;
        for (std::size_t a = 0; a < t.positions.size(); ++a)
            if (t.positions[a])
                series->append(double(a), *t.positions[a]);
        chart->addSeries(series);
        series->attachAxis(x);
        series->attachAxis(y);
    }
    QChartView peerView(chart);
    peerView.resize(view.tabs()->currentWidget()->size());
    peerView.show();
    (void)QTest::qWaitForWindowExposed(&peerView);
    QTest::qWait(300);
    const Times peer = framesOf(*peerView.viewport(), frames);

    std::printf("view shown (sweep read, plots made, curves loaded) in %.0f ms\n", loadMs);
    std::printf("%-44s %8s %8s %8s   %s\n", "frame, ms", "p50", "p99", "max", "p50 / Qt Charts");
    print("Qt Charts: the parallel coordinates (peer)", peer, nullptr);
    const char *names[] = {"parallel coordinates", "objective so far", "objective by parameter",
                           "curves (3 metric panels)"};
    for (int tab = 0; tab < view.tabs()->count(); ++tab) {
        view.tabs()->setCurrentIndex(tab);
        QTest::qWait(tab == 3 ? 1500 : 200);
        print(names[tab], framesOf(*view.tabs()->currentWidget(), frames), &peer);
    }
    // Dragging a range: every frame a new range, so the lines are drawn again.
    view.tabs()->setCurrentIndex(0);
    QTest::qWait(200);
    const int objective = int(view.plotData().axes().size()) - 1;
    print("parallel coordinates, dragging a range",
          framesOf(*view.parallelCoordinates(), frames,
                   [&](int i) {
                       view.plotData().setRange(objective, std::pair{0.0, 0.1 + 0.8 * i / frames});
                   }),
          &peer);
    return 0;
}
