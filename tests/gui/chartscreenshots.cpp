// The metric chart as a new user meets it, as PNGs under Xvfb on a 1600×1000 screen
// (tests/gui/chart-screenshots.sh): chart-example-trained.png (Open the Example, then Train, as
// issue 37 tried it), chart-runs.png (five script runs of a script that prints a banner, then a
// JSON line a step, and the training, charted with nothing selected: panels titled by their
// metric, legends with the line styles, the runs' colours), chart-system.png (the system's
// panels, on their time axis), chart-filter.png (the runs filter typed: the chart follows and
// says how many it shows), chart-x-metric.png (loss against tokens seen, log x), chart-groups.png
// (three more runs, the 60-step runs grouped by learning rate: a mean and a min–max band per group).
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"

#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/runs/runsview.h"
#include "ui/train/trainpanel.h"

#include <QCheckBox>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>

#include <tuple>

using namespace Qt::StringLiterals;

namespace {

// The script of the UX review of 2026-12-06: a banner line, then one JSON record a step.
const char *const kScript = R"(import argparse, json, math, random, time
p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--seed", type=int, default=1)
p.add_argument("--steps", type=int, default=60)
a, _ = p.parse_known_args()
print(f"starting lr={a.lr} seed={a.seed}", flush=True)
rng = random.Random(a.seed)
floor = 0.2 + 0.3 * abs(math.log10(a.lr) + 2)
for step in range(a.steps):
    decay = math.exp(-step * a.lr * 4)
    loss = floor + 2.0 * decay + rng.gauss(0, 0.02)
    val = floor * 1.1 + 2.1 * decay + rng.gauss(0, 0.03)
    acc = max(0.0, min(1.0, 1.0 - val / 2.5))
    print(json.dumps({"step": step, "loss": loss, "val_loss": val, "accuracy": acc,
                      "tokens_seen": 4096 * (step + 1)}), flush=True)
    time.sleep(0.02)
)";

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_chartscreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    ferry::ui::MainWindow &window = harness.window;
    // A first start on a 1600×1000 screen (no window manager here: the window is sized as the
    // first start sizes it, then shown).
    window.resize(1600, 1000);
    window.show();
    (void)QTest::qWaitForWindowExposed(&window);
    const QString example = harness.temp.filePath(u"Ferry Example"_s);
    if (!window.openExample(example))
        return 1;
    QTest::qWait(500);
    // Train, as it comes.
    QTest::mouseClick(window.trainPanel()->findChild<QPushButton *>(u"train"_s), Qt::LeftButton);
    (void)QTest::qWaitFor([&] { return window.trainPanel()->isTraining(); }, 10000);
    (void)QTest::qWaitFor([&] { return !window.trainPanel()->isTraining(); }, 180000);
    bool ok = ferry::test::saveScreenshot(window, out, u"chart-example-trained.png"_s, 2500);

    // Five runs of the review's script, different learning rates and seeds.
    ferry::test::writeFileOrStop(example + u"/review_train.py"_s, kScript);
    // The last one runs for 12 s: its system panels get a few samples (one each 5 s).
    const std::tuple<const char *, const char *, const char *> runs[] = {
        {"0.03", "1", "60"}, {"0.01", "1", "60"}, {"0.01", "2", "60"}, {"0.003", "1", "60"}, {"0.001", "3", "600"}};
    for (const auto &[lr, seed, steps] : runs) {
        const auto run =
            ferry::test::runFerry(example, {u"run"_s, u"review_train.py"_s, u"--hp"_s, u"lr="_s + QLatin1StringView(lr),
                                            u"--hp"_s, u"seed="_s + QLatin1StringView(seed), u"--hp"_s,
                                            u"steps="_s + QLatin1StringView(steps), u"--follow"_s});
        if (run.exitCode != 0)
            std::fprintf(stderr, "ferry run: %s\n", qPrintable(run.err));
    }
    QTest::qWait(3000); // the monitor stores their ends, the table refreshes
    window.runsView()->selectRuns({});
    ok = ferry::test::saveScreenshot(window, out, u"chart-runs.png"_s, 2500) && ok;

    // The system's panels: scrolled to the end of the list of panels.
    ferry::ui::LossChartPanel *chart = window.chartPanel();
    if (auto *scroll = chart->findChild<QScrollArea *>())
        scroll->verticalScrollBar()->setValue(scroll->verticalScrollBar()->maximum());
    ok = ferry::test::saveScreenshot(window, out, u"chart-system.png"_s, 1500) && ok;
    if (auto *scroll = chart->findChild<QScrollArea *>())
        scroll->verticalScrollBar()->setValue(0);

    // The filter: the chart shows what the table keeps.
    window.runsView()->filterEdit()->setText(u"hp.lr < 0.01"_s);
    ok = ferry::test::saveScreenshot(window, out, u"chart-filter.png"_s, 3000) && ok;
    window.runsView()->filterEdit()->clear();
    QTest::qWait(1500);

    // Loss against tokens seen, on a log x axis.
    chart->setXAxis(ferry::ui::XAxisMode::Metric, u"tokens_seen"_s);
    if (auto *logX = chart->findChild<QCheckBox *>(u"logX"_s))
        logX->setChecked(true);
    ok = ferry::test::saveScreenshot(window, out, u"chart-x-metric.png"_s, 2000) && ok;

    // Groups: more seeds, then the 60-step runs grouped by learning rate, each a mean and a band.
    chart->setXAxis(ferry::ui::XAxisMode::Step);
    if (auto *logX = chart->findChild<QCheckBox *>(u"logX"_s))
        logX->setChecked(false);
    const std::pair<const char *, const char *> seeds[] = {{"0.03", "2"}, {"0.003", "2"}, {"0.003", "3"}};
    for (const auto &[lr, seed] : seeds) {
        const auto run = ferry::test::runFerry(
            example, {u"run"_s, u"review_train.py"_s, u"--hp"_s, u"lr="_s + QLatin1StringView(lr), u"--hp"_s,
                      u"seed="_s + QLatin1StringView(seed), u"--hp"_s, u"steps=60"_s, u"--follow"_s});
        if (run.exitCode != 0)
            std::fprintf(stderr, "ferry run: %s\n", qPrintable(run.err));
    }
    QTest::qWait(3000);
    window.runsView()->filterEdit()->setText(u"hp.steps = 60"_s);
    QTest::qWait(3000);
    chart->setGroupBy(u"hp.lr"_s);
    chart->setGroupBand(ferry::run::Band::MinMax); // the seeds' spread: wider than their std
    ok = ferry::test::saveScreenshot(window, out, u"chart-groups.png"_s, 2000) && ok;
    chart->setGroupBy({}); // the workspace's chart settings back as they were
    chart->setGroupBand(ferry::run::Band::Std);
    return ok ? 0 : 1;
}
