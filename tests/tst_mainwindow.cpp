// The window shell, driven offscreen: empty state, workspaces, recent list, persistence.
#include "store/runstore.h"
#include "support/testenv.h"
#include "training/trainerloader.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/data/datasetpanel.h"
#include "ui/env/environmenteditors.h"
#include "ui/problems/problemspanel.h"
#include "ui/runs/runsview.h"
#include "ui/train/trainpanel.h"
#include "ui/window/emptystatewidget.h"
#include "ui/window/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QMimeData>
#include <QPushButton>
#include <QSettings>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

using namespace Qt::StringLiterals;
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
        auto *centre = qobject_cast<QStackedWidget *>(window.centralWidget());
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
        QCOMPARE(
            actionTexts(topMenu(window, u"&File"_s)),
            (QStringList{u"&New Workspace…"_s, u"&Open Workspace…"_s, u"Open &Recent"_s, u"&Settings…"_s, u"&Quit"_s}));
        QCOMPARE(actionTexts(topMenu(window, u"&Help"_s)), QStringList{u"&About Ferry"_s});
        QCOMPARE(actionTexts(topMenu(window, u"&Run"_s)),
                 (QStringList{u"&Start a Script Run…"_s, u"&Train on a Dataset"_s, u"&Refresh Runs"_s}));
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
        QCOMPARE(window.environmentEditors()->count(), 1);
        QVERIFY(window.openWorkspaceAt(folder(u"second"_s)));
        QCOMPARE(window.environmentEditors()->count(), 0);
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
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        ferry::run::TrainerLoader loader({(ferry::test::buildDir() + QStringLiteral("/bin"))});
        ferry::ui::WorkbenchServices services{[&loader] { return loader.load(); }, ferry::test::ferryBinary()};
        MainWindow window(settings, recent, services);
        window.show();
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

    void geometryPersists()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        QSize windowSize;
        {
            MainWindow window(settings, recent, {});
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
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
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
