// Cost and time in the window, as PNGs under Xvfb (tests/gui/cost-screenshots.sh): runs of
// progress.py by the built `ferry` with Debian's Python and its tqdm at a rate of 3.60 USD/h for
// this machine (set with `ferry rates set` before they start: each records it), two finished and two held mid-way (a
// Hugging Face Trainer at step 50 of 200, a plain bar at 30 of 120) and one whose bar has no total. The runs table with
// its Progress, ETA and Cost columns and a running run's details (cost-runs-table.png), the Costs window per run
// (cost-costs-runs.png) and per target (cost-costs-targets.png). Issue 38.
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"

#include "cost/rates.h"
#include "ui/cost/costsview.h"
#include "ui/runs/runsview.h"
#include "ui/window/workbench.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QTableView>
#include <QTableWidget>

using namespace Qt::StringLiterals;

namespace {

const QString kProgressScript = QStringLiteral(FERRY_TEST_DATA "/runs/scripts/progress.py");

// `ferry run progress.py` (the workspace's copy: no repository's git state in the pictures) with these
// --hp; the new run's id.
QString startProgressRun(const QString &ws, const QStringList &hps, bool follow)
{
    QStringList all{u"run"_s, u"progress.py"_s};
    if (follow)
        all << u"--follow"_s;
    for (const QString &hp : hps)
        all << u"--hp"_s << hp;
    return ferry::test::runFerry(ws, all).out.trimmed().section(u'\n', 0, 0);
}

} // namespace

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_costscreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    // The runs' python3: Debian's, which has tqdm.
    const QString bin = harness.temp.filePath(u"bin"_s);
    QDir().mkpath(bin);
    QFile::link(u"/usr/bin/python3"_s, bin + u"/python3"_s);
    qputenv("PATH", bin.toLocal8Bit() + ':' + qgetenv("PATH"));
    if (!ferry::cost::setRate(harness.settings, u"local"_s,
                              ferry::cost::Rate{3.6, ferry::cost::RateUnit::Hour, QString(ferry::cost::kSetByYou)}))
        return 1;
    bool ok = true;
    const QString ws = harness.temp.filePath(u"proj"_s);
    QDir().mkpath(ws + u"/.ferry"_s);
    // The rate `ferry run` records on each run at its launch (the command line's settings: the
    // script's XDG_CONFIG_HOME), which prices the run for good.
    if (ferry::test::runFerry(ws, {u"rates"_s, u"set"_s, u"local"_s, u"3.60/h"_s}).exitCode != 0 ||
        !QFile::copy(kProgressScript, ws + u"/progress.py"_s))
        return 1;
    (void)startProgressRun(ws, {u"mode=hf"_s, u"steps=400"_s, u"delay=0.01"_s}, true);
    (void)startProgressRun(ws, {u"mode=bar"_s, u"steps=300"_s, u"delay=0.01"_s}, true);
    const QString go = harness.temp.filePath(u"go"_s);
    const QString hf = startProgressRun(
        ws, {u"mode=hf"_s, u"steps=200"_s, u"stop-at=50"_s, u"delay=0.02"_s, u"go-file="_s + go}, false);
    const QString bar = startProgressRun(
        ws, {u"mode=bar"_s, u"steps=120"_s, u"stop-at=30"_s, u"delay=0.05"_s, u"go-file="_s + go}, false);
    (void)startProgressRun(ws, {u"mode=nototal"_s, u"steps=120"_s, u"stop-at=30"_s, u"go-file="_s + go}, false);
    if (hf.isEmpty() || bar.isEmpty())
        return 1;
    (void)harness.show();
    if (!harness.window.openWorkspaceAt(ws))
        return 1;
    ferry::ui::RunsView *table = harness.window.runsView();
    if (!QTest::qWaitFor(
            [&] { return table->model()->progress(hf).has_value() && table->model()->progress(bar).has_value(); },
            60000))
        return 1;
    table->selectRuns({hf});
    ok = ferry::test::saveScreenshot(harness.window, out, u"cost-runs-table.png"_s, 3000) && ok;

    harness.window.workbench()->actions().costs->trigger();
    auto *costs = harness.window.findChild<ferry::ui::CostsView *>();
    if (!costs || !QTest::qWaitForWindowExposed(costs))
        return 1;
    (void)QTest::qWaitFor([&] { return !costs->isLoading() && costs->table()->rowCount() >= 5; }, 30000);
    ok = ferry::test::saveScreenshot(*costs, out, u"cost-costs-runs.png"_s, 500) && ok;
    costs->groupingBox()->setCurrentIndex(1); // by target
    ok = ferry::test::saveScreenshot(*costs, out, u"cost-costs-targets.png"_s, 500) && ok;
    ferry::test::writeFileOrStop(go, "go\n"); // the held runs end
    return ok ? 0 : 1;
}
