// The compare view as PNGs under Xvfb, from real runs (tests/gui/compare-screenshots.sh): three
// runs of a script in a git repository, run by the built `ferry` on the local target, the second
// and third after an uncommitted change of the learning-rate schedule and the model's width,
// with other parameters. The code tab (compare-view.png) and the metrics tab (compare-metrics.png).
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"
#include "support/git.h"

#include "ui/compare/compareview.h"
#include "ui/runs/runsview.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QListWidget>
#include <QSpinBox>
#include <QTabWidget>

using namespace Qt::StringLiterals;

namespace {

const char *const kTrain = R"(import argparse, json, math, random
from model import hidden, dropout

p = argparse.ArgumentParser()
p.add_argument("--lr", type=float, default=0.01)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--epochs", type=int, default=60)
a = p.parse_args()


def schedule(step):
    # a constant learning rate
    return a.lr


rng = random.Random(a.batch_size)
progress = 0.0
for step in range(1, a.epochs + 1):
    lr = schedule(step)
    progress += lr * (hidden / 128) * (1 - dropout)
    loss = 1.9 * math.exp(-progress * 6) + 0.22 + rng.gauss(0, 0.01)
    val_loss = loss + 0.04 + 0.0005 * step
    accuracy = max(0.0, 1.0 - val_loss / 2.2)
    print(json.dumps({"step": step, "loss": loss, "val_loss": val_loss, "accuracy": accuracy, "lr": lr}))
print("done")
)";

const char *const kModel = "# The network's shape.\nhidden = 128\ndropout = 0.1\n";

QString startRun(const QString &ws, const QStringList &hp)
{
    QStringList args{u"run"_s, u"train.py"_s, u"--follow"_s};
    for (const QString &h : hp)
        args << u"--hp"_s << h;
    const auto r = ferry::test::runFerry(ws, args);
    if (r.exitCode != 0)
        std::fprintf(stderr, "ferry run: %s\n", qPrintable(r.err));
    const auto list = ferry::test::runFerry(ws, {u"runs"_s, u"list"_s, u"--json"_s});
    return QJsonDocument::fromJson(list.out.toUtf8()).array().first()[u"id"_s].toString();
}

// Three runs: the committed code, then a cosine schedule with warm-up and a wider model.
QStringList makeRuns(const QString &ws)
{
    using ferry::test::git;
    ferry::test::writeFileOrStop(ws + u"/train.py"_s, kTrain);
    ferry::test::writeFileOrStop(ws + u"/model.py"_s, kModel);
    ferry::test::writeFileOrStop(ws + u"/README.md"_s, "A small training script.\n");
    if (!git(ws, {u"init"_s, u"-q"_s, u"-b"_s, u"main"_s}) || !git(ws, {u"add"_s, u"."_s}) ||
        !git(ws, {u"commit"_s, u"-q"_s, u"-m"_s, u"A constant learning rate"_s}))
        return {};
    QStringList runs{startRun(ws, {u"lr=0.01"_s, u"batch-size=64"_s, u"epochs=60"_s})};
    QString train = QString::fromUtf8(kTrain);
    train.replace(u"    # a constant learning rate\n    return a.lr\n"_s,
                  u"    # a short warm-up, then a cosine decay\n    if step < 5:\n        return a.lr * step / 5\n"
                  "    return a.lr * 0.5 * (1 + math.cos(math.pi * step / a.epochs))\n"_s);
    ferry::test::writeFileOrStop(ws + u"/train.py"_s, train.toUtf8());
    ferry::test::writeFileOrStop(ws + u"/model.py"_s, "# The network's shape.\nhidden = 256\ndropout = 0.2\n");
    runs << startRun(ws, {u"lr=0.02"_s, u"batch-size=64"_s, u"epochs=60"_s});
    runs << startRun(ws, {u"lr=0.02"_s, u"batch-size=128"_s, u"epochs=60"_s});
    return runs;
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_comparescreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    const QString ws = harness.temp.filePath(u"project"_s);
    QDir().mkpath(ws);
    const QStringList runs = makeRuns(ws);
    if (runs.size() != 3 || runs.contains(QString()))
        return 1;
    (void)harness.show();
    if (!harness.window.openWorkspaceAt(ws))
        return 1;
    if (!QTest::qWaitFor([&] { return harness.window.runsView()->model()->rowCount() == 3; }, 10000))
        return 1;
    harness.window.runsView()->selectRuns(runs);
    harness.window.compareRuns(runs);
    ferry::ui::CompareView *view = harness.window.compareView();
    view->resize(1400, 860);
    (void)QTest::qWaitForWindowExposed(view);
    if (!QTest::qWaitFor([&] { return view->comparison().has_value(); }, 30000))
        return 1;
    bool ok = true;
    view->tabs()->setCurrentIndex(1);                               // the code
    view->fileList()->setCurrentRow(view->fileList()->count() - 1); // train.py
    ok = ferry::test::saveScreenshot(*view, out, u"compare-view.png"_s, 800) && ok;
    view->tabs()->setCurrentIndex(4); // the metrics
    view->stepBox()->setValue(30);
    ok = ferry::test::saveScreenshot(*view, out, u"compare-metrics.png"_s, 1500) && ok;
    view->tabs()->setCurrentIndex(0);
    ok = ferry::test::saveScreenshot(*view, out, u"compare-parameters.png"_s, 300) && ok;
    view->tabs()->setCurrentIndex(3);
    ok = ferry::test::saveScreenshot(*view, out, u"compare-setup.png"_s, 300) && ok;
    return ok ? 0 : 1;
}
