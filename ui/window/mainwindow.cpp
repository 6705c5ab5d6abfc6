#include "ui/window/mainwindow.h"

#include "ui/chart/losschartpanel.h"
#include "ui/data/datasetpanel.h"
#include "ui/data/droprouter.h"
#include "ui/document/document.h"
#include "ui/document/documentarea.h"
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
#include <QSettings>
#include <QSplitter>
#include <QStackedWidget>
#include <QStatusBar>
#include <QTabWidget>

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
    m_panels.documents = new DocumentArea(this);
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
    m_panels.environments = new EnvironmentEditors(m_panels.documents, this);
    m_workspaceLabel = new QLabel(this);
    m_workspaceLabel->setObjectName(u"workspaceLabel"_s);
    createCentre();

    m_workbench = new Workbench(settings, recent, std::move(services), m_panels, this);
    createMenus();
    createDocks();
    statusBar()->addPermanentWidget(m_workspaceLabel);
    m_workspaceLabel->setText(tr("No workspace"));
    connect(m_workbench, &Workbench::statusMessage, statusBar(), &QStatusBar::showMessage);
    // A message takes the whole bar while it shows: a long one would be drawn over the path
    // (review 2026-12-06, finding 14).
    connect(statusBar(), &QStatusBar::messageChanged, m_workspaceLabel,
            [this](const QString &message) { m_workspaceLabel->setVisible(message.isEmpty()); });
    connect(m_workbench, &Workbench::panelRequested, this, &MainWindow::bringForward);
    connect(m_workbench, &Workbench::attentionRequested, this, &MainWindow::comeForward);
    connect(m_workbench, &Workbench::workspaceChanged, this, &MainWindow::showWorkspace);
    connect(m_panels.documents, &DocumentArea::currentDocumentChanged, this, &MainWindow::showTitle);
    connect(m_panels.documents, &DocumentArea::documentChanged, this, &MainWindow::showTitle);
    connect(m_panels.problems, &ProblemsPanel::countChanged, this, [this](int count) {
        m_bottomTabs->setTabText(m_bottomTabs->indexOf(m_panels.problems),
                                 count ? tr("Problems (%1)").arg(count) : tr("Problems"));
    });

    m_placement = std::make_unique<WindowPlacement>(
        *this, m_settings,
        QList<QPair<QDockWidget *, double>>{{findChild<QDockWidget *>(u"workspaceDock"_s), 0.14},
                                            {findChild<QDockWidget *>(u"experimentDock"_s), 0.2}});
    m_placement->restore();
}

MainWindow::~MainWindow()
{
    delete m_workbench; // closes the workspace while the panels it hands it to are still there
}

void MainWindow::createCentre()
{
    // The centre: tabs, the first the chart above runs / log / problems below (or the empty
    // state), then the documents open (environments, notebooks).
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
    m_panels.documents->setHome(m_centre, tr("Runs"));
    setCentralWidget(m_panels.documents);
}

void MainWindow::createMenus()
{
    const WorkbenchActions &actions = m_workbench->actions();
    QMenu *file = menuBar()->addMenu(tr("&File"));
    file->addActions({actions.newWorkspace, actions.openWorkspace});
    m_recentMenu = file->addMenu(tr("Open &Recent"));
    m_recentMenu->setObjectName(u"recentMenu"_s);
    m_workbench->setRecentMenu(m_recentMenu);
    file->addSeparator();
    file->addActions({actions.save, actions.closeTab, actions.closeWorkspace});
    file->addSeparator();
    file->addAction(actions.settings);
    file->addSeparator();
    file->addAction(actions.quit);

    menuBar()->addMenu(tr("&Environment"))->addActions(actions.environment);

    QMenu *notebook = menuBar()->addMenu(tr("&Notebook"));
    notebook->setObjectName(u"notebookMenu"_s);
    notebook->addAction(actions.openNotebook);
    notebook->addSeparator();
    notebook->addActions(actions.notebook);

    QMenu *run = menuBar()->addMenu(tr("&Run"));
    run->addActions(
        {actions.startRun, actions.newSweep, actions.sweeps, actions.train, actions.findRun, actions.refreshRuns});
    run->addSeparator();
    run->addActions(
        {actions.compareRuns, actions.analyseRuns, actions.runImages, actions.runDistributions, actions.rerunExactly});
    run->addSeparator();
    run->addAction(actions.costs);

    menuBar()->addMenu(tr("&Help"))->addAction(actions.about);
    addActions({actions.nextTab, actions.previousTab}); // in no menu, as in a browser
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
    // The docks' contents have fixed least widths: a long line in one of them (a path, an image
    // tag) must not widen the dock and leave the chart a third of the window (issue 37).
    workspaceTabs->setMinimumWidth(170);
    m_sideTabs->setMinimumWidth(300);
    addDock(tr("Workspace"), u"workspaceDock"_s, workspaceTabs, Qt::LeftDockWidgetArea);
    m_sideTabs->setObjectName(u"sideTabs"_s);
    m_sideTabs->addTab(m_panels.train, tr("Train"));
    m_sideTabs->addTab(m_panels.datasets, tr("Datasets"));
    m_sideTabs->addTab(m_panels.details, tr("Run"));
    addDock(tr("Experiment"), u"experimentDock"_s, m_sideTabs, Qt::RightDockWidgetArea)->setMinimumWidth(300);
}

void MainWindow::showWorkspace()
{
    const std::optional<workspace::Workspace> &workspace = m_workbench->workspace();
    showTitle();
    m_workspaceLabel->setText(workspace ? workspace->root() : tr("No workspace"));
    // A workspace whose runs could not be opened stays on the empty state (it names the workspace).
    m_centre->setCurrentWidget(m_workbench->store() ? static_cast<QWidget *>(m_runsArea) : m_panels.emptyState);
}

void MainWindow::showTitle()
{
    // The document in view, with Qt's mark while it has unsaved edits; else the workspace.
    if (const Document *document = m_panels.documents->currentDocument()) {
        setWindowTitle(document->title() + u"[*] — Ferry"_s);
        setWindowModified(document->isModified());
        return;
    }
    const std::optional<workspace::Workspace> &workspace = m_workbench->workspace();
    setWindowTitle(workspace ? workspace->name() + u" — Ferry"_s : u"Ferry"_s);
    setWindowModified(false);
}

void MainWindow::bringForward(QWidget *panel)
{
    if (m_bottomTabs->indexOf(panel) >= 0)
        m_panels.documents->setCurrentWidget(m_centre); // the runs' tab, over any document
    for (QTabWidget *tabs : {m_sideTabs, m_bottomTabs}) {
        if (tabs->indexOf(panel) >= 0)
            tabs->setCurrentWidget(panel);
    }
}

void MainWindow::comeForward()
{
    setWindowState(windowState() & ~Qt::WindowMinimized); // maximised stays so
    show();
    raise();
    activateWindow();
}

void MainWindow::showEvent(QShowEvent *event)
{
    QMainWindow::showEvent(event);
    m_placement->shown();
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
