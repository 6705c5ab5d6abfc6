// The window's menus and docks (MainWindow's constructor builds them; mainwindow.cpp is what
// they do).
#include "ui/window/mainwindow.h"

#include "ui/data/datasetpanel.h"
#include "ui/env/environmenteditors.h"
#include "ui/runs/rundetailsview.h"
#include "ui/runs/runsview.h"
#include "ui/settings/preferences.h"
#include "ui/train/trainpanel.h"
#include "ui/workspace/workspaceoverview.h"
#include "ui/workspace/workspacetree.h"

#include <QAction>
#include <QDockWidget>
#include <QKeySequence>
#include <QLineEdit>
#include <QMenuBar>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// The platform's keys for a standard action, or `fallback` where it has none (GNOME and the
// offscreen platform have no Preferences key, say).
void setStandardShortcut(QAction *action, QKeySequence::StandardKey key, const QKeySequence &fallback)
{
    action->setShortcuts(key);
    if (action->shortcut().isEmpty())
        action->setShortcut(fallback);
}

} // namespace

void MainWindow::createMenus()
{
    // Each action has the desktop's key where there is a convention, and a Ferry one otherwise.
    QMenu *file = menuBar()->addMenu(tr("&File"));
    QAction *newAction = file->addAction(tr("&New Workspace…"), this, &MainWindow::chooseWorkspaceToCreate);
    newAction->setShortcut(QKeySequence::New);
    QAction *openAction = file->addAction(tr("&Open Workspace…"), this, &MainWindow::chooseWorkspaceToOpen);
    openAction->setShortcut(QKeySequence::Open);
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(u"recentMenu"_s);
    connect(m_recentMenu, &QMenu::aboutToShow, this, &MainWindow::rebuildRecentMenu);
    rebuildRecentMenu();
    m_closeAction = file->addAction(tr("&Close Workspace"), this, &MainWindow::leaveWorkspace);
    setStandardShortcut(m_closeAction, QKeySequence::Close, QKeySequence(Qt::CTRL | Qt::Key_W));
    m_closeAction->setEnabled(false);
    file->addSeparator();
    QAction *settingsAction = file->addAction(tr("&Settings…"), this, [this] { m_preferences->showDialog(this); });
    setStandardShortcut(settingsAction, QKeySequence::Preferences, QKeySequence(Qt::CTRL | Qt::Key_Comma));
    settingsAction->setMenuRole(QAction::PreferencesRole);
    file->addSeparator();
    QAction *quit = file->addAction(tr("&Quit"), this, &QWidget::close);
    setStandardShortcut(quit, QKeySequence::Quit, QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->setMenuRole(QAction::QuitRole);

    QMenu *environmentMenu = menuBar()->addMenu(tr("&Environment"));
    environmentMenu->addActions(m_environments->menuActions());
    const QList<QKeySequence> environmentKeys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)};
    for (qsizetype i = 0; i < environmentMenu->actions().size() && i < environmentKeys.size(); ++i)
        environmentMenu->actions().at(i)->setShortcut(environmentKeys.at(i));

    QMenu *runMenu = menuBar()->addMenu(tr("&Run"));
    QAction *start = runMenu->addAction(tr("&Start a Script Run…"), this, &MainWindow::startScriptRun);
    start->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_R));
    runMenu->addAction(tr("New S&weep…"), this, &MainWindow::openSweepForm)
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    runMenu->addAction(tr("&Sweeps"), this, [this] { showSweeps(); })
        ->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    QAction *train = runMenu->addAction(tr("&Train on a Dataset"), this, [this] {
        m_sideTabs->setCurrentWidget(m_train);
        m_train->setFocus();
    });
    train->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
    QAction *find = runMenu->addAction(tr("&Find a Run"), this, [this] {
        m_bottomTabs->setCurrentWidget(m_runs);
        m_runs->filterEdit()->setFocus(Qt::ShortcutFocusReason);
        m_runs->filterEdit()->selectAll();
    });
    setStandardShortcut(find, QKeySequence::Find, QKeySequence(Qt::CTRL | Qt::Key_F));
    // F5 only: GNOME's second Refresh key, Ctrl+R, starts a script run here.
    runMenu->addAction(tr("&Refresh Runs"), this, &MainWindow::reloadRuns)->setShortcut(QKeySequence(Qt::Key_F5));
    addCompareActions(runMenu);

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
    auto *workspaceTabs = new QTabWidget(this);
    workspaceTabs->setObjectName(u"workspaceTabs"_s);
    workspaceTabs->addTab(m_overview, tr("Overview"));
    workspaceTabs->addTab(m_workspaceTree, tr("Files"));
    addDock(tr("Workspace"), u"workspaceDock"_s, workspaceTabs, Qt::LeftDockWidgetArea);
    connect(m_overview, &WorkspaceOverview::activated, this, [this](WorkspaceOverview::Kind kind, const QString &path) {
        switch (kind) {
        case WorkspaceOverview::Kind::Script:
            startScriptRunOf(path);
            break;
        case WorkspaceOverview::Kind::Dataset:
            m_datasets->addDataset(path);
            m_sideTabs->setCurrentWidget(m_datasets);
            break;
        case WorkspaceOverview::Kind::Environment:
            openEnvironment(path);
            break;
        }
    });
    m_sideTabs->setObjectName(u"sideTabs"_s);
    m_sideTabs->addTab(m_train, tr("Train"));
    m_sideTabs->addTab(m_datasets, tr("Datasets"));
    m_sideTabs->addTab(m_details, tr("Run"));
    QDockWidget *experiment = addDock(tr("Experiment"), u"experimentDock"_s, m_sideTabs, Qt::RightDockWidgetArea);
    experiment->setMinimumWidth(300);
    // The environment editor shares the right side; opening an environment brings it forward, wide.
    // In a scroll area: tabbed docks share one width, at least the widest one's minimum, and the
    // editor's would keep the Experiment tab as wide as the editor (it scrolls when narrow).
    auto *environmentScroll = new QScrollArea(this);
    environmentScroll->setObjectName(u"environmentScroll"_s);
    environmentScroll->setWidgetResizable(true);
    environmentScroll->setFrameShape(QFrame::NoFrame);
    environmentScroll->setWidget(m_environments);
    m_environmentDock = addDock(tr("Environment"), u"environmentDock"_s, environmentScroll, Qt::RightDockWidgetArea);
    tabifyDockWidget(experiment, m_environmentDock);
    m_environmentDock->hide(); // until an environment is opened
    experiment->raise();
    connect(experiment, &QDockWidget::visibilityChanged, this, [this, experiment](bool visible) {
        if (!visible || !m_experimentNarrowsBack || experiment->isFloating())
            return;
        m_experimentNarrowsBack = false;
        m_environmentDock->widget()->setMinimumWidth(0); // the side may narrow again
        // After the tab switch is laid out: resizing during it is undone by the layout.
        QTimer::singleShot(0, this, [this, experiment] {
            const int share = static_cast<int>(width() * kExperimentShare);
            if (experiment->isVisible() && experiment->width() > share)
                resizeDocks({experiment}, {share}, Qt::Horizontal);
        });
    });
    connect(m_environments, &EnvironmentEditors::opened, this, &MainWindow::bringEnvironmentsForward);
    // While the editor is in front its own minimum keeps the side wide (the scroll area would let
    // the layout narrow it); the Experiment tab drops it when it comes forward.
    connect(m_environmentDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (!visible || m_environmentDock->isFloating())
            return;
        m_experimentNarrowsBack = true;
        m_environmentDock->widget()->setMinimumWidth(
            std::min(m_environments->minimumSizeHint().width(), width() * 3 / 5));
    });
}

void MainWindow::bringEnvironmentsForward()
{
    m_environmentDock->show();
    // Opened before the window is shown (`ferry environments/x.yml`): a tabified dock is raised,
    // and sized, only once the window is laid out (showEvent asks again).
    m_environmentsForwardOnShow = !isVisible();
    // A dock becomes the current tab when raise() makes it its parent's last child; a dock that
    // is the last child already is left where it is, so it is lowered first.
    m_environmentDock->lower();
    m_environmentDock->raise();
    if (m_environmentDock->width() >= width() / 2 || m_environmentDock->isFloating())
        return;
    // Wide, but never by squeezing the workspace dock or the chart below what they need.
    const auto *workspaceDock = findChild<QDockWidget *>(u"workspaceDock"_s);
    const int room = width() - centralWidget()->minimumSizeHint().width() -
                     (workspaceDock->isVisible() ? workspaceDock->width() : 0) - 24;
    resizeDocks({m_environmentDock}, {std::min(width() * 3 / 5, room)}, Qt::Horizontal);
}

} // namespace ferry::ui
