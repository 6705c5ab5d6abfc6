// The Analysis tab (ui/analysis/) as PNGs under Xvfb, from real runs (tests/gui/analysis-screenshots.sh):
// fourteen runs of a training script with five parameters (lr over three decades, batch size,
// optimizer, dropout, seed) and one that is the same in all (epochs), run one after another by
// the built `ferry run` on the local target, then the window opened on them and Run ▸ Analyse
// Runs: the scatter (lr against val_loss's best, coloured by dropout), the parallel coordinates,
// the parameter importance, and the scatter over the runs a query filter keeps, one selected.
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"

#include "ui/analysis/parallelcoordinates.h"
#include "ui/analysis/runsanalysisview.h"
#include "ui/analysis/runvaluechooser.h"
#include "ui/analysis/scatterplot.h"
#include "ui/runs/runsview.h"
#include "ui/window/analysiscontroller.h"

#include <QLineEdit>
#include <QTabWidget>

#include <cmath>

using namespace Qt::StringLiterals;

namespace {

const char *const kTrain = R"(import argparse, json, math, random
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float)
p.add_argument("--batch-size", type=int)
p.add_argument("--optimizer")
p.add_argument("--dropout", type=float)
p.add_argument("--seed", type=int)
p.add_argument("--epochs", type=int)
a = p.parse_args()
best_lr = -2.5 if a.optimizer == "adam" else -1.5
floor = 0.25 + 0.35 * (math.log10(a.lr) - best_lr) ** 2 + 0.5 * (a.dropout - 0.15) ** 2
floor += 0.02 * math.log2(a.batch_size / 64) ** 2
rng = random.Random(a.seed)
floor += rng.gauss(0, 0.01)
for step in range(1, a.epochs + 1):
    decay = math.exp(-step / 8.0)
    loss = floor * 0.85 + 2.0 * decay + rng.gauss(0, 0.01)
    val_loss = floor + 1.9 * decay + rng.gauss(0, 0.015)
    acc = max(0.0, min(1.0, 1.0 - val_loss / 2.5))
    print(json.dumps({"step": step, "loss": loss, "val_loss": val_loss, "val_accuracy": acc}), flush=True)
)";

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_analysisscreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    const QString ws = harness.temp.filePath(u"tuning"_s);
    QDir().mkpath(ws);
    ferry::test::writeFileOrStop(ws + u"/train.py"_s, kTrain);
    const int kRuns = 14;
    const char *const optimizers[]{"adam", "sgd"};
    for (int i = 0; i < kRuns; ++i) {
        const double lr = std::pow(10.0, -4 + 3.5 * double((i * 5) % kRuns) / (kRuns - 1));
        const QStringList hp{u"lr=%1"_s.arg(lr, 0, 'g', 3),
                             u"batch-size=%1"_s.arg(32 << (i % 3)),
                             u"optimizer=%1"_s.arg(QLatin1StringView(optimizers[(i / 2) % 2])),
                             u"dropout=%1"_s.arg(0.05 * ((i * 3) % 10)),
                             u"seed=%1"_s.arg(i + 1),
                             u"epochs=40"_s};
        QStringList args{u"run"_s, u"train.py"_s, u"--follow"_s};
        for (const QString &h : hp)
            args << u"--hp"_s << h;
        std::fprintf(stderr, "run %d: %s\n", i + 1, qPrintable(hp.join(u' ')));
        const auto r = ferry::test::runFerry(ws, args);
        if (r.exitCode != 0) {
            std::fprintf(stderr, "ferry run: %s\n", qPrintable(r.err));
            return 1;
        }
    }
    (void)harness.show();
    if (!harness.window.openWorkspaceAt(ws))
        return 1;
    if (!QTest::qWaitFor([&] { return harness.window.runsView()->model()->rowCount() == kRuns; }, 10000))
        return 1;
    ferry::ui::AnalysisController *analysis = harness.window.workbench()->analysis();
    analysis->open();
    ferry::ui::RunsAnalysisView *view = analysis->view();
    const auto settle = [&] {
        return QTest::qWaitFor(
            [&] {
                QTest::qWait(50);
                return !view->isReading() && !view->read().runs.isEmpty();
            },
            20000);
    };
    if (!settle())
        return 1;
    const auto choose = [&](ferry::ui::RunValueChooser *chooser, const QString &text) {
        chooser->setSpec(*ferry::run::RunValueSpec::parse(text));
        Q_EMIT chooser->changed();
    };
    bool ok = true;
    choose(view->scatterY(), u"metrics.val_loss.best"_s);
    choose(view->scatterColor(), u"hp.dropout"_s);
    ok = settle() && ok;
    ok = ferry::test::saveScreenshot(harness.window, out, u"analysis-scatter.png"_s, 600) && ok;

    view->tabs()->setCurrentIndex(1);
    view->setParallelParams({u"lr"_s, u"batch-size"_s, u"optimizer"_s, u"dropout"_s, u"seed"_s});
    choose(view->parallelMetric(), u"metrics.val_loss.best"_s);
    ok = settle() && ok;
    ok = ferry::test::saveScreenshot(harness.window, out, u"analysis-parallel.png"_s, 600) && ok;

    view->tabs()->setCurrentIndex(2);
    choose(view->importanceMetric(), u"metrics.val_loss.best"_s);
    ok = settle() && ok;
    ok = ferry::test::saveScreenshot(harness.window, out, u"analysis-importance.png"_s, 1500) && ok;

    // The runs a query keeps (the table's filter, typed in the tab), the best of them selected.
    view->tabs()->setCurrentIndex(0);
    choose(view->scatterColor(), u"hp.batch-size"_s);
    view->filterEdit()->setText(u"hp.optimizer = adam"_s);
    Q_EMIT view->filterEdit()->textEdited(view->filterEdit()->text());
    QTest::qWait(1500);
    ok = settle() && ok;
    if (!view->scatter()->points().empty()) {
        const auto best = std::min_element(view->scatter()->points().cbegin(), view->scatter()->points().cend(),
                                           [](const auto &a, const auto &b) { return a.y < b.y; });
        harness.window.runsView()->selectRuns({best->key});
    }
    ok = settle() && ok;
    ok = ferry::test::saveScreenshot(harness.window, out, u"analysis-filtered.png"_s, 600) && ok;
    return ok ? 0 : 1;
}
