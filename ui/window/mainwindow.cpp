#include "ui/window/mainwindow.h"

#include "common/setting.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "ferry/version.h"
#include "run/distribution.h"
#include "secrets/secretstore.h"
#include "store/runstore.h"
#include "training/training.h"
#include "ui/chart/losschartpanel.h"
#include "ui/compare/compareview.h"
#include "ui/data/datasetpanel.h"
#include "ui/data/droprouter.h"
#include "ui/env/environmenteditors.h"
#include "ui/log/logview.h"
#include "ui/notebook/notebookimportdialog.h"
#include "ui/problems/fileatlineview.h"
#include "ui/problems/problemspanel.h"
#include "ui/runs/runactions.h"
#include "ui/runs/rundetailsview.h"
#include "ui/runs/runsview.h"
#include "ui/session/chartfeeder.h"
#include "ui/session/runmonitorworker.h"
#include "ui/session/workspacesession.h"
#include "ui/settings/preferences.h"
#include "ui/sweep/sweepview.h"
#include "ui/train/trainpanel.h"
#include "ui/window/aboutdialog.h"
#include "ui/window/emptystatewidget.h"
#include "ui/window/windowplacement.h"
#include "ui/workspace/exampleworkspace.h"
#include "ui/workspace/workspaceoverview.h"
#include "ui/workspace/workspacetree.h"
#include "workspace/filekind.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileDialog>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSplitter>
#include <QStackedWidget>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTabWidget>
#include <QTableView>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
const Setting<QString> kLastFolder{"mainWindow/lastFolder", QDir::homePath()};
constexpr int kNewestRunsCharted = 10; // shown in the chart while no run is selected
} // namespace

MainWindow::MainWindow(QSettings &settings, workspace::RecentWorkspaces &recent, WorkbenchServices services,
                       QWidget *parent)
    : QMainWindow(parent), m_settings(settings), m_recent(recent), m_services(std::move(services)),
      m_centre(new QStackedWidget(this)), m_emptyState(new EmptyStateWidget(this)),
      m_workspaceTree(new WorkspaceTree(this)), m_overview(new WorkspaceOverview(this)),
      m_chart(new LossChartPanel(this)), m_bottomTabs(new QTabWidget(this)), m_runs(new RunsView(this)),
      m_log(new LogView(this)), m_rankLogs(new QTimer(this)), m_problems(new ProblemsPanel(this)),
      m_sideTabs(new QTabWidget(this)), m_details(new RunDetailsView(this)),
      m_train(new TrainPanel(m_services.trainer, this)), m_datasets(new DatasetPanel(this)),
      m_environments(new EnvironmentEditors(this)), m_workspaceLabel(new QLabel(this))
{
    setObjectName(u"mainWindow"_s);
    setWindowTitle(u"Ferry"_s);
    setAcceptDrops(true);

    // The centre: the chart above, runs / log / problems below.
    m_bottomTabs->setObjectName(u"bottomTabs"_s);
    m_bottomTabs->addTab(m_runs, tr("Runs"));
    m_bottomTabs->addTab(m_log, tr("Log"));
    m_bottomTabs->addTab(m_problems, tr("Problems"));
    auto *workbench = new QSplitter(Qt::Vertical, this);
    workbench->setObjectName(u"workbench"_s);
    workbench->addWidget(m_chart);
    workbench->addWidget(m_bottomTabs);
    workbench->setStretchFactor(0, 3);
    workbench->setStretchFactor(1, 2);
    workbench->setSizes({2000, 1000}); // the chart two thirds of the height, whatever the table's size hint
    m_centre->addWidget(m_emptyState);
    m_centre->addWidget(workbench);
    setCentralWidget(m_centre);

    m_preferences = new Preferences(m_settings, m_services.secrets, m_environments, m_train, this);
    connect(m_preferences, &Preferences::problem, this, &MainWindow::reportProblem);
    m_actions = new RunActions(m_settings, m_services.ferryBinary, this);
    m_actions->setSecretNames([secrets = m_services.secrets] { return secrets ? secrets->names() : QStringList(); });
    connect(m_actions, &RunActions::problem, this, &MainWindow::reportProblem);
    connect(m_actions, &RunActions::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 5000); });
    connect(m_actions, &RunActions::starting, this, [this](const QString &id) { m_selectAfterLoad = id; });
    connect(m_actions, &RunActions::runsChanged, this, &MainWindow::reloadRuns);
    m_rankLogs->setInterval(3000);
    connect(m_rankLogs, &QTimer::timeout, this, &MainWindow::fetchShownRankLog);
    connect(m_log, &LogView::rankChosen, this, &MainWindow::fetchShownRankLog);
    createMenus();
    createDocks();
    statusBar()->addPermanentWidget(m_workspaceLabel);
    m_workspaceLabel->setText(tr("No workspace"));

    connect(m_emptyState, &EmptyStateWidget::openWorkspaceRequested, this, &MainWindow::chooseWorkspaceToOpen);
    connect(m_emptyState, &EmptyStateWidget::newWorkspaceRequested, this, &MainWindow::chooseWorkspaceToCreate);
    connect(m_emptyState, &EmptyStateWidget::exampleRequested, this, [this] {
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        openExample(QDir(documents.isEmpty() ? QDir::homePath() : documents).filePath(u"Ferry Example"_s));
    });

    connect(m_runs, &RunsView::selectionChanged, this, &MainWindow::selectionChanged);
    connect(m_runs, &RunsView::currentRunChanged, this, &MainWindow::currentRunChanged);
    connect(m_details, &RunDetailsView::cancelRequested, this, &MainWindow::cancelRun);
    connect(m_details, &RunDetailsView::deleteRequested, this, &MainWindow::deleteRun);
    connect(m_details, &RunDetailsView::rerunRequested, this, &MainWindow::rerun);
    connect(m_details, &RunDetailsView::rerunExactlyRequested, this, &MainWindow::rerunExactly);
    connect(m_details, &RunDetailsView::exportRequested, m_actions, &RunActions::exportRun);
    connect(m_details, &RunDetailsView::reattachRequested, this, &MainWindow::reloadRuns);
    // Each part reports its problems the same way: one list, and the status bar.
    connect(m_details, &RunDetailsView::problem, this, &MainWindow::reportProblem);
    connect(m_log, &LogView::problem, this, &MainWindow::reportProblem);
    connect(m_train, &TrainPanel::problem, this, &MainWindow::reportProblem);
    connect(m_datasets, &DatasetPanel::problem, this, &MainWindow::reportProblem);
    connect(m_environments, &EnvironmentEditors::problemsChanged, m_problems, &ProblemsPanel::setProblems);
    connect(m_environments, &EnvironmentEditors::problem, this, &MainWindow::reportProblem);
    connect(m_environments, &EnvironmentEditors::message, this,
            [this](const QString &text) { statusBar()->showMessage(text, 10000); });
    connect(m_problems, &ProblemsPanel::openRequested, this, [this](const QString &path, int line) {
        auto *view = new FileAtLineView(this);
        view->setAttribute(Qt::WA_DeleteOnClose);
        view->show(path, line);
    });
    connect(m_problems, &ProblemsPanel::countChanged, this, [this](int count) {
        m_bottomTabs->setTabText(2, count ? tr("Problems (%1)").arg(count) : tr("Problems"));
    });
    connect(m_train, &TrainPanel::runStarted, this, [this](const QString &id) {
        m_selectAfterLoad = id;
        reloadRuns();
    });
    connect(m_train, &TrainPanel::runFinished, this, &MainWindow::reloadRuns);
    connect(m_datasets, &DatasetPanel::datasetAdded, this, [this](const QString &channel, const QString &path) {
        if (channel == u"training"_s || m_train->dataset().isEmpty())
            m_train->setDataset(path);
        statusBar()->showMessage(tr("Dataset %1 bound as channel '%2'").arg(QFileInfo(path).fileName(), channel), 5000);
    });
    connect(m_datasets, &DatasetPanel::selected, m_train, [this](const QString &path) {
        if (!m_train->isTraining())
            m_train->setDataset(path);
    });

    m_placement = std::make_unique<WindowPlacement>(
        *this, m_settings,
        QList<QPair<QDockWidget *, double>>{{findChild<QDockWidget *>(u"workspaceDock"_s), 0.17},
                                            {findChild<QDockWidget *>(u"experimentDock"_s), kExperimentShare}});
    m_placement->restore();
}

MainWindow::~MainWindow()
{
    closeWorkspace();
}

QString MainWindow::runsDir() const
{
    return m_workspace ? m_workspace->runsDir() : QString();
}

void MainWindow::closeWorkspace()
{
    // A run being started writes to this store: let it finish (a container build can take a while).
    m_actions->setWorkspace(nullptr, {}, {});
    // The table and chart empty now (a workspace reopened at once would keep the old rows and
    // their selection over an empty chart).
    m_newestRuns.clear();
    m_runs->setRows({});
    m_details->setStore(nullptr, {});
    m_train->setWorkspace(nullptr, {}, {});
    if (m_sweepView)
        m_sweepView->clearWorkspace();
    if (m_compareView) { // its runs were this workspace's
        m_compareView->setStore(nullptr, {});
        m_compareView->hide();
    }
    m_rows.clear();
    m_session.reset(); // the monitor joined, the chart emptied, the store closed (workspacesession.h)
    m_chart->setCaption({});
}

void MainWindow::setWorkspace(const workspace::Workspace &workspace)
{
    if (m_train->isTraining()) {
        reportProblem(Error{
            tr("A training is running in this window: cancel it before opening another workspace"), {}, 0, 0, {}});
        return;
    }
    // The environments being edited belong to the workspace left (unsaved edits: asked first).
    if (m_workspace && m_workspace->root() != workspace.root()) {
        if (!m_environments->closeAll())
            return;
        m_environments->removeAll();
    }
    closeWorkspace();
    m_workspace = workspace;
    m_closeAction->setEnabled(true);
    m_recent.add(workspace.root());
    setWindowTitle(workspace.name() + u" — Ferry"_s);
    m_workspaceLabel->setText(workspace.root());
    m_workspaceTree->setRoot(workspace.root());
    m_overview->setRoot(workspace.root());
    m_environments->setWorkspaceRoot(workspace.root());
    m_emptyState->setWorkspace(workspace.name(), workspace.root());
    rebuildRecentMenu();

    auto session = WorkspaceSession::open(workspace, m_chart->chart(), m_services.ferryBinary, m_services.secrets);
    if (!session) {
        m_centre->setCurrentWidget(m_emptyState);
        reportError(tr("Cannot open the workspace's runs"), session.error());
        return;
    }
    m_session = std::move(*session);
    wireSession();
    m_centre->setCurrentWidget(m_centre->widget(1));
    m_details->setStore(store(), workspace.root());
    m_train->setWorkspace(store(), workspace.runsDir(), workspace.root());
    m_actions->setWorkspace(store(), workspace.root(), workspace.runsDir());
    m_session->start();
    statusBar()->showMessage(tr("Opened workspace %1").arg(workspace.root()), 5000);
}

run::RunStore *MainWindow::store() const
{
    return m_session ? m_session->store() : nullptr;
}

void MainWindow::wireSession()
{
    connect(store(), &run::RunStore::writeFailed, this, &MainWindow::reportProblem);
    // In this order: the table has the rows before the window selects a new run in it.
    RunsLoader *loader = m_session->loader();
    connect(loader, &RunsLoader::loaded, m_runs, &RunsView::setRows);
    connect(m_runs, &RunsView::queryChanged, loader, &RunsLoader::setQuery);
    connect(loader, &RunsLoader::loaded, m_details, &RunDetailsView::runsUpdated);
    connect(loader, &RunsLoader::loaded, this, &MainWindow::runsLoaded);
    connect(m_session->monitor(), &RunMonitorWorker::detailChanged, m_runs->model(), &RunsModel::setDetail);
}

void MainWindow::reloadRuns()
{
    if (m_session)
        m_session->loader()->reload();
}

void MainWindow::leaveWorkspace()
{
    if (!m_workspace)
        return;
    if (m_train->isTraining()) {
        reportProblem(
            Error{tr("A training is running in this window: cancel it before closing the workspace"), {}, 0, 0, {}});
        return;
    }
    if (!m_environments->closeAll())
        return;
    m_environments->removeAll();
    closeWorkspace();
    m_workspace.reset();
    m_closeAction->setEnabled(false);
    setWindowTitle(u"Ferry"_s);
    m_workspaceLabel->setText(tr("No workspace"));
    m_workspaceTree->setRoot({});
    m_overview->setRoot({});
    m_environments->setWorkspaceRoot({});
    m_emptyState->setWorkspace({}, {});
    m_centre->setCurrentWidget(m_emptyState);
}

bool MainWindow::reopenLastWorkspace()
{
    const QStringList recent = m_recent.paths();
    return !recent.isEmpty() && openWorkspaceAt(recent.first());
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

bool MainWindow::openExample(const QString &folder)
{
    if (const auto copied = copyExampleWorkspace(folder); !copied) {
        reportError(tr("Cannot copy the example"), copied.error());
        return false;
    }
    const auto created = workspace::Workspace::create(folder);
    if (!created) {
        reportError(tr("Cannot open the example"), created.error());
        return false;
    }
    setWorkspace(*created);
    m_datasets->addDataset(QDir(folder).filePath(QString::fromUtf16(kExampleDataset)));
    m_sideTabs->setCurrentWidget(m_train);
    statusBar()->showMessage(tr("The example is open: press Train for an embedded run, or Run ▸ Start a Script "
                                "Run for train.py"),
                             15000);
    return true;
}

void MainWindow::runsLoaded(const QList<RunRow> &rows)
{
    m_rows.clear();
    for (const RunRow &row : rows)
        m_rows.insert(row.record.id, row);
    m_newestRuns = RunsModel::newestRunsWithMetrics(rows, kNewestRunsCharted);
    if (!m_selectAfterLoad.isEmpty() && m_rows.contains(m_selectAfterLoad)) {
        m_runs->selectRuns({m_selectAfterLoad});
        m_selectAfterLoad.clear();
    }
    if (m_runs->selectedRunIds().isEmpty())
        selectionChanged({});
}

void MainWindow::selectionChanged(const QStringList &runIds)
{
    // Nothing selected: the newest runs, so a workspace opens on its latest curves.
    const QStringList shown = runIds.isEmpty() ? m_newestRuns : runIds;
    m_chart->setCaption(runIds.isEmpty() && !shown.isEmpty()
                            ? tr("The newest runs (select runs in the table to compare others)")
                            : QString());
    if (!m_session || shown == m_session->feeder()->runs())
        return; // no runs to read, or the same runs: their points are in the chart already
    QHash<QString, QString> labels;
    for (const QString &id : shown) {
        const RunRow row = m_rows.value(id);
        labels.insert(id, row.record.name.isEmpty() ? id : u"%1 (%2)"_s.arg(row.record.name, id.right(4)));
    }
    m_session->feeder()->setRuns(shown, labels);
}

void MainWindow::currentRunChanged(const QString &runId)
{
    m_currentRun = runId;
    m_rankLogs->stop();
    m_details->showRun(runId);
    const auto spec = run::RunSpec::fromJson(m_rows.value(runId).record.spec);
    m_log->setRun(runId.isEmpty() ? QString() : QDir(runsDir()).filePath(runId),
                  spec ? run::Distribution::orSingle(spec->target).worldSize() : 1);
}

void MainWindow::fetchShownRankLog()
{
    const run::RunRecord record = m_rows.value(m_currentRun).record;
    const auto spec = run::RunSpec::fromJson(record.spec);
    // Rank 0's log is the run's own (followed as any run's); a finished run's ranks were collected.
    if (m_log->shownRank() == 0 || !spec || run::isFinished(record.status)) {
        m_rankLogs->stop();
        return;
    }
    m_actions->fetchRankLogs(m_currentRun, *spec);
    m_rankLogs->start();
}

void MainWindow::cancelRun(const QString &runId)
{
    const RunRow row = m_rows.value(runId);
    const auto spec = run::RunSpec::fromJson(row.record.spec);
    if (!spec) {
        reportProblem(withContext(tr("Cancel %1").arg(runId), spec.error()));
        return;
    }
    if (spec->target.kind == run::TargetKind::Embedded && m_train->isTraining()) {
        m_train->cancel(); // this window's own training
        return;
    }
    m_actions->cancel(runId, *spec);
}

void MainWindow::deleteRun(const QString &runId)
{
    m_actions->remove(runId);
}

void MainWindow::rerun(const run::RunSpec &spec)
{
    if (spec.target.kind == run::TargetKind::Embedded) {
        // The same training, in the train panel, to change and start again.
        run::TrainingConfig config;
        for (const run::Hyperparameter &hp : spec.hyperparameters)
            (void)config.set(hp.name, hp.value);
        m_train->setConfig(config);
        if (!spec.channels.isEmpty())
            m_train->setDataset(spec.channels.first().path);
        m_sideTabs->setCurrentWidget(m_train);
        return;
    }
    m_actions->rerun(spec);
}

void MainWindow::startScriptRun()
{
    startScriptRunOf({});
}

void MainWindow::startScriptRunOf(const QString &script)
{
    m_actions->startScriptRun(script, m_datasets->channels());
}

void MainWindow::importEnvironment(const QString &path)
{
    if (!m_workspace)
        return;
    const auto imported = env::importEnvironmentsInto({path}, QDir(m_workspace->root()).filePath(u"environments"_s));
    if (!imported) {
        reportProblem(imported.error());
        return;
    }
    for (const Diagnostic &d : imported->diagnostics) // warnings: what the import could not carry
        m_problems->report(tr("Import"), d.where, d.severity);
    openEnvironment(imported->path);
    statusBar()->showMessage(tr("Imported %1 as %2 (image %3)")
                                 .arg(QFileInfo(path).fileName(),
                                      QDir(m_workspace->root()).relativeFilePath(imported->path),
                                      env::imageReference(imported->environment)),
                             10000);
}

void MainWindow::openEnvironment(const QString &path)
{
    m_environments->open(path);
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
    routeDrop(planDrop(*event->mimeData()));
    event->acceptProposedAction();
}

void MainWindow::openPaths(const QStringList &paths)
{
    QStringList files = paths;
    if (!files.isEmpty() && QFileInfo(files.front()).isDir())
        openWorkspaceAt(files.takeFirst());
    else if (!files.isEmpty())
        openWorkspaceFor(files.front());
    QStringList dropped;
    for (const QString &path : std::as_const(files)) {
        const auto kind = workspace::fileKindOf(path);
        if (kind && *kind == workspace::FileKind::Environment)
            openEnvironment(QFileInfo(path).absoluteFilePath()); // in the editor; nothing is written yet
        else if (kind && *kind == workspace::FileKind::Sweep)
            reportProblem(Error{tr("%1: a sweep file; this Ferry does not run sweeps yet").arg(path), {}, 0, 0, {}});
        else
            dropped << path; // as a drop of it: datasets, notebooks, and the reason for anything else
    }
    if (!dropped.isEmpty())
        routeDrop(planDrop(dropped));
}

void MainWindow::openWorkspaceFor(const QString &file)
{
    // An environment opens in its own workspace; other files in the workspace they lie in, in
    // the one open, or in the last one.
    const auto kind = workspace::fileKindOf(file);
    const QString root = kind && *kind == workspace::FileKind::Environment ? workspace::environmentWorkspaceRoot(file)
                                                                           : workspace::enclosingWorkspaceRoot(file);
    if (!root.isEmpty() && (!m_workspace || m_workspace->root() != root))
        openWorkspaceAt(root);
    else if (!m_workspace)
        reopenLastWorkspace();
}

void MainWindow::routeDrop(const DropPlan &plan)
{
    for (const QString &refused : plan.refused)
        reportProblem(Error{tr("Drop: %1").arg(refused), {}, 0, 0, {}});
    for (const DropPlan::Item &item : plan.items) {
        switch (item.kind) {
        case DropPlan::Kind::Dataset:
            m_datasets->addDataset(item.path);
            m_sideTabs->setCurrentWidget(m_datasets);
            break;
        case DropPlan::Kind::Environment:
            importEnvironment(item.path);
            break;
        case DropPlan::Kind::Notebook: {
            // The proposal shows before anything is written.
            auto *dialog = new NotebookImportDialog(
                item.path,
                NotebookImportDialog::defaultOutputPath(item.path, m_workspace ? m_workspace->root() : QString()),
                this);
            dialog->setAttribute(Qt::WA_DeleteOnClose);
            connect(dialog, &QDialog::accepted, this,
                    [this, dialog] { statusBar()->showMessage(tr("Wrote %1").arg(dialog->outputPath()), 10000); });
            dialog->open();
            break;
        }
        }
    }
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
    AboutDialog about(this);
    about.exec();
}

void MainWindow::reportProblem(const Error &error)
{
    m_problems->report({}, error); // structured: the panel keeps its place and hint
    statusBar()->showMessage(error.message, 10000);
}

void MainWindow::reportError(const QString &what, const Error &error)
{
    m_problems->report(what, error); // structured: the panel can open the file at its line
    statusBar()->showMessage(what + u": "_s + error.message, 10000);
    // Before a workspace is open there is no problems panel in view: say it where the user looks.
    if (!m_workspace || !m_session) {
        auto *box = new QMessageBox(QMessageBox::Warning, what, error.toString(), QMessageBox::Ok, this);
        box->setObjectName(u"errorBox"_s);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

void MainWindow::closeEvent(QCloseEvent *event)
{
    if (!m_environments->closeAll()) { // the user keeps the window for unsaved environment edits
        event->ignore();
        return;
    }
    if (m_train->isTraining()) {
        // The embedded training lives in this process: closing cancels it (scripts run on).
        m_train->cancel();
    }
    m_placement->save();
    m_settings.sync();
    event->accept();
}

} // namespace ferry::ui
