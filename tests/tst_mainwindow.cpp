// The window shell, driven offscreen: empty state, workspaces, recent list, persistence.
#include "ui/emptystatewidget.h"
#include "ui/mainwindow.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
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
        MainWindow window(settings, recent);
        window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));

        QCOMPARE(window.windowTitle(), u"Ferry"_s);
        auto *empty = qobject_cast<ferry::ui::EmptyStateWidget *>(window.centralWidget());
        QVERIFY(empty);
        QVERIFY(empty->isVisible());
        QCOMPARE(empty->heading(), u"Start with a workspace"_s);
        QVERIFY(empty->body().contains(u"Open the folder where your training script lives"_s));
        // Regression: the wrapped explanation was cut after two lines.
        auto *body = empty->findChild<QLabel *>(u"emptyStateBody"_s);
        QVERIFY(body);
        QTRY_VERIFY(body->height() >= body->heightForWidth(body->width()));
        QVERIFY(!window.workspace());

        for (const QString &dock : {u"workspaceDock"_s, u"runsDock"_s, u"logDock"_s}) {
            auto *widget = window.findChild<QDockWidget *>(dock);
            QVERIFY2(widget && widget->isVisible(), qPrintable(dock));
        }
        QCOMPARE(actionTexts(topMenu(window, u"&File"_s)),
                 (QStringList{u"&New Workspace…"_s, u"&Open Workspace…"_s, u"Open &Recent"_s, u"&Quit"_s}));
        QCOMPARE(actionTexts(topMenu(window, u"&Help"_s)), QStringList{u"&About Ferry"_s});
        QVERIFY(!window.recentMenu()->isEnabled()); // nothing opened yet

        const QImage frame = window.grab().toImage();
        QVERIFY(!frame.isNull());
        QCOMPARE(frame.size(), window.size() * frame.devicePixelRatio());
    }

    void openingAWorkspace()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent);
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

    void missingWorkspaceIsReportedAndForgotten()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        MainWindow window(settings, recent);
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
        MainWindow window(settings, recent);
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

    void geometryPersists()
    {
        QSettings settings(settingsFile(), QSettings::IniFormat);
        RecentWorkspaces recent(settings);
        {
            MainWindow window(settings, recent);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            window.resize(900, 640);
            QTRY_COMPARE(window.size(), QSize(900, 640));
            window.close();
        }
        QSettings reread(settingsFile(), QSettings::IniFormat);
        MainWindow again(reread, recent);
        QCOMPARE(again.size(), QSize(900, 640));
    }
};

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
