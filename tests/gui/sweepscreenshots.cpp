// The sweep view and the sweep form as PNGs under Xvfb, from a real sweep: 40 TPE trials of a
// script with four parameters, two at a time, median stopping, run by the built `ferry` on the
// local target (tests/gui/sweep-screenshots.sh). Each tab of the view, the parallel coordinates
// once more with a range dragged on the objective's axis, and the form filled from the file.
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"

#include "sweep/sweepfile.h"
#include "ui/analysis/parallelcoordinates.h"
#include "ui/chart/losschartpanel.h"
#include "ui/sweep/sweepdialog.h"
#include "ui/sweep/sweepplots.h"
#include "ui/sweep/sweepview.h"

#include <QTabWidget>
#include <QTableView>

using namespace Qt::StringLiterals;

namespace {

const char *const kScript = R"(import argparse, json, math, random, time
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float)
p.add_argument("--layers")
p.add_argument("--dropout", type=float)
p.add_argument("--batch-size", type=int)
p.add_argument("--steps", type=int, default=60)
a, _ = p.parse_known_args()
width = sum(int(w) for w in a.layers.split(","))
floor = 0.15 + 0.4 * (math.log10(a.lr) + 2.5) ** 2 + 0.6 * (a.dropout - 0.2) ** 2 + 40.0 / width
floor += 0.002 * abs(a.batch_size - 96) / 16
rng = random.Random(a.lr)
for step in range(1, a.steps + 1):
    decay = math.exp(-step / 12.0)
    loss = floor * 0.9 + 2.2 * decay + rng.gauss(0, 0.01)
    val = floor + 2.0 * decay + rng.gauss(0, 0.02)
    acc = max(0.0, min(1.0, 1.0 - val / 3.0))
    print(json.dumps({"step": step, "loss": loss, "val_loss": val, "accuracy": acc}), flush=True)
    time.sleep(0.01)
)";

const char *const kSweep = R"(ferry-sweep: 1
script: train.py
hyperparameters: {steps: 60}
method: bayes
metric: {name: val_loss, goal: minimize}
parameters:
  lr: {distribution: log_uniform, min: 1.0e-5, max: 1.0e-1}
  layers: {values: ["64,32", "128,64", "256,128"]}
  dropout: {distribution: uniform, min: 0.0, max: 0.5}
  batch-size: {distribution: int_uniform, min: 16, max: 256}
max_trials: 40
max_parallel: 2
early_stopping: {type: median, min_steps: 20}
seed: 7
)";

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_sweepscreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    const QString ws = harness.temp.filePath(u"tuning"_s);
    QDir().mkpath(ws + u"/sweeps"_s);
    ferry::test::writeFileOrStop(ws + u"/train.py"_s, kScript);
    ferry::test::writeFileOrStop(ws + u"/sweeps/tune.yml"_s, kSweep);
    std::fprintf(stderr, "running a sweep of 40 trials in %s\n", qPrintable(ws));
    const auto run = ferry::test::runFerry(ws, {u"sweep"_s, u"start"_s, u"sweeps/tune.yml"_s, u"--wait"_s}, 900000);
    if (run.exitCode != 0) {
        std::fprintf(stderr, "ferry sweep start: %s\n", qPrintable(run.err));
        return 1;
    }
    const QString id = run.out.trimmed();
    (void)harness.show();
    if (!harness.window.openWorkspaceAt(ws))
        return 1;
    harness.window.showSweeps(id);
    ferry::ui::SweepView *view = harness.window.sweepView();
    view->resize(1500, 860);
    (void)QTest::qWaitForWindowExposed(view);
    QTest::qWait(1500);
    view->table()->sortByColumn(2, Qt::AscendingOrder); // by the objective, best first
    bool ok = true;
    const QStringList names{u"sweep-parallel.png"_s, u"sweep-objective.png"_s, u"sweep-parameters.png"_s,
                            u"sweep-curves.png"_s};
    for (int tab = 0; tab < names.size(); ++tab) {
        view->tabs()->setCurrentIndex(tab);
        ok = ferry::test::saveScreenshot(*view, out, names[tab], 1500) && ok;
    }
    // A range dragged on the objective's axis: the table and the plots keep the best trials.
    view->tabs()->setCurrentIndex(0);
    QTest::qWait(300);
    ferry::ui::ParallelCoordinates *parallel = view->parallelCoordinates();
    const int objective = int(view->plotData().axes().size()) - 1;
    const auto [top, bottom] = parallel->axisSpan();
    const QPoint from(int(parallel->axisX(objective)), int(bottom - 0.0 * (bottom - top)));
    const QPoint to(from.x(), int(bottom - 0.25 * (bottom - top)));
    QTest::mousePress(parallel, Qt::LeftButton, {}, from);
    QTest::mouseMove(parallel, QPoint(from.x(), (from.y() + to.y()) / 2));
    QTest::mouseMove(parallel, to);
    QTest::mouseRelease(parallel, Qt::LeftButton, {}, to);
    std::fprintf(stderr, "%d of %lld trials in the range\n", view->table()->model()->rowCount(),
                 static_cast<long long>(view->state().trials.size()));
    ok = ferry::test::saveScreenshot(*view, out, u"sweep-filtered.png"_s, 800) && ok;

    ferry::ui::SweepDialog form(*harness.window.workspace(), ferry::test::ferryBinary(), &harness.window);
    form.setSpec(ferry::sweep::readSweepFile(ws + u"/sweeps/tune.yml"_s).spec, u"tune"_s);
    form.show();
    ok = ferry::test::saveScreenshot(form, out, u"sweep-form.png"_s, 500) && ok;
    return ok ? 0 : 1;
}
