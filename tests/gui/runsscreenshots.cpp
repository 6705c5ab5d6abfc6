// The runs as a tracker's user looks at them, as PNGs under Xvfb (tests/gui/runs-screenshots.sh):
// five runs of one script with other --hp, run by the built `ferry`, and one that failed on its
// arguments. The runs table with its parameter and metric columns and names that say what
// differs (runs-table.png), the failed run's details (runs-details-failed.png), the compare
// window's metrics with deltas and its setup (runs-compare-metrics.png, runs-compare-setup.png),
// and an empty workspace's table (runs-empty.png). Review 2026-12-06, findings 1, 8, 11 and 14.
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"

#include "ui/compare/compareview.h"
#include "ui/runs/runsview.h"

#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QSpinBox>
#include <QTabWidget>
#include <QTableView>

using namespace Qt::StringLiterals;

namespace {

// As the review's script: a banner line, then a JSON line per step.
const char *const kTrain = R"(import argparse, json, math, random, time

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--steps", type=int, default=60)
a = p.parse_args()
print(f"starting lr={a.lr} seed={a.seed}")
rng = random.Random(a.seed)
for step in range(1, a.steps + 1):
    loss = 2.0 * math.exp(-a.lr * 4 * step) + 0.2 + rng.gauss(0, 0.01)
    val_loss = loss + 0.05 + rng.gauss(0, 0.01)
    accuracy = max(0.0, 1.0 - val_loss / 2.3)
    print(json.dumps({"step": step, "loss": loss, "val_loss": val_loss, "accuracy": accuracy,
                      "samples_per_s": 900 + 40 * a.seed + rng.gauss(0, 5)}))
)";

QString startRun(const QString &ws, const QStringList &args)
{
    QStringList all{u"run"_s, u"train.py"_s, u"--follow"_s};
    all += args;
    (void)ferry::test::runFerry(ws, all); // the failed one fails: it is shown as it is
    const auto list = ferry::test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s});
    return QJsonDocument::fromJson(list.out.toUtf8()).array().first()[u"id"_s].toString();
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_runsscreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    bool ok = true;

    // An empty workspace first: what to do to get a run.
    const QString empty = harness.temp.filePath(u"empty"_s);
    QDir().mkpath(empty);
    (void)harness.show();
    if (!harness.window.openWorkspaceAt(empty))
        return 1;
    ok = ferry::test::saveScreenshot(harness.window, out, u"runs-empty.png"_s, 800) && ok;

    const QString ws = harness.temp.filePath(u"proj"_s);
    QDir().mkpath(ws);
    ferry::test::writeFileOrStop(ws + u"/train.py"_s, kTrain);
    QStringList runs;
    for (const auto &[lr, seed] : QList<std::pair<QString, QString>>{
             {u"0.01"_s, u"1"_s}, {u"0.03"_s, u"1"_s}, {u"0.03"_s, u"2"_s}, {u"0.1"_s, u"1"_s}, {u"0.003"_s, u"3"_s}})
        runs << startRun(ws, {u"--hp"_s, u"lr="_s + lr, u"--hp"_s, u"seed="_s + seed});
    const QString failed = startRun(ws, {u"--hp"_s, u"lr=fast"_s, u"--hp"_s, u"seed=1"_s});
    if (runs.contains(QString()) || failed.isEmpty())
        return 1;
    if (!harness.window.openWorkspaceAt(ws))
        return 1;
    ferry::ui::RunsView *table = harness.window.runsView();
    if (!QTest::qWaitFor([&] { return table->model()->rowCount() == 6; }, 10000))
        return 1;
    // Sorted by the last val_loss, the best first, two runs selected: their curves in the chart.
    table->table()->sortByColumn(table->model()->columnOfKey(u"metric:val_loss"_s), Qt::AscendingOrder);
    table->selectRuns({runs.at(1), runs.at(3)});
    ok = ferry::test::saveScreenshot(harness.window, out, u"runs-table.png"_s, 2000) && ok;

    table->selectRuns({failed});
    ok = ferry::test::saveScreenshot(harness.window, out, u"runs-details-failed.png"_s, 1500) && ok;

    harness.window.compareRuns({runs.at(0), runs.at(1), runs.at(2)});
    ferry::ui::CompareView *view = harness.window.compareView();
    view->resize(1400, 860);
    (void)QTest::qWaitForWindowExposed(view);
    if (!QTest::qWaitFor([&] { return view->comparison().has_value(); }, 30000))
        return 1;
    view->tabs()->setCurrentIndex(4); // the metrics
    view->stepBox()->setValue(30);
    ok = ferry::test::saveScreenshot(*view, out, u"runs-compare-metrics.png"_s, 1500) && ok;
    view->tabs()->setCurrentIndex(3);
    ok = ferry::test::saveScreenshot(*view, out, u"runs-compare-setup.png"_s, 300) && ok;
    return ok ? 0 : 1;
}
