// One embedded training started from the window's train panel, with the window shown and the
// chart following it live (tests/bench/guitrain.sh compares its samples/s with `ferry train`):
//   ferry_guitrainbench WORKSPACE DATA.csv EPOCHS      prints the run id
#include "gui/windowharness.h"
#include "store/runstore.h"
#include "training/trainerloader.h"
#include "ui/runs/runsview.h"
#include "ui/train/trainpanel.h"
#include "ui/window/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QApplication>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

int main(int argc, char **argv)
{
    QApplication app(argc, argv);
    if (argc != 4) {
        std::fprintf(stderr, "usage: ferry_guitrainbench WORKSPACE DATA.csv EPOCHS\n");
        return 2;
    }
    ferry::test::WindowHarness harness;
    ferry::ui::MainWindow &window = harness.window;
    if (!harness.show() || !window.openWorkspaceAt(QString::fromLocal8Bit(argv[1])))
        return 1;
    ferry::ui::TrainPanel *panel = window.trainPanel();
    panel->setDataset(QString::fromLocal8Bit(argv[2]));
    ferry::run::TrainingConfig c = panel->config();
    c.epochs = std::atoi(argv[3]);
    panel->setConfig(c);
    QSignalSpy started(panel, &ferry::ui::TrainPanel::runStarted);
    QSignalSpy finished(panel, &ferry::ui::TrainPanel::runFinished);
    QTest::mouseClick(panel->findChild<QPushButton *>(u"train"_s), Qt::LeftButton);
    if (!finished.wait(600000) || started.isEmpty())
        return 1;
    // Let the monitor store the last points before the store closes.
    QTest::qWait(1500);
    std::printf("%s\n", qPrintable(started.first().first().toString()));
    return 0;
}
