// The window shell, driven offscreen: empty state, workspaces, recent list, persistence, and a
// newcomer's first minutes (first start on a laptop screen, reopening, curves on sight, shortcuts,
// Quit, files opened from the command line).
#include "store/runstore.h"
#include "support/files.h"
#include "support/testenv.h"
#include "support/testmain.h"
#include "support/trainbits.h"
#include "training/trainerloader.h"
#include "ui/analysis/runsanalysisview.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/data/datasetpanel.h"
#include "ui/document/document.h"
#include "ui/document/documentarea.h"
#include "ui/env/environmenteditors.h"
#include "ui/media/distributionsview.h"
#include "ui/media/mediaview.h"
#include "ui/problems/problemsmodel.h"
#include "ui/problems/problemspanel.h"
#include "ui/runs/rundetailsview.h"
#include "ui/runs/runsview.h"
#include "ui/train/trainpanel.h"
#include "ui/window/emptystatewidget.h"
#include "ui/window/mainwindow.h"
#include "ui/workspace/workspacetree.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QHelpEvent>
#include <QLabel>
#include <QLineEdit>
#include <QListView>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QScreen>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolTip>
#include <QTreeView>

using namespace Qt::StringLiterals;
using ferry::test::writeFile;
using ferry::ui::MainWindow;
using ferry::workspace::RecentWorkspaces;

namespace {

QStringList actionTexts(const QMenu *menu)
{
    QStringList texts;
    for (const QAction *action : menu->actions()) {
        if (!action->isSeparator())
            texts << action->text();
    }
    return texts;
}

QMenu *topMenu(const MainWindow &window, const QString &title)
{
    for (QAction *action : window.menuBar()->actions()) {
        if (action->text() == title)
            return action->menu();
    }
    return nullptr;
}

QAction *menuAction(const MainWindow &window, const QString &menu, const QString &text)
{
    for (QAction *action : topMenu(window, menu)->actions()) {
        if (action->text() == text)
            return action;
    }
    return nullptr;
}

// A finished run with a loss curve, started `startedMs` after an arbitrary moment.
void addRunWithLoss(ferry::run::RunStore &store, const QString &id, qint64 startedMs)
{
    ferry::run::RunRecord record;
    record.id = id;
    record.name = u"train "_s + id;
    record.status = ferry::run::RunStatus::Succeeded;
    record.target = u"local"_s;
    record.createdMs = record.startedMs = 1'700'000'000'000 + startedMs;
    record.finishedMs = record.startedMs + 400;
    store.createRun(record);
    QList<ferry::run::MetricPoint> points;
    for (int step = 0; step < 20; ++step)
        points << ferry::run::MetricPoint{u"loss"_s, double(step), 1.0 / (step + 1), record.startedMs + step}
               << ferry::run::MetricPoint{u"samples_per_s"_s, double(step), 100000.0, record.startedMs + step};
    store.appendMetrics(id, points, 100);
}

// The window with the built trainer plugin, shown (the tests that train in it).
struct TrainerWindow {
    explicit TrainerWindow(const QString &settingsFile)
        : settings(settingsFile, QSettings::IniFormat), recent(settings),
          loader({ferry::test::buildDir() + QStringLiteral("/bin")}), services{[this] { return loader.load(); },
                                                                               ferry::test::ferryBinary()},
          window(settings, recent, services)
    {
        window.show();
    }
    QSettings settings;
    RecentWorkspaces recent;
    ferry::run::TrainerLoader loader;
    ferry::ui::WorkbenchServices services;
    MainWindow window;
};

} // namespace

class TestMainWindow : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString settingsFile() const { return m_dir.filePath(u"settings.ini"_s); }
    QString folder(const QString &name)
    {
        QDir(m_dir.path()).mkpath(name);
        return QDir::cleanPath(m_dir.filePath(name));
    }

private Q_SLOTS:
    void init() { QFile::remove(settingsFile()); }

    void opensOnTheEmptyState()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QCOMPARE(window.windowTitle(), u"Ferry"_s);
        QCOMPARE(window.centralWidget(), window.documentArea());
        auto *centre = qobject_cast<QStackedWidget *>(window.documentArea()->home());
        QVERIFY(centre);
        auto *empty = qobject_cast<ferry::ui::EmptyStateWidget *>(centre->currentWidget());
        QVERIFY(empty);
        QVERIFY(empty->isVisible());
        QCOMPARE(empty->heading(), u"Start with a workspace"_s);
        QVERIFY(empty->body().contains(u"Open the folder where your training script lives"_s));
        // Regression: the wrapped explanation was cut after two lines.
        auto *body = empty->findChild<QLabel *>(u"emptyStateBody"_s);
        QVERIFY(body);
        QTRY_VERIFY(body->height() >= body->heightForWidth(body->width()));
        QVERIFY(!window.workspace());

        for (const QString &dock : {u"workspaceDock"_s, u"experimentDock"_s}) {
            auto *widget = window.findChild<QDockWidget *>(dock);
            QVERIFY2(widget && widget->isVisible(), qPrintable(dock));
        }
        QCOMPARE(actionTexts(topMenu(window, u"&File"_s)),
                 (QStringList{u"&New Workspace…"_s, u"&Open Workspace…"_s, u"Open &Recent"_s, u"&Save"_s,
                              u"Close &Tab"_s, u"&Close Workspace"_s, u"&Settings…"_s, u"&Quit"_s}));
        QCOMPARE(actionTexts(topMenu(window, u"&Help"_s)), QStringList{u"&About Ferry"_s});
        QCOMPARE(actionTexts(topMenu(window, u"&Run"_s)),
                 (QStringList{u"&Start a Script Run…"_s, u"New S&weep…"_s, u"&Sweeps"_s, u"&Train on a Dataset"_s,
                              u"&Find a Run"_s, u"&Refresh Runs"_s, u"&Compare Selected Runs"_s, u"&Analyse Runs"_s,
                              u"&Images"_s, u"&Distributions"_s, u"Re-run E&xactly"_s, u"C&osts"_s}));
        QVERIFY(!window.recentMenu()->isEnabled()); // nothing opened yet

        const QImage frame = window.grab().toImage();
        QVERIFY(!frame.isNull());
        QCOMPARE(frame.size(), window.size() * frame.devicePixelRatio());
    }

    void openingAWorkspace()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();

        const QString path = folder(u"project"_s);
        QFile script(path + u"/train.py"_s);
        QVERIFY(script.open(QIODevice::WriteOnly));
        script.close();

        QVERIFY(window.openWorkspaceAt(path));
        QVERIFY(QFileInfo(path + u"/.ferry/runs"_s).isDir());
        QCOMPARE(window.windowTitle(), u"project — Ferry"_s);
        QCOMPARE(window.workspace()->root(), path);
        QCOMPARE(window.emptyState()->heading(), u"Workspace “project” is open"_s);
        QCOMPARE(recent.paths(), QStringList{path});
        QVERIFY(window.recentMenu()->isEnabled());
        QVERIFY(actionTexts(window.recentMenu()).contains(path));

        auto *tree = window.findChild<QTreeView *>(u"workspaceTree"_s);
        QVERIFY(tree && tree->model());
        // The file system model fills in the background; train.py shows, .ferry does not.
        QTRY_COMPARE(tree->model()->rowCount(tree->rootIndex()), 1);
        QCOMPARE(tree->model()->index(0, 0, tree->rootIndex()).data().toString(), u"train.py"_s);
    }

    // The environments being edited belong to their workspace: opening another closes them.
    void openingAnotherWorkspaceClosesItsEditors()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        const QString first = folder(u"first"_s);
        QVERIFY(QDir(first).mkpath(u"environments"_s));
        QFile env(first + u"/environments/demo.yml"_s);
        QVERIFY(env.open(QIODevice::WriteOnly));
        env.write("ferry: 1\nname: demo\n");
        env.close();
        QVERIFY(window.openWorkspaceAt(first));
        QVERIFY(window.environmentEditors()->open(env.fileName()));
        QCOMPARE(window.documentArea()->documents().size(), 1);
        QVERIFY(window.openWorkspaceAt(folder(u"second"_s)));
        QCOMPARE(window.documentArea()->documents().size(), 0);
    }

    void missingWorkspaceIsReportedAndForgotten()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();

        const QString path = folder(u"gone"_s);
        recent.add(path);
        QVERIFY(QDir(path).removeRecursively());
        QVERIFY(!window.openWorkspaceAt(path));
        QVERIFY(!window.workspace());
        auto *box = window.findChild<QMessageBox *>(u"errorBox"_s);
        QVERIFY(box);
        QTRY_VERIFY(box->isVisible());
        QVERIFY(box->text().contains(path + u": no such folder"_s));
        QVERIFY(window.statusBar()->currentMessage().contains(u"no such folder"_s));
        QVERIFY(!settings.value(u"workspaces/recent"_s).toStringList().contains(path));
        box->accept();
    }

    void recentMenuReopens()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        QVERIFY(window.openWorkspaceAt(folder(u"first"_s)));
        QVERIFY(window.openWorkspaceAt(folder(u"second"_s)));

        QMenu *menu = window.recentMenu();
        Q_EMIT menu->aboutToShow();
        QCOMPARE(actionTexts(menu), (QStringList{folder(u"second"_s), folder(u"first"_s), u"Clear Recent"_s}));
        menu->actions().at(1)->trigger();
        QCOMPARE(window.workspace()->root(), folder(u"first"_s));
        QCOMPARE(recent.paths().first(), folder(u"first"_s));

        menu->actions().last()->trigger(); // Clear Recent
        QVERIFY(recent.paths().isEmpty());
        QVERIFY(!menu->isEnabled());
    }

    // The notebook replacement's first minutes: drop a CSV on the window, press Train, watch
    // the chart fill live, cancel; the run is in the table, cancelled. A URL is refused.
    void dropTrainWatchCancel()
    {
        if (!FERRY_HAS_TRAINER)
            QSKIP("this build has no trainer plugin (FERRY_TRAINER=OFF)");
        TrainerWindow trainer(settingsFile());
        MainWindow &window = trainer.window;
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString path = folder(u"trainme"_s);
        QVERIFY(window.openWorkspaceAt(path));
        QFile csv(path + u"/points.csv"_s);
        QVERIFY(csv.open(QIODevice::WriteOnly));
        csv.write("x,y,label\n");
        for (int i = 0; i < 4000; ++i)
            csv.write(QByteArray::number(i % 97) + ',' + QByteArray::number(i % 31) +
                      (i % 97 > 48 ? ",hi\n" : ",lo\n"));
        csv.close();

        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(csv.fileName()), QUrl(u"https://example.org/x.csv"_s)});
        QDragEnterEvent enter(QPoint(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &enter);
        QVERIFY(enter.isAccepted());
        QDropEvent drop(QPointF(50, 50), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&window, &drop);
        QTRY_VERIFY_WITH_TIMEOUT(window.trainPanel()->dataset() == csv.fileName(), 10000);
        QVERIFY(window.problems()->text(0).contains(u"only local files"_s));

        ferry::run::TrainingConfig c = window.trainPanel()->config();
        c.epochs = 100000;
        c.layers = {16};
        window.trainPanel()->setConfig(c);
        QTest::mouseClick(window.trainPanel()->findChild<QPushButton *>(u"train"_s), Qt::LeftButton);
        // The run appears, gets selected, and its loss reaches the chart live.
        ferry::ui::LossChart *chart = window.chartPanel()->chart();
        QTRY_VERIFY_WITH_TIMEOUT(!window.runsView()->selectedRunIds().isEmpty(), 30000);
        const QString id = window.runsView()->selectedRunIds().first();
        QTRY_VERIFY_WITH_TIMEOUT(!chart->visibleSeries().empty(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(chart->store()->data(chart->visibleSeries().front()).size() > 3, 30000);
        QTest::mouseClick(window.trainPanel()->findChild<QPushButton *>(u"cancel"_s), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.trainPanel()->isTraining(), 30000);
        QTRY_VERIFY_WITH_TIMEOUT(window.store()->run(id)->status == ferry::run::RunStatus::Cancelled, 30000);
    }

    // Re-run exactly of a training (the details pane's button): the same training again, its
    // settings and seed from the run, not from the form, every computed point bit for bit.
    void rerunExactlyOfATrainingTrainsItAgainBitForBit()
    {
        if (!FERRY_HAS_TRAINER)
            QSKIP("this build has no trainer plugin (FERRY_TRAINER=OFF)");
        TrainerWindow trainer(settingsFile());
        MainWindow &window = trainer.window;
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const QString path = folder(u"rerun-training"_s);
        QVERIFY(window.openWorkspaceAt(path));
        QVERIFY(writeFile(path + u"/tiny.csv"_s, ferry::test::tinyTrainingCsv()));
        window.trainPanel()->setDataset(path + u"/tiny.csv"_s);
        ferry::run::TrainingConfig c = window.trainPanel()->config();
        c.epochs = 2;
        c.seed = 11;
        c.layers = {8};
        window.trainPanel()->setConfig(c);
        QTest::mouseClick(window.trainPanel()->findChild<QPushButton *>(u"train"_s), Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(!window.runsView()->selectedRunIds().isEmpty(), 30000);
        const QString a = window.runsView()->selectedRunIds().first();
        QTRY_VERIFY_WITH_TIMEOUT(!window.trainPanel()->isTraining(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(window.store()->run(a)->status == ferry::run::RunStatus::Succeeded, 30000);

        c.seed = 99; // the form changed since: the rerun is the run's, not the form's
        c.epochs = 1;
        window.trainPanel()->setConfig(c);
        auto *button = window.findChild<QPushButton *>(u"rerunExactly"_s);
        QVERIFY(button);
        QTRY_VERIFY_WITH_TIMEOUT(button->isEnabled(), 10000);
        QTest::mouseClick(button, Qt::LeftButton);
        QTRY_VERIFY_WITH_TIMEOUT(window.runsView()->selectedRunIds().value(0) != a, 30000);
        const QString b = window.runsView()->selectedRunIds().first();
        QCOMPARE(window.trainPanel()->config().seed, 11u); // the form shows what trains
        QTRY_VERIFY_WITH_TIMEOUT(!window.trainPanel()->isTraining(), 60000);
        QTRY_VERIFY_WITH_TIMEOUT(window.store()->run(b)->status == ferry::run::RunStatus::Succeeded, 30000);
        const auto spec = ferry::run::RunSpec::fromJson(window.store()->run(b)->spec);
        QVERIFY(spec);
        QCOMPARE(spec->rerunOf, a);
        QCOMPARE(window.store()->params(b), window.store()->params(a));
        const auto bitsA = ferry::test::trainingPointBits(*window.store(), a);
        QVERIFY2(bitsA.size() >= 4, qPrintable(QStringList(bitsA.keys()).join(u", "_s))); // losses and epoch metrics
        QTRY_COMPARE_WITH_TIMEOUT(ferry::test::trainingPointBits(*window.store(), b).keys(), bitsA.keys(), 30000);
        const auto bitsB = ferry::test::trainingPointBits(*window.store(), b);
        for (auto it = bitsA.begin(); it != bitsA.end(); ++it)
            QVERIFY2(bitsB.value(it.key()) == it.value(), qPrintable(it.key()));
    }

    void geometryPersists()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        QSize windowSize;
        {
            MainWindow window(settings, recent, {});
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.showNormal(); // the first start is maximised: the user makes it smaller
            const QSize size = window.minimumSizeHint().expandedTo(QSize(900, 640)) + QSize(37, 23);
            window.resize(size);
            QTRY_COMPARE(window.size(), size);
            windowSize = size;
            window.close();
        }
        QSettings reread(settingsFile(), QSettings::IniFormat);
        MainWindow again(reread, recent, {});
        QCOMPARE(again.size(), windowSize);
    }

    // First start on a laptop's screen: maximised, never larger than the screen, and with a
    // workspace open the chart is the largest thing in the window (the docks are narrow).
    void firstStartFitsTheScreenAndTheChartIsLargest()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        QVERIFY(window.openWorkspaceAt(folder(u"roomy"_s)));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QTRY_VERIFY(window.isMaximized());
        const QRect screen = window.screen()->availableGeometry();
        QVERIFY2(screen.contains(window.frameGeometry()),
                 qPrintable(u"%1x%2"_s.arg(window.width()).arg(window.height())));
        QVERIFY(screen.contains(window.normalGeometry())); // unmaximised, it still fits
        const auto area = [](const QWidget *w) { return w->width() * w->height(); };
        const int chart = area(window.chartPanel());
        for (const QString &name : {u"workspaceDock"_s, u"experimentDock"_s}) {
            const auto *dock = window.findChild<QDockWidget *>(name);
            QTRY_VERIFY2(chart > area(dock),
                         qPrintable(u"%1: %2 vs the chart's %3"_s.arg(name).arg(area(dock)).arg(chart)));
            QVERIFY2(dock->width() < window.width() / 3, qPrintable(name));
        }
        QVERIFY(window.chartPanel()->height() > window.findChild<QTabWidget *>(u"bottomTabs"_s)->height());
    }

    void reopensTheLastWorkspace()
    {
        const QString last = folder(u"last"_s);
        {
            QSettings settings(settingsFile(), QSettings::IniFormat);
            RecentWorkspaces recent(settings);
            MainWindow window(settings, recent, {});
            QVERIFY(!window.reopenLastWorkspace()); // nothing opened yet
            QVERIFY(window.openWorkspaceAt(folder(u"earlier"_s)));
            QVERIFY(window.openWorkspaceAt(last));
            window.close();
        }
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow again(settings, recent, {});
        QVERIFY(again.reopenLastWorkspace());
        QCOMPARE(again.workspace()->root(), last);
    }

    // Nothing selected: the newest runs' curves are in the chart at once, and say so; a selection
    // shows what it selects.
    void newestRunsAreChartedWithoutASelection()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(folder(u"withruns"_s)));
        for (int i = 0; i < 12; ++i)
            addRunWithLoss(*window.store(), u"run%1"_s.arg(i), i * 1000);
        window.store()->flush();
        ferry::ui::LossChart *chart = window.chartPanel()->chart();
        QTRY_COMPARE_WITH_TIMEOUT(chart->legendRuns().size(), 10, 10000);
        QVERIFY(window.runsView()->selectedRunIds().isEmpty());
        QVERIFY(chart->legendRuns().contains(u"run11"_s)); // the newest
        QVERIFY(!chart->legendRuns().contains(u"run1"_s)); // the oldest are left out
        QTRY_VERIFY(!chart->visibleSeries().empty());
        // It says how many it shows and how many it leaves out.
        // (the table's rows may come in two reads: the caption follows the second)
        QTRY_VERIFY2(window.chartPanel()->caption().contains(u"10 newest of the 12 runs (2 left out)"_s),
                     qPrintable(window.chartPanel()->caption()));
        // The losses, not a throughput of 100000 that would draw them flat on one axis.
        QTRY_COMPARE(chart->metrics(), QStringList{u"loss"_s});
        for (const int id : chart->visibleSeries())
            QCOMPARE(chart->store()->data(id).key().metric, u"loss"_s);
        // The throughput in a panel of its own, with its own y range, the same runs in it.
        QTRY_COMPARE(window.chartPanel()->panels().size(), 2);
        ferry::ui::LossChart *throughput = window.chartPanel()->panels().at(1);
        QCOMPARE(throughput->metrics(), QStringList{u"samples_per_s"_s});
        QTRY_COMPARE(throughput->legendRuns(), chart->legendRuns());
        QVERIFY(throughput->yRange().second > 1000 && chart->yRange().second < 10);
        QVERIFY(throughput->isVisible());

        window.runsView()->selectRuns({u"run0"_s});
        QTRY_COMPARE(chart->legendRuns(), QStringList{u"run0"_s});
        QCOMPARE(window.chartPanel()->caption(), u"Showing the selected run"_s);

        // Closed and opened again: the table starts over, and the newest curves are back.
        menuAction(window, u"&File"_s, u"&Close Workspace"_s)->trigger();
        QCOMPARE(window.runsView()->model()->rowCount(), 0);
        QVERIFY(window.reopenLastWorkspace());
        QTRY_COMPARE_WITH_TIMEOUT(chart->legendRuns().size(), 10, 10000);
        QVERIFY(window.runsView()->selectedRunIds().isEmpty());
        QTRY_VERIFY(!chart->visibleSeries().empty());
    }

    // Nothing selected, the chart shows what the runs table shows: the filter's words narrow it at
    // once, a query once the rows are read again, and the caption counts them (UX review
    // 2026-12-06, finding 7).
    void chartFollowsTheRunsFilter()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(folder(u"filtered"_s)));
        for (int i = 0; i < 12; ++i)
            addRunWithLoss(*window.store(), u"run%1"_s.arg(i), i * 1000);
        window.store()->flush();
        ferry::ui::LossChart *chart = window.chartPanel()->chart();
        const auto charted = [chart] {
            const QStringList runs = chart->legendRuns();
            return QSet<QString>(runs.begin(), runs.end());
        };
        QTRY_COMPARE_WITH_TIMEOUT(chart->legendRuns().size(), 10, 10000);

        window.runsView()->filterEdit()->setText(u"run1"_s); // run1, run10, run11
        QTRY_COMPARE(charted(), (QSet<QString>{u"run1"_s, u"run10"_s, u"run11"_s}));
        QCOMPARE(window.runsView()->proxy()->rowCount(), 3);
        QVERIFY2(window.chartPanel()->caption().contains(u"3 runs the filter keeps"_s),
                 qPrintable(window.chartPanel()->caption()));

        window.runsView()->filterEdit()->setText(u"id = run5 or id = run7"_s);
        QTRY_COMPARE_WITH_TIMEOUT(charted(), (QSet<QString>{u"run5"_s, u"run7"_s}), 10000);
        QVERIFY(window.chartPanel()->caption().contains(u"2 runs the filter keeps"_s));

        window.runsView()->filterEdit()->setText(u"no such words"_s);
        QTRY_VERIFY(chart->legendRuns().isEmpty());
        QCOMPARE(window.chartPanel()->caption(), u"No run the filter keeps has metrics yet"_s);

        window.runsView()->filterEdit()->clear();
        QTRY_COMPARE_WITH_TIMEOUT(chart->legendRuns().size(), 10, 10000);
        QTRY_VERIFY2(window.chartPanel()->caption().contains(u"(2 left out)"_s),
                     qPrintable(window.chartPanel()->caption()));
    }

    // The chart's groups come from the runs table's parameters; the grouping is the workspace's
    // (.ferry/chart.json): gone with the workspace closed, back when it is opened again.
    void chartGroupsRunsByTheirParametersPerWorkspace()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(folder(u"grouped"_s)));
        for (int i = 0; i < 4; ++i) {
            addRunWithLoss(*window.store(), u"run%1"_s.arg(i), i * 1000);
            window.store()->setParams(u"run%1"_s.arg(i), {{u"lr"_s, i % 2 ? u"0.1"_s : u"0.01"_s}});
        }
        window.store()->flush();
        ferry::ui::LossChartPanel *panel = window.chartPanel();
        ferry::ui::LossChart *chart = panel->chart();
        QTRY_COMPARE_WITH_TIMEOUT(chart->legendRuns().size(), 4, 10000);
        QTRY_VERIFY(panel->groupChoices().contains(u"hp.lr"_s));
        panel->setGroupBy(u"hp.lr"_s);
        QVERIFY(chart->isGrouped());
        QVERIFY2(chart->legendText().contains(u"lr=0.01 (n=2)"_s), qPrintable(chart->legendText().join(u'|')));
        QVERIFY(chart->legendText().contains(u"lr=0.1 (n=2)"_s));
        QVERIFY(QFileInfo::exists(folder(u"grouped"_s) + u"/.ferry/chart.json"_s));

        menuAction(window, u"&File"_s, u"&Close Workspace"_s)->trigger();
        QVERIFY(!chart->isGrouped());
        QCOMPARE(panel->groupBy(), QString());
        QVERIFY(window.reopenLastWorkspace());
        QCOMPARE(panel->groupBy(), u"hp.lr"_s);
        QTRY_COMPARE_WITH_TIMEOUT(chart->legendText().contains(u"lr=0.1 (n=2)"_s), true, 10000);
    }

    // Run > Analyse Runs (issue 37): a tab of the middle over the runs the table shows; leaving
    // the workspace closes it, its reads over before the store closes.
    void analyseRunsOpensATabOverTheTablesRuns()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(folder(u"analysed"_s)));
        for (int i = 0; i < 4; ++i)
            addRunWithLoss(*window.store(), u"run%1"_s.arg(i), i * 1000);
        window.store()->flush();
        QTRY_COMPARE_WITH_TIMEOUT(window.runsView()->model()->rowCount(), 4, 10000);
        menuAction(window, u"&Run"_s, u"&Analyse Runs"_s)->trigger();
        auto *view = qobject_cast<ferry::ui::RunsAnalysisView *>(window.documentArea()->currentDocument());
        QVERIFY(view);
        QCOMPARE(window.windowTitle(), u"Analysis[*] — Ferry"_s); // [*]: Qt's mark, shown with unsaved edits
        QCOMPARE(view->runIds().size(), 4);
        QTRY_COMPARE_WITH_TIMEOUT(view->read().runs.size(), 4, 10000);
        // Opened again: the same tab.
        window.documentArea()->setCurrentIndex(0);
        menuAction(window, u"&Run"_s, u"&Analyse Runs"_s)->trigger();
        QCOMPARE(window.documentArea()->currentDocument(), view);
        QCOMPARE(window.documentArea()->count(), 2);
        const QPointer<ferry::ui::RunsAnalysisView> tab = view;
        menuAction(window, u"&File"_s, u"&Close Workspace"_s)->trigger();
        QTRY_VERIFY(!tab);
    }

    // Run > Images and Run > Distributions (issue 37): one Media tab on either page, over the runs
    // selected in the table; leaving the workspace closes it.
    void imagesAndDistributionsOpenTheMediaTab()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.show();
        QVERIFY(window.openWorkspaceAt(folder(u"media"_s)));
        for (int i = 0; i < 3; ++i)
            addRunWithLoss(*window.store(), u"run%1"_s.arg(i), i * 1000);
        window.store()->flush();
        QTRY_COMPARE_WITH_TIMEOUT(window.runsView()->model()->rowCount(), 3, 10000);
        window.runsView()->selectRuns({u"run0"_s, u"run2"_s});
        QAction *images = menuAction(window, u"&Run"_s, u"&Images"_s);
        QCOMPARE(images->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
        images->trigger();
        auto *view = qobject_cast<ferry::ui::RunMediaView *>(window.documentArea()->currentDocument());
        QVERIFY(view);
        QCOMPARE(window.windowTitle(), u"Media[*] — Ferry"_s);
        QCOMPARE(view->pages()->currentWidget(), view->images());
        QTRY_COMPARE(QSet<QString>(view->runIds().cbegin(), view->runIds().cend()),
                     (QSet<QString>{u"run0"_s, u"run2"_s})); // in the table's order
        QTRY_VERIFY(!view->images()->isReading());
        QVERIFY(view->images()->showsEmptyState()); // these runs logged no images
        QVERIFY(view->images()->emptyLabel()->text().contains(u"docs/metrics.md"_s));
        menuAction(window, u"&Run"_s, u"&Distributions"_s)->trigger();
        QCOMPARE(window.documentArea()->currentDocument(), view);
        QCOMPARE(window.documentArea()->count(), 2);
        QCOMPARE(view->pages()->currentWidget(), view->distributions());
        // The selection followed.
        window.runsView()->selectRuns({u"run1"_s});
        QTRY_COMPARE(view->runIds(), QStringList{u"run1"_s});
        const QPointer<ferry::ui::RunMediaView> tab = view;
        menuAction(window, u"&File"_s, u"&Close Workspace"_s)->trigger();
        QTRY_VERIFY(!tab);
    }

    // Every menu action has a key: the desktop's standard one where there is a convention.
    void menuActionsHaveShortcuts()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        const QStringList withoutConvention{u"&About Ferry"_s}; // no desktop has a key for it
        QSet<QString> keys;
        for (QAction *top : window.menuBar()->actions()) {
            for (QAction *action : top->menu()->actions()) {
                if (action->isSeparator() || action->menu() || withoutConvention.contains(action->text()))
                    continue;
                const QString key = action->shortcut().toString();
                QVERIFY2(!key.isEmpty(), qPrintable(action->text() + u" has no shortcut"_s));
                QVERIFY2(!keys.contains(key), qPrintable(key + u" is taken twice"_s));
                keys.insert(key);
            }
        }
        const auto hasStandardKey = [&](const QString &menu, const QString &text, QKeySequence::StandardKey standard) {
            const QList<QKeySequence> platform = QKeySequence::keyBindings(standard);
            return platform.isEmpty() || platform.contains(menuAction(window, menu, text)->shortcut());
        };
        QVERIFY(hasStandardKey(u"&File"_s, u"&New Workspace…"_s, QKeySequence::New));
        QVERIFY(hasStandardKey(u"&File"_s, u"&Open Workspace…"_s, QKeySequence::Open));
        QVERIFY(hasStandardKey(u"&File"_s, u"&Save"_s, QKeySequence::Save));
        QVERIFY(hasStandardKey(u"&File"_s, u"Close &Tab"_s, QKeySequence::Close));
        QVERIFY(hasStandardKey(u"&File"_s, u"&Settings…"_s, QKeySequence::Preferences));
        QVERIFY(hasStandardKey(u"&File"_s, u"&Quit"_s, QKeySequence::Quit));
        QVERIFY(hasStandardKey(u"&Run"_s, u"&Find a Run"_s, QKeySequence::Find));
        QCOMPARE(menuAction(window, u"&Run"_s, u"&Refresh Runs"_s)->shortcut(), QKeySequence(Qt::Key_F5));
    }

    void closeWorkspaceReturnsToTheEmptyState()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        QAction *close = menuAction(window, u"&File"_s, u"&Close Workspace"_s);
        QVERIFY(!close->isEnabled());
        QVERIFY(window.openWorkspaceAt(folder(u"closing"_s)));
        QVERIFY(close->isEnabled());
        close->trigger();
        QVERIFY(!window.workspace());
        QVERIFY(!window.store());
        QCOMPARE(window.windowTitle(), u"Ferry"_s);
        QCOMPARE(window.emptyState()->heading(), u"Start with a workspace"_s);
        QVERIFY(!close->isEnabled());
        QCOMPARE(recent.paths().first(), folder(u"closing"_s)); // still offered, and reopened next time
    }

    // `ferry environments/x.yml`: the folder above environments/ is the workspace and the file
    // is in an editor, the tab in view; a dataset or notebook of that workspace opens in it.
    void commandLineEnvironmentOpensInItsWorkspace()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        const QString root = folder(u"envproject"_s);
        const QString file = root + u"/environments/x.yml"_s;
        QVERIFY(writeFile(file, "ferry: 1\nname: x\nversion: \"1\"\n"));
        window.openPaths({file});
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.workspace());
        QCOMPARE(window.workspace()->root(), root);
        QCOMPARE(window.environmentEditors()->editors().size(), 1);
        auto *editor = window.documentArea()->currentDocument();
        QVERIFY(editor && editor->isVisible() && !editor->visibleRegion().isEmpty());
        QCOMPARE(editor->path(), file);
        QVERIFY(!QFileInfo::exists(root + u"/environments/x-2.yml"_s)); // opened, not imported again

        // A file of another workspace switches to it; one outside any stays in the open one.
        const QString other = folder(u"otherproject"_s);
        QVERIFY(QDir(other).mkpath(u".ferry"_s));
        QVERIFY(writeFile(other + u"/data/points.csv"_s, "x,y\n1,a\n2,b\n"));
        window.openPaths({other + u"/data/points.csv"_s});
        QCOMPARE(window.workspace()->root(), other);
        QTRY_COMPARE(window.datasetPanel()->channels().size(), 1);
        QVERIFY(writeFile(folder(u"loose"_s) + u"/more.csv"_s, "x,y\n1,a\n"));
        window.openPaths({folder(u"loose"_s) + u"/more.csv"_s});
        QCOMPARE(window.workspace()->root(), other);
    }

    // The train panel says what to do next from its state, not "drop a dataset" when one is bound.
    void trainHintFollowsTheState()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        auto *status = window.trainPanel()->findChild<QLabel *>(u"trainStatus"_s);
        QVERIFY(status->text().contains(u"Open a workspace"_s));
        QVERIFY(window.openWorkspaceAt(folder(u"hints"_s)));
        QVERIFY(status->text().contains(u"Drop a dataset"_s));
        window.trainPanel()->setDataset(folder(u"hints"_s) + u"/iris.csv"_s);
        QVERIFY2(status->text().contains(u"press Train"_s) && status->text().contains(u"iris.csv"_s),
                 qPrintable(status->text()));
        QVERIFY(!status->text().contains(u"Drop"_s));
    }

    // Long names in the workspace's tree keep their ends in view, and the tooltip has them whole.
    void longNamesAreElidedInTheMiddle()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        const QString root = folder(u"longnames"_s);
        const QString name = u"a_training_script_with_a_really_rather_long_descriptive_name_v2.py"_s;
        QVERIFY(writeFile(root + u'/' + name, "print(1)\n"));
        QVERIFY(window.openWorkspaceAt(root));
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        auto *tree = window.findChild<ferry::ui::WorkspaceTree *>(u"workspaceTree"_s);
        QCOMPARE(tree->textElideMode(), Qt::ElideMiddle);
        QCOMPARE(window.findChild<QTreeView *>(u"workspaceOverview"_s)->textElideMode(), Qt::ElideMiddle);
        window.findChild<QTabWidget *>(u"workspaceTabs"_s)->setCurrentWidget(tree);
        QTRY_COMPARE(tree->model()->rowCount(tree->rootIndex()), 1);
        const QModelIndex index = tree->model()->index(0, 0, tree->rootIndex());
        const QPoint at = tree->visualRect(index).center();
        QHelpEvent help(QEvent::ToolTip, at, tree->viewport()->mapToGlobal(at));
        QApplication::sendEvent(tree->viewport(), &help);
        QTRY_VERIFY2(QToolTip::text().endsWith(name), qPrintable(QToolTip::text()));
    }

    // Review 2026-12-06, finding 8: choosing a run brings its details forward (the Run tab over
    // Train), they follow the selection and empty when none is left; the side dock does not grow
    // and squeeze the chart's Smoothing slider. The legend names the run as the table does.
    void selectedRunsDetailsComeForwardAndFollowTheSelection()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        window.resize(1600, 1000);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        QVERIFY(window.openWorkspaceAt(folder(u"details"_s)));
        const QString a = u"20261206-101530-train-0eaa"_s, b = u"20261206-101541-train-cfbb"_s;
        for (const QString &id : {a, b}) {
            ferry::run::RunRecord record;
            record.id = id;
            record.name = u"train"_s; // one script: the names alike, as the review found them
            record.status = ferry::run::RunStatus::Succeeded;
            record.createdMs = record.startedMs = 1'700'000'000'000 + (id == a ? 0 : 1000);
            window.store()->createRun(record);
            window.store()->appendMetrics(id, {{u"loss"_s, 0, 1.0, record.startedMs}}, 10);
        }
        window.store()->setParams(a, {{u"lr"_s, u"0.01"_s}});
        window.store()->setParams(b, {{u"lr"_s, u"0.03"_s}});
        window.store()->flush();
        QTRY_COMPARE(window.runsView()->model()->rowCount(), 2);
        auto *side = window.findChild<QTabWidget *>(u"sideTabs"_s);
        auto *details = window.findChild<ferry::ui::RunDetailsView *>();
        QVERIFY(side && details);
        QVERIFY(side->currentWidget() != details);
        auto *slider = window.chartPanel()->findChild<QSlider *>();
        QVERIFY(slider);
        const int sliderWidth = slider->width();

        window.runsView()->selectRuns({a});
        QCOMPARE(side->currentWidget(), details);
        QTRY_COMPARE(details->runId(), a);
        QTest::qWait(50); // a layout pass
        QVERIFY2(slider->width() >= std::min(sliderWidth, 80),
                 qPrintable(u"%1 -> %2"_s.arg(sliderWidth).arg(slider->width())));
        // The legend: what differs, and the end of the id that `ferry runs show` takes.
        QTRY_COMPARE(window.chartPanel()->chart()->runLabel(a), u"train lr=0.01 (0eaa)"_s);

        window.runsView()->selectRuns({b});
        QTRY_COMPARE(details->runId(), b);
        window.runsView()->table()->clearSelection();
        QTRY_VERIFY(details->runId().isEmpty());

        // A long message takes the status bar: the workspace's path steps aside meanwhile.
        auto *path = window.findChild<QLabel *>(u"workspaceLabel"_s);
        QVERIFY(path);
        window.statusBar()->clearMessage();
        QVERIFY(path->isVisible());
        window.statusBar()->showMessage(QString(300, u'x'));
        QVERIFY(!path->isVisible());
        window.statusBar()->clearMessage();
        QVERIFY(path->isVisible());
    }

    // Issue 15: a part's problem reaches the window's list as core said it (file, line, hint),
    // not flattened into one string, and opens at its line.
    void aPartsProblemKeepsItsPlaceAndHint()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        const QString csv = m_dir.filePath(u"unclosed.csv"_s);
        QVERIFY(writeFile(csv, "\n\n\"x,y,label\n1,2,a\n")); // the header's quote, on line 3, is never closed
        window.datasetPanel()->addDataset(csv);
        QTRY_VERIFY_WITH_TIMEOUT(window.problems()->count() == 1, 10000);
        const QModelIndex row = window.problems()->model()->index(0);
        QVERIFY2(window.problems()->text(0).startsWith(u"Dataset: a quoted field is never closed"_s),
                 qPrintable(window.problems()->text(0)));
        QCOMPARE(row.data(ferry::ui::ProblemsModel::PathRole).toString(), csv);
        QCOMPARE(row.data(ferry::ui::ProblemsModel::LineRole).toInt(), 3);
        QVERIFY(row.data(ferry::ui::ProblemsModel::HintRole).toString().contains(u"close the quote"_s));

        QSignalSpy open(window.problems(), &ferry::ui::ProblemsPanel::openRequested);
        window.problems()->findChild<QListView *>(u"problemsList"_s)->setCurrentIndex(row);
        window.problems()->findChild<QPushButton *>(u"openProblem"_s)->click();
        QCOMPARE(open.size(), 1);
        QCOMPARE(open.first().at(0).toString(), csv);
        QCOMPARE(open.first().at(1).toInt(), 3);
    }

    // Quit, by its key as a user presses it, ends the application's event loop: the window
    // closes and nothing keeps the process alive. Last: it quits the test's application.
    void quitEndsTheApplication()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent, {});
        QVERIFY(window.openWorkspaceAt(folder(u"quitting"_s)));
        window.show();
        QVERIFY(QTest::qWaitForWindowActive(&window));
        const QKeySequence quit = menuAction(window, u"&File"_s, u"&Quit"_s)->shortcut();
        QTimer::singleShot(0, &window, [&window, quit] { QTest::keySequence(&window, quit); });
        QTimer::singleShot(20000, qApp, [] { QCoreApplication::exit(1); }); // Quit did nothing
        QCOMPARE(QApplication::exec(), 0);
        QVERIFY(!window.isVisible());
        QVERIFY(settings.contains(u"mainWindow/geometry"_s)); // closed the normal way
    }
};

// A laptop's 1366×768 screen rather than the offscreen platform's 800×600: what a window that
// "fits the screen" has to fit.
static int mainWindowMain(int argc, char **argv)
{
    QTemporaryDir screens;
    if (qgetenv("QT_QPA_PLATFORM") == "offscreen") {
        const QString config = screens.filePath(u"screens.json"_s);
        QFile file(config);
        if (file.open(QIODevice::WriteOnly))
            file.write(R"({"screens": [{"name": "laptop", "x": 0, "y": 0, "width": 1366, "height": 768,
                           "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]})");
        file.close();
        qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toLocal8Bit());
    }
    QApplication app(argc, argv);
    TestMainWindow test;
    QTEST_SET_MAIN_SOURCE_PATH
    return QTest::qExec(&test, argc, argv);
}
FERRY_TEST_MAIN_FUNCTION(mainWindowMain)

#include "tst_mainwindow.moc"
