#include "ui/window/mainwindow.h"

#include "ui/chart/losschartpanel.h"
#include "ui/data/datasetpanel.h"
#include "ui/data/droprouter.h"
#include "ui/env/environmenteditors.h"
#include "ui/log/logview.h"
#include "ui/problems/problemspanel.h"
#include "ui/runs/rundetailsview.h"
#include "ui/runs/runsview.h"
#include "ui/train/trainpanel.h"
#include "ui/window/emptystatewidget.h"
#include "ui/window/windowplacement.h"
#include "ui/workspace/workspaceoverview.h"
#include "ui/workspace/workspacetree.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>
#include <QTimer>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

MainWindow::MainWindow(QSettings &settings, workspace::RecentWorkspaces &recent, WorkbenchServices services,
                       QWidget *parent)
    : QMainWindow(parent), m_settings(settings)
{
    setObjectName(u"mainWindow"_s);
    setWindowTitle(u"Ferry"_s);
    setAcceptDrops(true);
    // In this order: it is the order of the keyboard focus chain.
    m_centre = new QStackedWidget(this);
    m_panels.emptyState = new EmptyStateWidget(this);
    m_panels.workspaceTree = new WorkspaceTree(this);
    m_panels.overview = new WorkspaceOverview(this);
    m_panels.chart = new LossChartPanel(this);
    m_bottomTabs = new QTabWidget(this);
    m_panels.runs = new RunsView(this);
    m_panels.log = new LogView(this);
    m_panels.problems = new ProblemsPanel(this);
    m_sideTabs = new QTabWidget(this);
    m_panels.details = new RunDetailsView(this);
    m_panels.train = new TrainPanel(services.trainer, this);
    m_panels.datasets = new DatasetPanel(this);
    m_panels.environments = new EnvironmentEditors(this);
    m_workspaceLabel = new QLabel(this);
    createCentre();

    m_workbench = new Workbench(settings, recent, std::move(services), m_panels, this);
    createMenus();
    createDocks();
    statusBar()->addPermanentWidget(m_workspaceLabel);
    m_workspaceLabel->setText(tr("No workspace"));
    connect(m_workbench, &Workbench::statusMessage, statusBar(), &QStatusBar::showMessage);
    connect(m_workbench, &Workbench::panelRequested, this, &MainWindow::bringForward);
    connect(m_workbench, &Workbench::workspaceChanged, this, &MainWindow::showWorkspace);
    connect(m_panels.problems, &ProblemsPanel::countChanged, this, [this](int count) {
        m_bottomTabs->setTabText(m_bottomTabs->indexOf(m_panels.problems),
                                 count ? tr("Problems (%1)").arg(count) : tr("Problems"));
    });

    m_placement = std::make_unique<WindowPlacement>(
        *this, m_settings,
        QList<QPair<QDockWidget *, double>>{{findChild<QDockWidget *>(u"workspaceDock"_s), 0.17},
                                            {findChild<QDockWidget *>(u"experimentDock"_s), kExperimentShare}});
    m_placement->restore();
}

MainWindow::~MainWindow()
{
    delete m_workbench; // closes the workspace while the panels it hands it to are still there
}

void MainWindow::createCentre()
{
    // The centre: the chart above, runs / log / problems below.
    m_bottomTabs->setObjectName(u"bottomTabs"_s);
    m_bottomTabs->addTab(m_panels.runs, tr("Runs"));
    m_bottomTabs->addTab(m_panels.log, tr("Log"));
    m_bottomTabs->addTab(m_panels.problems, tr("Problems"));
    m_runsArea = new QSplitter(Qt::Vertical, this);
    m_runsArea->setObjectName(u"workbench"_s);
    m_runsArea->addWidget(m_panels.chart);
    m_runsArea->addWidget(m_bottomTabs);
    m_runsArea->setStretchFactor(0, 3);
    m_runsArea->setStretchFactor(1, 2);
    m_runsArea->setSizes({2000, 1000}); // the chart two thirds of the height, whatever the table's size hint
    m_centre->addWidget(m_panels.emptyState);
    m_centre->addWidget(m_runsArea);
    setCentralWidget(m_centre);
}

void MainWindow::createMenus()
{
    const WorkbenchActions &actions = m_workbench->actions();
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addActions({actions.newWorkspace, actions.openWorkspace});
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(u"recentMenu"_s);
    m_workbench->setRecentMenu(m_recentMenu);
    file->addAction(actions.closeWorkspace);
    file->addSeparator();
    file->addAction(actions.settings);
    file->addSeparator();
    file->addAction(actions.quit);

    menuBar()->addMenu(tr("&Environment"))->addActions(actions.environment);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addActions(
        {actions.startRun, actions.newSweep, actions.sweeps, actions.train, actions.findRun, actions.refreshRuns});
    run->addSeparator();
    run->addActions({actions.compareRuns, actions.rerunExactly});

    menuBar()->addMenu(tr("&Help"))->addAction(actions.about);
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
    workspaceTabs->addTab(m_panels.overview, tr("Overview"));
    workspaceTabs->addTab(m_panels.workspaceTree, tr("Files"));
    addDock(tr("Workspace"), u"workspaceDock"_s, workspaceTabs, Qt::LeftDockWidgetArea);
    m_sideTabs->setObjectName(u"sideTabs"_s);
    m_sideTabs->addTab(m_panels.train, tr("Train"));
    m_sideTabs->addTab(m_panels.datasets, tr("Datasets"));
    m_sideTabs->addTab(m_panels.details, tr("Run"));
    QDockWidget *experiment = addDock(tr("Experiment"), u"experimentDock"_s, m_sideTabs, Qt::RightDockWidgetArea);
    experiment->setMinimumWidth(300);
    // The environment editor shares the right side; opening an environment brings it forward, wide.
    // In a scroll area: tabbed docks share one width, at least the widest one's minimum, and the
    // editor's would keep the Experiment tab as wide as the editor (it scrolls when narrow).
    auto *environmentScroll = new QScrollArea(this);
    environmentScroll->setObjectName(u"environmentScroll"_s);
    environmentScroll->setWidgetResizable(true);
    environmentScroll->setFrameShape(QFrame::NoFrame);
    environmentScroll->setWidget(m_panels.environments);
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
    connect(m_panels.environments, &EnvironmentEditors::opened, this, &MainWindow::bringEnvironmentsForward);
    // While the editor is in front its own minimum keeps the side wide (the scroll area would let
    // the layout narrow it); the Experiment tab drops it when it comes forward.
    connect(m_environmentDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (!visible || m_environmentDock->isFloating())
            return;
        m_experimentNarrowsBack = true;
        m_environmentDock->widget()->setMinimumWidth(
            std::min(m_panels.environments->minimumSizeHint().width(), width() * 3 / 5));
    });
}

void MainWindow::showWorkspace()
{
    const std::optional<workspace::Workspace> &workspace = m_workbench->workspace();
    setWindowTitle(workspace ? workspace->name() + u" — Ferry"_s : u"Ferry"_s);
    m_workspaceLabel->setText(workspace ? workspace->root() : tr("No workspace"));
    // A workspace whose runs could not be opened stays on the empty state (it names the workspace).
    m_centre->setCurrentWidget(m_workbench->store() ? static_cast<QWidget *>(m_runsArea) : m_panels.emptyState);
}

void MainWindow::bringForward(QWidget *panel)
{
    for (QTabWidget *tabs : {m_sideTabs, m_bottomTabs}) {
        if (tabs->indexOf(panel) >= 0)
            tabs->setCurrentWidget(panel);
    }
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

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    m_placement->shown();
    if (m_environmentsForwardOnShow)
        QTimer::singleShot(0, this, &MainWindow::bringEnvironmentsForward);
}

void MainWindow::dragEnterEvent(QDragEnterEvent *event)
{
    if (event->mimeData()->hasUrls() && planDrop(*event->mimeData()).acceptable())
        event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent *event)
{
    m_workbench->openDrop(planDrop(*event->mimeData()));
    event->acceptProposedAction();
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_workbench->prepareToClose()) {
        event->ignore();
        return;
    }
    m_placement->save();
    m_settings.sync();
    event->accept();
}

} // namespace ferry::ui
