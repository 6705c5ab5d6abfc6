// The documents in the middle of the window (issue 36; UX review 2026-12-06, finding 9),
// offscreen: an environment opens as a tab beside the runs, not in a dock; a file opens once;
// closing asks about unsaved edits and leaves the runs; the title names the document in view;
// the keys; the workspace's label of an environment after a new version is saved.
#include "support/files.h"
#include "support/testmain.h"

#include "common/textfile.h"
#include "ui/chart/losschartpanel.h"
#include "ui/document/document.h"
#include "ui/document/documentarea.h"
#include "ui/env/environmentdocument.h"
#include "ui/env/environmenteditor.h"
#include "ui/env/environmenteditors.h"
#include "ui/window/mainwindow.h"
#include "ui/workspace/workspaceoverview.h"
#include "workspace/recentworkspaces.h"

#include <QAbstractButton>
#include <QApplication>
#include <QDockWidget>
#include <QLineEdit>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeWidget>

#include <memory>

using namespace Qt::StringLiterals;
using ferry::test::writeFile;
using ferry::ui::Document;
using ferry::ui::DocumentArea;
using ferry::ui::EnvironmentEditor;
using ferry::ui::MainWindow;

namespace {

const char *kEnvironment = "ferry: 1\nname: torch-cpu\nversion: \"1\"\ndocker:\n  base_image: python:3.11-slim\n";

// A document whose answers the test sets: the area's rules without an editor's dialogs.
class FakeDocument : public Document {
public:
    explicit FakeDocument(const QString &path) : m_path(path) {}
    QString path() const override { return m_path; }
    QString title() const override { return QFileInfo(m_path).fileName(); }
    bool isModified() const override { return m_modified; }
    bool save() override
    {
        setModified(false);
        return true;
    }
    bool maybeClose() override
    {
        ++asked;
        return !m_modified || mayClose;
    }
    void setModified(bool modified)
    {
        m_modified = modified;
        Q_EMIT modifiedChanged(modified);
    }
    bool mayClose = false; // the user's answer to "unsaved edits: close anyway?"
    int asked = 0;

private:
    QString m_path;
    bool m_modified = false;
};

// Presses `button` in each message box that comes up while it lives (the editor's question
// about unsaved edits), keeping what they asked.
class Answer {
public:
    explicit Answer(QMessageBox::StandardButton button)
    {
        QObject::connect(&m_poll, &QTimer::timeout, &m_poll, [this, button] {
            auto *box = qobject_cast<QMessageBox *>(QApplication::activeModalWidget());
            if (!box)
                return;
            asked << box->text();
            box->button(button)->click();
        });
        m_poll.start(20);
    }
    QStringList asked;

private:
    QTimer m_poll;
};

// The names of the window's docks.
QStringList dockNames(const MainWindow &window)
{
    QStringList names;
    for (const QDockWidget *dock : window.findChildren<QDockWidget *>())
        names << dock->objectName();
    names.sort();
    return names;
}

void pressKey(QWidget *window, QKeyCombination key)
{
    QTest::keyClick(QApplication::focusWidget() ? QApplication::focusWidget() : window, key.key(),
                    key.keyboardModifiers());
}

} // namespace

class TestDocuments : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_root;
    QString m_file;

    // A shown window on the workspace "proj", which has environments/torch-cpu.yml.
    struct Window {
        explicit Window(const QString &settingsFile, const QString &root)
            : settings(settingsFile, QSettings::IniFormat), recent(settings), window(settings, recent, {})
        {
            window.resize(1400, 900);
            window.show();
            QVERIFY(QTest::qWaitForWindowExposed(&window));
            QVERIFY(window.openWorkspaceAt(root));
            window.activateWindow();
            QVERIFY(QTest::qWaitForWindowActive(&window));
        }
        QSettings settings;
        ferry::workspace::RecentWorkspaces recent;
        MainWindow window;
        DocumentArea *area() const { return window.documentArea(); }
    };
    std::unique_ptr<Window> openWindow() { return std::make_unique<Window>(m_dir.filePath(u"settings.ini"_s), m_root); }

private Q_SLOTS:
    void init()
    {
        m_root = QDir::cleanPath(m_dir.filePath(u"proj"_s));
        QDir(m_root).removeRecursively();
        m_file = m_root + u"/environments/torch-cpu.yml"_s;
        QVERIFY(writeFile(m_file, kEnvironment));
        QFile::remove(m_dir.filePath(u"settings.ini"_s));
    }

    // The environment is a tab of the middle of the window; no dock comes for it.
    void anEnvironmentOpensAsATabNotADock()
    {
        auto w = openWindow();
        const QStringList docks = dockNames(w->window);
        QCOMPARE(w->window.centralWidget(), w->area());
        QCOMPARE(w->area()->count(), 1); // the runs
        QVERIFY(w->area()->home()->isVisible());

        w->window.openEnvironment(m_file);
        auto *editor = qobject_cast<EnvironmentEditor *>(w->area()->currentDocument());
        QVERIFY(editor);
        QCOMPARE(editor->path(), m_file);
        QCOMPARE(w->area()->count(), 2);
        QCOMPARE(w->area()->indexOf(editor), 1);
        QCOMPARE(w->area()->tabText(1), u"torch-cpu.yml"_s);
        QTRY_VERIFY(editor->isVisible() && !editor->visibleRegion().isEmpty());
        QVERIFY(!w->area()->home()->isVisible());
        QCOMPARE(dockNames(w->window), docks); // no dock more, none for the environment
        QCOMPARE(docks, (QStringList{u"experimentDock"_s, u"workspaceDock"_s}));
        // The runs' tab has no close button; the document's has.
        for (const auto side : {QTabBar::LeftSide, QTabBar::RightSide})
            QVERIFY(!w->area()->tabBar()->tabButton(0, side));
        QVERIFY(w->area()->tabBar()->tabButton(1, QTabBar::RightSide) ||
                w->area()->tabBar()->tabButton(1, QTabBar::LeftSide));
    }

    // A file opens once: opening it again, however it is spelled, shows its tab.
    void openingTwiceShowsTheOneTab()
    {
        auto w = openWindow();
        EnvironmentEditor *first = w->window.environmentEditors()->open(m_file);
        w->area()->setCurrentIndex(0);
        QDir::setCurrent(m_root);
        EnvironmentEditor *again =
            w->window.environmentEditors()->open(u"environments/../environments/torch-cpu.yml"_s);
        QCOMPARE(again, first);
        QCOMPARE(w->area()->count(), 2);
        QCOMPARE(w->area()->currentDocument(), first);
        QCOMPARE(w->area()->documentFor(m_file), first);

        // The area's own call, as a notebook uses it: `make` is not called for an open file.
        int made = 0;
        QCOMPARE(w->area()->open(m_file,
                                 [&]() -> Document * {
                                     ++made;
                                     return nullptr;
                                 }),
                 first);
        QCOMPARE(made, 0);
        const QString other = m_root + u"/explore.ipynb"_s;
        auto *fake = new FakeDocument(other);
        QCOMPARE(w->area()->open(other, [&]() -> Document * { return fake; }), fake);
        QCOMPARE(w->area()->open(other, [&]() -> Document * { return nullptr; }), fake);
        QCOMPARE(w->area()->count(), 3);
        QCOMPARE(w->area()->currentDocument(), fake);
        QVERIFY(!w->window.environmentEditors()->open(other)); // not an environment's editor
    }

    // Closing the document leaves the runs in view: no empty pane, no empty dock.
    void closingTheLastDocumentLeavesTheRuns()
    {
        auto w = openWindow();
        const QStringList docks = dockNames(w->window);
        EnvironmentEditor *editor = w->window.environmentEditors()->open(m_file);
        QSignalSpy closed(w->area(), &DocumentArea::documentClosed);
        Q_EMIT w->area()->tabCloseRequested(w->area()->indexOf(editor));
        QCOMPARE(closed.size(), 1);
        QCOMPARE(w->area()->count(), 1);
        QCOMPARE(w->area()->currentWidget(), w->area()->home());
        QTRY_VERIFY(w->area()->home()->isVisible() && !w->area()->home()->visibleRegion().isEmpty());
        QVERIFY(w->window.chartPanel()->isVisible());
        QCOMPARE(dockNames(w->window), docks);
        for (const QDockWidget *dock : w->window.findChildren<QDockWidget *>())
            QVERIFY2(dock->widget() && dock->widget()->isVisible(), qPrintable(dock->objectName()));
        // The runs' tab is never closed.
        Q_EMIT w->area()->tabCloseRequested(0);
        QCOMPARE(w->area()->count(), 1);
        QVERIFY(w->area()->home()->isVisible());
    }

    // Unsaved edits: closing asks; "stay" keeps the tab, "close anyway" closes it.
    void closingAsksAboutUnsavedEdits()
    {
        DocumentArea area;
        auto *clean = new FakeDocument(u"/w/a.ipynb"_s);
        auto *edited = new FakeDocument(u"/w/b.yml"_s);
        area.add(clean);
        area.add(edited);
        edited->setModified(true);
        QCOMPARE(area.tabText(1), u"b.yml*"_s);
        QVERIFY(!area.closeDocument(edited));
        QCOMPARE(edited->asked, 1);
        QCOMPARE(area.documents().size(), 2);
        QVERIFY(!area.closeAll()); // none closed: the user stays for one
        QCOMPARE(area.documents().size(), 2);
        QCOMPARE(area.currentDocument(), edited); // the one asked about is in view
        edited->mayClose = true;
        QVERIFY(area.closeDocument(edited));
        QCOMPARE(area.documents(), QList<Document *>{clean});
        QVERIFY(area.closeAll());
        QVERIFY(area.documents().isEmpty());

        // The editor asks with its own question (Save, Discard, Cancel).
        auto w = openWindow();
        EnvironmentEditor *editor = w->window.environmentEditors()->open(m_file);
        editor->findChild<QLineEdit *>(u"baseImage"_s)->setText(u"python:3.12-slim"_s);
        Q_EMIT editor->findChild<QLineEdit *>(u"baseImage"_s)->textEdited(u"python:3.12-slim"_s);
        QVERIFY(editor->isModified());
        {
            Answer cancel(QMessageBox::Cancel);
            w->area()->closeCurrent();
            QCOMPARE(cancel.asked.size(), 1);
            QVERIFY2(cancel.asked.first().contains(u"unsaved"_s), qPrintable(cancel.asked.first()));
        }
        QCOMPARE(w->area()->currentDocument(), editor);
        {
            Answer discard(QMessageBox::Discard);
            w->area()->closeCurrent();
        }
        QCOMPARE(w->area()->count(), 1);
        QVERIFY(ferry::readTextFile(m_file)->contains(u"python:3.11-slim"_s)); // nothing written
    }

    // The title names the document in view, with Qt's mark while it has unsaved edits; the
    // workspace with the runs in view. Ctrl+S saves the document in view.
    void titleFollowsTheDocumentInView()
    {
        auto w = openWindow();
        QCOMPARE(w->window.windowTitle(), u"proj — Ferry"_s);
        EnvironmentEditor *editor = w->window.environmentEditors()->open(m_file);
        QCOMPARE(w->window.windowTitle(), u"torch-cpu.yml[*] — Ferry"_s);
        QVERIFY(!w->window.isWindowModified());

        auto *baseImage = editor->findChild<QLineEdit *>(u"baseImage"_s);
        baseImage->setFocus();
        baseImage->selectAll();
        QTest::keyClicks(baseImage, u"python:3.12-slim"_s);
        QVERIFY(w->window.isWindowModified());
        QCOMPARE(w->area()->tabText(1), u"torch-cpu.yml*"_s);

        // The runs in view: the workspace's title, no mark.
        w->area()->setCurrentIndex(0);
        QCOMPARE(w->window.windowTitle(), u"proj — Ferry"_s);
        QVERIFY(!w->window.isWindowModified());
        w->area()->setCurrentIndex(1);
        QVERIFY(w->window.isWindowModified());

        pressKey(&w->window, Qt::CTRL | Qt::Key_S);
        QVERIFY(!editor->isModified());
        QVERIFY(!w->window.isWindowModified());
        QCOMPARE(w->area()->tabText(1), u"torch-cpu.yml"_s);
        QVERIFY(ferry::readTextFile(m_file)->contains(u"python:3.12-slim"_s));
    }

    // Ctrl+W closes the document in view, never the runs (nor the workspace, as it once did);
    // Ctrl+Tab and Ctrl+Shift+Tab (Ctrl+PgDown, Ctrl+PgUp) go round the tabs.
    void keysCloseAndMoveBetweenTabs()
    {
        auto w = openWindow();
        const QString second = m_root + u"/environments/other.yml"_s;
        QVERIFY(writeFile(second, "ferry: 1\nname: other\n"));
        w->window.openEnvironment(m_file);
        w->window.openEnvironment(second);
        QCOMPARE(w->area()->currentIndex(), 2);
        pressKey(&w->window, Qt::CTRL | Qt::Key_Tab);
        QCOMPARE(w->area()->currentIndex(), 0); // round to the runs
        pressKey(&w->window, Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab);
        QCOMPARE(w->area()->currentIndex(), 2);
        pressKey(&w->window, Qt::CTRL | Qt::Key_PageUp);
        QCOMPARE(w->area()->currentIndex(), 1);
        pressKey(&w->window, Qt::CTRL | Qt::Key_PageDown);
        QCOMPARE(w->area()->currentIndex(), 2);

        pressKey(&w->window, Qt::CTRL | Qt::Key_W);
        QCOMPARE(w->area()->count(), 2);
        QVERIFY(!w->area()->documentFor(second));
        QCOMPARE(w->area()->currentIndex(), 1);
        pressKey(&w->window, Qt::CTRL | Qt::Key_W);
        QCOMPARE(w->area()->count(), 1);
        QCOMPARE(w->area()->currentWidget(), w->area()->home());
        pressKey(&w->window, Qt::CTRL | Qt::Key_W); // the runs in view: nothing closes
        QCOMPARE(w->area()->count(), 1);
        QVERIFY(w->window.workspace());
        QVERIFY(w->window.store());
    }

    // Finding 9: after saving version 2 the workspace's label of the environment still showed
    // version 1's tag: environments/ was made after the workspace was opened (the first New
    // Environment…), and what changed in it later was not seen.
    void workspaceLabelShowsTheSavedVersion()
    {
        QVERIFY(QDir(m_root + u"/environments"_s).removeRecursively());
        auto w = openWindow();
        auto *overview = w->window.findChild<ferry::ui::WorkspaceOverview *>();
        const auto label = [overview] {
            const QList<QTreeWidgetItem *> items =
                overview->findItems(u"torch-cpu.yml"_s, Qt::MatchStartsWith | Qt::MatchRecursive);
            return items.isEmpty() ? QString() : items.first()->text(0);
        };
        QTest::qWait(100);
        QVERIFY(writeFile(m_file, kEnvironment)); // as a first new environment is saved
        QTRY_VERIFY2(label().contains(u"torch-cpu-1-"_s), qPrintable(label()));
        EnvironmentEditor *editor = w->window.environmentEditors()->open(m_file);
        auto *baseImage = editor->findChild<QLineEdit *>(u"baseImage"_s);
        baseImage->selectAll();
        QTest::keyClicks(baseImage, u"python:3.12-slim"_s);
        QVERIFY(editor->save());
        QCOMPARE(editor->document()->environment().version, u"2"_s);
        QTRY_VERIFY2(label().contains(u"torch-cpu-2-"_s), qPrintable(label()));
    }
};

FERRY_TEST_MAIN(TestDocuments)
#include "tst_documents.moc"
