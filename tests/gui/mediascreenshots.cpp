// The Media tab (ui/media/) as PNGs under Xvfb, from real runs (tests/gui/media-screenshots.sh): three
// runs of tests/gui/media_train.py (images in output/images/samples/<step>.png, a layer's histogram
// each step in output/histograms.jsonl), run by the built `ferry run` on the local target, then the
// window opened on them, the three selected and Run ▸ Images (at a step between two), then Run ▸
// Distributions in offset and overlay modes with the pointer on a step.
#include "gui/screenshot.h"
#include "gui/windowharness.h"
#include "support/cli.h"
#include "support/files.h"

#include "ui/media/distributionsview.h"
#include "ui/media/histogramplot.h"
#include "ui/media/imagesview.h"
#include "ui/media/mediaview.h"
#include "ui/runs/runsview.h"
#include "ui/window/mediacontroller.h"

#include <QComboBox>
#include <QFile>
#include <QSpinBox>
#include <QTabWidget>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 2) {
        std::fprintf(stderr, "usage: ferry_mediascreenshots OUTPUT_DIR\n");
        return 2;
    }
    const QString out = QString::fromLocal8Bit(argv[1]);
    QDir().mkpath(out);
    ferry::test::WindowHarness harness;
    const QString ws = harness.temp.filePath(u"generative"_s);
    QDir().mkpath(ws);
    if (!QFile::copy(QStringLiteral(FERRY_SOURCE_DIR "/tests/gui/media_train.py"), ws + u"/train.py"_s))
        return 1;
    const QStringList lrs{u"0.005"_s, u"0.01"_s, u"0.03"_s};
    for (int i = 0; i < int(lrs.size()); ++i) {
        const QStringList args{u"run"_s,  u"train.py"_s,          u"--follow"_s, u"--hp"_s, u"lr="_s + lrs.at(i),
                               u"--hp"_s, u"seed=%1"_s.arg(i + 1)};
        std::fprintf(stderr, "run %d: lr=%s\n", i + 1, qPrintable(lrs.at(i)));
        const auto r = ferry::test::runFerry(ws, args);
        if (r.exitCode != 0) {
            std::fprintf(stderr, "ferry run: %s\n", qPrintable(r.err));
            return 1;
        }
    }
    (void)harness.show();
    if (!harness.window.openWorkspaceAt(ws))
        return 1;
    if (!QTest::qWaitFor([&] { return harness.window.runsView()->model()->rowCount() == int(lrs.size()); }, 10000))
        return 1;
    QStringList ids;
    for (int row = 0; row < harness.window.runsView()->model()->rowCount(); ++row)
        ids << harness.window.runsView()->model()->index(row, 0).data(ferry::ui::RunsModel::RunIdRole).toString();
    harness.window.runsView()->selectRuns(ids);
    ferry::ui::MediaController *media = harness.window.workbench()->media();
    media->openImages();
    ferry::ui::RunMediaView *view = media->view();
    const auto settle = [&] {
        return QTest::qWaitFor(
            [&] {
                QTest::qWait(100);
                return !view->images()->isReading() && !view->distributions()->isReading();
            },
            20000);
    };
    bool ok = settle();
    ok = QTest::qWaitFor([&] { return view->images()->index().steps.size() > 10; }, 10000) && ok;
    view->images()->stepBox()->setValue(75); // between two steps: the latest at or before, step 70
    ok = settle() && ok;
    QTest::qWait(400);
    ok = settle() && ok;
    ok = ferry::test::saveScreenshot(harness.window, out, u"media-images.png"_s, 600) && ok;

    media->openDistributions();
    ok = settle() && ok;
    ok = QTest::qWaitFor([&] { return !view->distributions()->plot()->curves().isEmpty(); }, 10000) && ok;
    ferry::ui::HistogramPlot *plot = view->distributions()->plot();
    const auto pointAt = [&](int curve) {
        const auto &bins = plot->curves().at(curve).bins;
        const int bin = int(
            std::max_element(bins.begin(), bins.end(), [](const auto &x, const auto &y) { return x.count < y.count; }) -
            bins.begin());
        QTest::mouseMove(plot, plot->pointOf(curve, bin).toPoint());
    };
    const auto drawn = [&] { return QTest::qWaitFor([&] { return !plot->isDrawing(); }, 10000); };
    ok = drawn() && ok;
    if (!plot->curves().isEmpty())
        pointAt(int(plot->curves().size()) * 2 / 3);
    ok = ferry::test::saveScreenshot(harness.window, out, u"media-distributions-offset.png"_s, 600) && ok;
    view->distributions()->modeBox()->setCurrentIndex(1);
    QTest::qWait(50);
    ok = drawn() && ok;
    if (!plot->curves().isEmpty())
        pointAt(int(plot->curves().size()) - 1);
    ok = ferry::test::saveScreenshot(harness.window, out, u"media-distributions-overlay.png"_s, 600) && ok;
    return ok ? 0 : 1;
}
