#include "ui/mainwindow.h"

#include "common/setting.h"
#include "ferry/version.h"
#include "ui/emptystatewidget.h"
#include "ui/workspacetree.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QStatusBar>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
const Setting<QByteArray> kGeometry{"mainWindow/geometry"};
const Setting<QByteArray> kDockState{"mainWindow/state"};
const Setting<QString> kLastFolder{"mainWindow/lastFolder", QDir::homePath()};
} // namespace

MainWindow::MainWindow(QSettings &settings, workspace::RecentWorkspaces &recent, QWidget *parent)
    : QMainWindow(parent), m_settings(settings), m_recent(recent), m_emptyState(new EmptyStateWidget(this)),
      m_workspaceTree(new WorkspaceTree(this)), m_runsPlaceholder(new QLabel(this)), m_log(new QPlainTextEdit(this)),
      m_workspaceLabel(new QLabel(this))
{
    setObjectName(u"mainWindow"_s);
    setWindowTitle(u"Ferry"_s);
    setCentralWidget(m_emptyState);
    createMenus();
    createDocks();
    statusBar()->addPermanentWidget(m_workspaceLabel);
    m_workspaceLabel->setText(tr("No workspace"));

    connect(m_emptyState, &EmptyStateWidget::openWorkspaceRequested, this, &MainWindow::chooseWorkspaceToOpen);
    connect(m_emptyState, &EmptyStateWidget::newWorkspaceRequested, this, &MainWindow::chooseWorkspaceToCreate);

    resize(1280, 800);
    restoreGeometry(kGeometry.get(m_settings));
    restoreState(kDockState.get(m_settings));
}

void MainWindow::createMenus()
{
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newAction = file->addAction(tr("&New Workspace…"), this, &MainWindow::chooseWorkspaceToCreate);
    newAction->setShortcut(QKeySequence::New);
    QAction *openAction = file->addAction(tr("&Open Workspace…"), this, &MainWindow::chooseWorkspaceToOpen);
    openAction->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(u"recentMenu"_s);
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    quit->setShortcut(QKeySequence::Quit);
    quit->setMenuRole(QAction::QuitRole);

    QMenu *help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Ferry"), this, &MainWindow::showAbout)->setMenuRole(QAction::AboutRole);
}

void MainWindow::createDocks()
{
    auto addDock = [this](const QString &title, const QString &name, QWidget *content, Qt::DockWidgetArea area) {
        auto *dock = new QDockWidget(title, this);
        dock->setObjectName(name);
        dock->setWidget(content);
        addDockWidget(area, dock);
        return dock;
    };
    addDock(tr("Workspace"), u"workspaceDock"_s, m_workspaceTree, Qt::LeftDockWidgetArea);

    m_runsPlaceholder->setObjectName(u"runsPlaceholder"_s);
    m_runsPlaceholder->setText(tr("No runs yet. Runs you start appear here, with their status and metrics."));
    m_runsPlaceholder->setWordWrap(true);
    m_runsPlaceholder->setAlignment(Qt::AlignCenter);
    addDock(tr("Runs"), u"runsDock"_s, m_runsPlaceholder, Qt::BottomDockWidgetArea);

    m_log->setObjectName(u"logView"_s);
    m_log->setReadOnly(true);
    m_log->setPlaceholderText(tr("The output of the selected run appears here."));
    addDock(tr("Log"), u"logDock"_s, m_log, Qt::BottomDockWidgetArea);
}

void MainWindow::setWorkspace(const workspace::Workspace &workspace)
{
    m_workspace = workspace;
    m_recent.add(workspace.root());
    setWindowTitle(workspace.name() + u" — Ferry"_s);
    m_workspaceLabel->setText(workspace.root());
    m_workspaceTree->setRoot(workspace.root());
    m_emptyState->setWorkspace(workspace.name(), workspace.root());
    statusBar()->showMessage(tr("Opened workspace %1").arg(workspace.root()), 5000);
    rebuildRecentMenu();
}

bool MainWindow::openWorkspaceAt(const QString &path)
{
    const auto opened = workspace::Workspace::open(path);
    if (!opened) {
        m_recent.remove(path);
        reportError(tr("Cannot open the workspace"), opened.error());
        return false;
    }
    setWorkspace(*opened);
    return true;
}

void MainWindow::chooseWorkspaceToOpen()
{
    const QString path = QFileDialog::getExistingDirectory(this, tr("Open Workspace"), kLastFolder.get(m_settings));
    if (path.isEmpty())
        return;
    kLastFolder.set(m_settings, QFileInfo(path).absolutePath());
    openWorkspaceAt(path);
}

void MainWindow::chooseWorkspaceToCreate()
{
    // The folder dialog can make a new folder; Workspace::create adds environments/ and .ferry/.
    const QString path = QFileDialog::getExistingDirectory(this, tr("New Workspace: choose or create a folder"),
                                                           kLastFolder.get(m_settings));
    if (path.isEmpty())
        return;
    kLastFolder.set(m_settings, QFileInfo(path).absolutePath());
    const auto created = workspace::Workspace::create(path);
    if (!created) {
        reportError(tr("Cannot create the workspace"), created.error());
        return;
    }
    setWorkspace(*created);
}

void MainWindow::rebuildRecentMenu()
{
    m_recentMenu->clear();
    const QStringList paths = m_recent.paths();
    for (const QString &path : paths)
        m_recentMenu->addAction(QDir::toNativeSeparators(path), this, [this, path] { openWorkspaceAt(path); });
    if (!paths.isEmpty()) {
        m_recentMenu->addSeparator();
        m_recentMenu->addAction(tr("Clear Recent"), this, [this] {
            m_recent.clear();
            rebuildRecentMenu();
        });
    }
    m_recentMenu->setEnabled(!paths.isEmpty());
}

void MainWindow::showAbout()
{
    QMessageBox::about(this, tr("About Ferry"),
                       tr("<h3>Ferry %1</h3>"
                          "<p>A desktop ML workbench: environments edited visually, training runs on "
                          "this machine, in a container, over SSH or on Slurm, and live loss charts.</p>"
                          "<p>Qt %2. The embedded trainer loads libtorch on first use.</p>")
                           .arg(QString::fromLatin1(kVersion), QString::fromLatin1(qVersion())));
}

void MainWindow::reportError(const QString &what, const Error &error)
{
    statusBar()->showMessage(what + u": "_s + error.message, 10000);
    // Window-modal and non-blocking: the event loop (and any live run) keeps going.
    auto *box = new QMessageBox(QMessageBox::Warning, what, error.toString(), QMessageBox::Ok, this);
    box->setObjectName(u"errorBox"_s);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    kGeometry.set(m_settings, saveGeometry());
    kDockState.set(m_settings, saveState());
    m_settings.sync();
    event->accept();
}

} // namespace ferry::ui
