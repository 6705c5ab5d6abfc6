#include "ui/window/workbench.h"

#include "common/setting.h"
#include "cost/rates.h"
#include "env/formats.h"
#include "env/spechash.h"
#include "kernelhost/notebookkernel.h"
#include "store/runstore.h"
#include "ui/alerts/runalerts.h"
#include "ui/chart/losschart.h"
#include "ui/chart/losschartpanel.h"
#include "ui/cost/costsview.h"
#include "ui/data/datasetpanel.h"
#include "ui/data/droprouter.h"
#include "ui/document/documentarea.h"
#include "ui/env/environmenteditors.h"
#include "ui/notebook/notebookeditor.h"
#include "ui/problems/fileatlineview.h"
#include "ui/problems/problemspanel.h"
#include "ui/runs/runactions.h"
#include "ui/runs/runsview.h"
#include "ui/session/workspacesession.h"
#include "ui/settings/preferences.h"
#include "ui/train/trainpanel.h"
#include "ui/window/aboutdialog.h"
#include "ui/window/analysiscontroller.h"
#include "ui/window/emptystatewidget.h"
#include "ui/window/mediacontroller.h"
#include "ui/window/runscontroller.h"
#include "ui/workspace/exampleworkspace.h"
#include "ui/workspace/workspaceoverview.h"
#include "ui/workspace/workspacetree.h"
#include "workspace/filekind.h"
#include "workspace/recentworkspaces.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenu>
#include <QMessageBox>
#include <QStandardPaths>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

const Setting<QString> kLastFolder{"mainWindow/lastFolder", QDir::homePath()};

// The platform's keys for a standard action, or `fallback` where it has none (GNOME and the
// offscreen platform have no Preferences key, say).
void setStandardShortcut(QAction *action, QKeySequence::StandardKey key, const QKeySequence &fallback)
{
    action->setShortcuts(key);
    if (action->shortcut().isEmpty())
        action->setShortcut(fallback);
}

} // namespace

Workbench::Workbench(QSettings &settings, workspace::RecentWorkspaces &recent, WorkbenchServices services,
                     const WorkbenchPanels &panels, QWidget *window)
    : QObject(window), m_settings(settings), m_recent(recent), m_services(std::move(services)), m_panels(panels),
      m_window(window),
      m_preferences(new Preferences(m_settings, m_services.secrets, panels.environments, panels.train, this)),
      m_runs(new RunsController(m_settings, m_services, panels, m_workspace, window, this)),
      m_analysis(new AnalysisController(panels.runs, panels.documents, this)),
      m_media(new MediaController(panels.runs, panels.documents, this)), m_alerts(new RunAlerts(m_settings, {}, this))
{
    connect(m_preferences, &Preferences::problem, this, &Workbench::reportProblem);
    // Alerts: the rules to the session's monitor, a click on a notification to its run or sweep.
    connect(m_preferences, &Preferences::alertsChanged, m_alerts, &RunAlerts::applySettings);
    // The runs table's costs at the rates set now.
    connect(m_preferences, &Preferences::ratesChanged, this,
            [this] { m_panels.runs->model()->setRates(cost::readRates(m_settings).rates); });
    connect(m_alerts, &RunAlerts::problem, this, &Workbench::reportProblem);
    connect(m_runs, &RunsController::alertRulesRequested, this,
            [this](const QString &runId) { m_alerts->editRunRules(runId, m_window); });
    connect(m_alerts, &RunAlerts::runRequested, this, [this](const QString &runId) {
        m_runs->showRun(runId);
        Q_EMIT panelRequested(m_panels.runs);
        Q_EMIT attentionRequested();
    });
    // An idle GPU's run, when Settings > Alerts asks to stop it: as Cancel stops it.
    connect(m_alerts, &RunAlerts::stopRequested, m_runs, &RunsController::cancelRun);
    connect(m_alerts, &RunAlerts::sweepRequested, this, [this](const QString &sweepId) {
        Q_EMIT attentionRequested();
        m_runs->showSweeps(sweepId);
    });
    // A kernel's: the notebook whose kernel it is, brought forward (opened again if it was closed:
    // it attaches to its kernel); a kernel of `ferry kernel start` has no place in the window.
    connect(m_alerts, &RunAlerts::kernelRequested, this, [this](const QString &kernelId, const QString &folder) {
        Q_EMIT attentionRequested();
        const QString notebook = kernels::NotebookKernel::notebookOf(folder);
        if (!notebook.isEmpty() && QFileInfo(notebook).isFile()) {
            openNotebook(notebook);
            return;
        }
        Q_EMIT statusMessage(tr("Kernel %1 is not a notebook's: ferry kernel show %1").arg(kernelId), 10000);
    });
    connect(m_runs, &RunsController::problem, this, &Workbench::reportProblem);
    connect(m_runs, &RunsController::statusMessage, this, &Workbench::statusMessage);
    connect(m_runs, &RunsController::panelRequested, this, &Workbench::panelRequested);
    connect(m_runs, &RunsController::analysisRequested, m_analysis, &AnalysisController::open);
    m_analysis->setRunColor([chart = panels.chart->chart()](const QString &runId) { return chart->runColor(runId); });
    connect(m_runs, &RunsController::imagesRequested, m_media, &MediaController::openImages);
    connect(m_runs, &RunsController::distributionsRequested, m_media, &MediaController::openDistributions);
    m_media->setRunColor([chart = panels.chart->chart()](const QString &runId) { return chart->runColor(runId); });
    createActions();

    connect(panels.emptyState, &EmptyStateWidget::openWorkspaceRequested, this, &Workbench::chooseWorkspaceToOpen);
    connect(panels.emptyState, &EmptyStateWidget::newWorkspaceRequested, this, &Workbench::chooseWorkspaceToCreate);
    connect(panels.emptyState, &EmptyStateWidget::exampleRequested, this, [this] {
        const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
        openExample(QDir(documents.isEmpty() ? QDir::homePath() : documents).filePath(u"Ferry Example"_s));
    });
    connect(panels.overview, &WorkspaceOverview::entryActivated, this,
            [this](WorkspaceOverview::Kind kind, const QString &path) {
                switch (kind) {
                case WorkspaceOverview::Kind::Script:
                    m_runs->startScriptRun(path);
                    break;
                case WorkspaceOverview::Kind::Dataset:
                    m_panels.datasets->addDataset(path);
                    Q_EMIT panelRequested(m_panels.datasets);
                    break;
                case WorkspaceOverview::Kind::Environment:
                    openEnvironment(path);
                    break;
                case WorkspaceOverview::Kind::Notebook:
                    openNotebook(path);
                    break;
                }
            });

    // Each part reports its problems the same way: one list, and the status bar.
    connect(panels.train, &TrainPanel::problem, this, &Workbench::reportProblem);
    connect(panels.datasets, &DatasetPanel::problem, this, &Workbench::reportProblem);
    connect(panels.environments, &EnvironmentEditors::problemsChanged, panels.problems, &ProblemsPanel::setProblems);
    connect(panels.environments, &EnvironmentEditors::problem, this, &Workbench::reportProblem);
    connect(panels.environments, &EnvironmentEditors::message, this,
            [this](const QString &text) { Q_EMIT statusMessage(text, 10000); });
    connect(panels.problems, &ProblemsPanel::openRequested, this, [this](const QString &path, int line) {
        auto *view = new FileAtLineView(m_window);
        view->setAttribute(Qt::WA_DeleteOnClose);
        view->show(path, line);
    });
    connect(panels.datasets, &DatasetPanel::datasetAdded, this, [this](const QString &channel, const QString &path) {
        if (channel == u"training"_s || m_panels.train->dataset().isEmpty())
            m_panels.train->setDataset(path);
        Q_EMIT statusMessage(tr("Dataset %1 bound as channel '%2'").arg(QFileInfo(path).fileName(), channel), 5000);
    });
    connect(panels.datasets, &DatasetPanel::selected, this, [this](const QString &path) {
        if (!m_panels.train->isTraining())
            m_panels.train->setDataset(path);
    });
}

Workbench::~Workbench()
{
    closeWorkspace();
}

void Workbench::createActions()
{
    // Each action has the desktop's key where there is a convention, and a Ferry one otherwise.
    const auto make = [this](const QString &text, const QKeySequence &key = {}) {
        auto *action = new QAction(text, this);
        action->setShortcut(key);
        return action;
    };
    WorkbenchActions &a = m_actions;
    a.newWorkspace = make(tr("&New Workspace…"), QKeySequence::New);
    connect(a.newWorkspace, &QAction::triggered, this, &Workbench::chooseWorkspaceToCreate);
    a.openWorkspace = make(tr("&Open Workspace…"), QKeySequence::Open);
    connect(a.openWorkspace, &QAction::triggered, this, &Workbench::chooseWorkspaceToOpen);
    // The documents in the middle of the window: the current one, and moving between the tabs.
    DocumentArea *documents = m_panels.documents;
    a.save = make(tr("&Save"));
    setStandardShortcut(a.save, QKeySequence::Save, QKeySequence(Qt::CTRL | Qt::Key_S));
    connect(a.save, &QAction::triggered, documents, &DocumentArea::saveCurrent);
    a.closeTab = make(tr("Close &Tab"));
    setStandardShortcut(a.closeTab, QKeySequence::Close, QKeySequence(Qt::CTRL | Qt::Key_W));
    connect(a.closeTab, &QAction::triggered, documents, &DocumentArea::closeCurrent);
    const auto documentInView = [this](Document *document) {
        m_actions.save->setEnabled(document);
        m_actions.closeTab->setEnabled(document);
    };
    documentInView(nullptr);
    connect(documents, &DocumentArea::currentDocumentChanged, this, documentInView);
    a.nextTab = make(tr("&Next Tab"));
    a.nextTab->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Tab), QKeySequence(Qt::CTRL | Qt::Key_PageDown)});
    connect(a.nextTab, &QAction::triggered, documents, &DocumentArea::showNext);
    a.previousTab = make(tr("&Previous Tab"));
    a.previousTab->setShortcuts(
        {QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab), QKeySequence(Qt::CTRL | Qt::Key_PageUp)});
    connect(a.previousTab, &QAction::triggered, documents, &DocumentArea::showPrevious);
    // Ctrl+W closes a tab; VS Code's key for closing the folder.
    a.closeWorkspace = make(tr("&Close Workspace"), QKeySequence(Qt::CTRL | Qt::Key_K, QKeyCombination(Qt::Key_F)));
    a.closeWorkspace->setEnabled(false);
    connect(a.closeWorkspace, &QAction::triggered, this, &Workbench::leaveWorkspace);
    a.settings = make(tr("&Settings…"));
    setStandardShortcut(a.settings, QKeySequence::Preferences, QKeySequence(Qt::CTRL | Qt::Key_Comma));
    a.settings->setMenuRole(QAction::PreferencesRole);
    connect(a.settings, &QAction::triggered, this,
            [this] { m_preferences->showDialog(m_window, {}, m_workspace ? m_workspace->stateDir() : QString()); });
    a.quit = make(tr("&Quit"));
    setStandardShortcut(a.quit, QKeySequence::Quit, QKeySequence(Qt::CTRL | Qt::Key_Q));
    a.quit->setMenuRole(QAction::QuitRole);
    connect(a.quit, &QAction::triggered, m_window, &QWidget::close);

    a.environment = m_panels.environments->menuActions();
    const QList<QKeySequence> environmentKeys{QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_N),
                                              QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O)};
    for (qsizetype i = 0; i < a.environment.size() && i < environmentKeys.size(); ++i)
        a.environment.at(i)->setShortcut(environmentKeys.at(i));

    // The notebook in front: its kernel and cells (its own keys are JupyterLab's, in the notebook).
    a.openNotebook = make(tr("&Open Notebook…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_O));
    connect(a.openNotebook, &QAction::triggered, this, [this] {
        const QString path =
            QFileDialog::getOpenFileName(m_window, tr("Open Notebook"), m_workspace ? m_workspace->root() : QString(),
                                         tr("Notebooks (*.ipynb *.py)"));
        if (!path.isEmpty())
            openNotebook(path);
    });
    // JupyterLab binds none of these in its menus; in the notebook, I,I and 0,0 do the same.
    const auto notebookAction = [&](const QString &text, const QKeySequence &key, void (NotebookEditor::*slot)()) {
        QAction *action = make(text, key);
        connect(action, &QAction::triggered, this, [this, slot] {
            if (auto *notebook = qobject_cast<NotebookEditor *>(m_panels.documents->currentDocument()))
                (notebook->*slot)();
        });
        a.notebook << action;
    };
    notebookAction(tr("Run &All Cells"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Return), &NotebookEditor::runAll);
    notebookAction(tr("&Interrupt the Kernel"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_C),
                   &NotebookEditor::interruptKernel);
    notebookAction(tr("&Restart the Kernel"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_0),
                   &NotebookEditor::restartKernel);
    notebookAction(tr("Restart the Kernel and Run All &Cells"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_R),
                   &NotebookEditor::restartAndRunAll);
    notebookAction(tr("Run as &Job…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_J), &NotebookEditor::runAsJob);
    notebookAction(tr("Convert to a Training &Script…"), QKeySequence(Qt::CTRL | Qt::ALT | Qt::Key_E),
                   &NotebookEditor::convertToScript);
    const auto notebookInView = [this](Document *document) {
        for (QAction *action : std::as_const(m_actions.notebook))
            action->setEnabled(qobject_cast<NotebookEditor *>(document));
    };
    notebookInView(nullptr);
    connect(documents, &DocumentArea::currentDocumentChanged, this, notebookInView);

    a.startRun = make(tr("&Start a Script Run…"), QKeySequence(Qt::CTRL | Qt::Key_R));
    connect(a.startRun, &QAction::triggered, m_runs, [this] { m_runs->startScriptRun(); });
    a.newSweep = make(tr("New S&weep…"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_R));
    connect(a.newSweep, &QAction::triggered, m_runs, &RunsController::openSweepForm);
    a.sweeps = make(tr("&Sweeps"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_W));
    connect(a.sweeps, &QAction::triggered, m_runs, [this] { m_runs->showSweeps(); });
    a.train = make(tr("&Train on a Dataset"), QKeySequence(Qt::CTRL | Qt::Key_T));
    connect(a.train, &QAction::triggered, this, [this] {
        Q_EMIT panelRequested(m_panels.train);
        m_panels.train->setFocus();
    });
    a.findRun = make(tr("&Find a Run"));
    setStandardShortcut(a.findRun, QKeySequence::Find, QKeySequence(Qt::CTRL | Qt::Key_F));
    connect(a.findRun, &QAction::triggered, m_runs, &RunsController::findRun);
    // F5 only: GNOME's second Refresh key, Ctrl+R, starts a script run here.
    a.refreshRuns = make(tr("&Refresh Runs"), QKeySequence(Qt::Key_F5));
    connect(a.refreshRuns, &QAction::triggered, m_runs, &RunsController::reload);
    a.compareRuns = make(tr("&Compare Selected Runs"), QKeySequence(Qt::CTRL | Qt::Key_D));
    connect(a.compareRuns, &QAction::triggered, m_runs, &RunsController::compareSelectedRuns);
    a.analyseRuns = make(tr("&Analyse Runs"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_A));
    a.analyseRuns->setToolTip(tr("A scatter, parallel coordinates and parameter importance over the runs the table "
                                 "shows (or the ones selected in it)"));
    connect(a.analyseRuns, &QAction::triggered, m_analysis, &AnalysisController::open);
    a.runImages = make(tr("&Images"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    a.runImages->setToolTip(tr("The selected runs' images side by side, step by step"));
    connect(a.runImages, &QAction::triggered, m_media, &MediaController::openImages);
    a.runDistributions = make(tr("&Distributions"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_H));
    a.runDistributions->setToolTip(tr("A run's histograms (weights, gradients) over its steps"));
    connect(a.runDistributions, &QAction::triggered, m_media, &MediaController::openDistributions);
    a.rerunExactly = make(tr("Re-run E&xactly"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_E));
    connect(a.rerunExactly, &QAction::triggered, m_runs, &RunsController::rerunCurrentExactly);
    a.costs = make(tr("C&osts"), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_M));
    a.costs->setToolTip(tr("What the runs and kernels took and cost, per run, target, sweep, tag or month"));
    connect(a.costs, &QAction::triggered, this, &Workbench::showCosts);

    a.about = make(tr("&About Ferry"));
    a.about->setMenuRole(QAction::AboutRole);
    connect(a.about, &QAction::triggered, this, [this] {
        AboutDialog about(m_window);
        about.exec();
    });
}

void Workbench::showCosts()
{
    if (!m_workspace)
        return;
    if (!m_costs) {
        m_costs = new CostsView(m_window);
        m_costs->setWindowFlag(Qt::Window);
        m_costs->resize(960, 600);
    }
    m_costs->setWindowTitle(tr("Costs — %1").arg(m_workspace->name()));
    m_costs->setSource(store(), m_workspace->kernelsDir(), m_services.ferryBinary, cost::readRates(m_settings).rates);
    m_costs->show();
    m_costs->raise();
    m_costs->activateWindow();
}

void Workbench::closeWorkspace()
{
    if (m_costs) { // its reads end before the store closes
        m_costs->setSource(nullptr, {}, {}, {});
        m_costs->hide();
    }
    m_analysis->setStore(nullptr); // its reads end before the store closes
    m_media->setStore(nullptr, {});
    m_alerts->detach();
    m_alerts->watchKernels({}, {});
    m_runs->detach();
    m_session.reset(); // the monitor joined, the chart emptied, the store closed (workspacesession.h)
    m_panels.chart->setCaption({});
}

void Workbench::setWorkspace(const workspace::Workspace &workspace)
{
    if (m_panels.train->isTraining()) {
        reportProblem(Error{
            tr("A training is running in this window: cancel it before opening another workspace"), {}, 0, 0, {}});
        return;
    }
    // The documents open belong to the workspace left (unsaved edits: asked first).
    if (m_workspace && m_workspace->root() != workspace.root() && !m_panels.documents->closeAll())
        return;
    closeWorkspace();
    m_workspace = workspace;
    m_actions.closeWorkspace->setEnabled(true);
    m_recent.add(workspace.root());
    m_panels.workspaceTree->setRoot(workspace.root());
    m_panels.overview->setRoot(workspace.root());
    m_panels.environments->setWorkspaceRoot(workspace.root());
    m_panels.emptyState->setWorkspace(workspace.name(), workspace.root());
    rebuildRecentMenu();

    auto session =
        WorkspaceSession::open(workspace, m_panels.chart->chart(), m_services.ferryBinary, m_services.secrets);
    if (!session) {
        Q_EMIT workspaceChanged(); // named in the title, the empty state in the centre
        reportError(tr("Cannot open the workspace's runs"), session.error());
        return;
    }
    m_session = std::move(*session);
    m_runs->attach(m_session.get());
    m_analysis->setStore(m_session->store());
    m_media->setStore(m_session->store(), workspace.runsDir());
    m_alerts->attach(m_session.get()); // the rules reach the monitor before its first round
    m_alerts->watchKernels(workspace.kernelsDir(), m_services.ferryBinary);
    Q_EMIT workspaceChanged();
    m_session->start();
    Q_EMIT statusMessage(tr("Opened workspace %1").arg(workspace.root()), 5000);
}

run::RunStore *Workbench::store() const
{
    return m_session ? m_session->store() : nullptr;
}

void Workbench::leaveWorkspace()
{
    if (!m_workspace)
        return;
    if (m_panels.train->isTraining()) {
        reportProblem(
            Error{tr("A training is running in this window: cancel it before closing the workspace"), {}, 0, 0, {}});
        return;
    }
    if (!m_panels.documents->closeAll())
        return;
    closeWorkspace();
    m_workspace.reset();
    m_actions.closeWorkspace->setEnabled(false);
    m_panels.workspaceTree->setRoot({});
    m_panels.overview->setRoot({});
    m_panels.environments->setWorkspaceRoot({});
    m_panels.emptyState->setWorkspace({}, {});
    Q_EMIT workspaceChanged();
}

bool Workbench::reopenLastWorkspace()
{
    const QStringList recent = m_recent.paths();
    return !recent.isEmpty() && openWorkspaceAt(recent.first());
}

bool Workbench::openWorkspaceAt(const QString &path)
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

bool Workbench::openExample(const QString &folder)
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
    m_panels.datasets->addDataset(QDir(folder).filePath(QString::fromUtf16(kExampleDataset)));
    Q_EMIT panelRequested(m_panels.train);
    Q_EMIT statusMessage(tr("The example is open: press Train for an embedded run, or Run ▸ Start a Script "
                            "Run for train.py"),
                         15000);
    return true;
}

void Workbench::chooseWorkspaceToOpen()
{
    const QString path = QFileDialog::getExistingDirectory(m_window, tr("Open Workspace"), kLastFolder.get(m_settings));
    if (path.isEmpty())
        return;
    kLastFolder.set(m_settings, QFileInfo(path).absolutePath());
    openWorkspaceAt(path);
}

void Workbench::chooseWorkspaceToCreate()
{
    // The folder dialog can make a new folder; Workspace::create adds environments/ and .ferry/.
    const QString path = QFileDialog::getExistingDirectory(m_window, tr("New Workspace: choose or create a folder"),
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

void Workbench::setRecentMenu(QMenu *menu)
{
    m_recentMenu = menu;
    connect(menu, &QMenu::aboutToShow, this, &Workbench::rebuildRecentMenu);
    rebuildRecentMenu();
}

void Workbench::rebuildRecentMenu()
{
    if (!m_recentMenu)
        return;
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

void Workbench::openPaths(const QStringList &paths)
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
        openDrop(planDrop(dropped));
}

void Workbench::openWorkspaceFor(const QString &file)
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

void Workbench::openDrop(const DropPlan &plan)
{
    for (const QString &refused : plan.refused)
        reportProblem(Error{tr("Drop: %1").arg(refused), {}, 0, 0, {}});
    for (const DropPlan::Item &item : plan.items) {
        switch (item.kind) {
        case DropPlan::Kind::Dataset:
            m_panels.datasets->addDataset(item.path);
            Q_EMIT panelRequested(m_panels.datasets);
            break;
        case DropPlan::Kind::Environment:
            importEnvironment(item.path);
            break;
        case DropPlan::Kind::Notebook: // in a tab; its conversion to a script is an action there
            openNotebook(item.path);
            break;
        }
    }
}

void Workbench::importEnvironment(const QString &path)
{
    if (!m_workspace)
        return;
    const auto imported = env::importEnvironmentsInto({path}, QDir(m_workspace->root()).filePath(u"environments"_s));
    if (!imported) {
        reportProblem(imported.error());
        return;
    }
    for (const Diagnostic &d : imported->diagnostics) // warnings: what the import could not carry
        m_panels.problems->report(tr("Import"), d.where, d.severity);
    openEnvironment(imported->path);
    Q_EMIT statusMessage(tr("Imported %1 as %2 (image %3)")
                             .arg(QFileInfo(path).fileName(),
                                  QDir(m_workspace->root()).relativeFilePath(imported->path),
                                  env::imageReference(imported->environment)),
                         10000);
}

void Workbench::openEnvironment(const QString &path)
{
    m_panels.environments->open(path);
}

void Workbench::openNotebook(const QString &path)
{
    // Its kernels are the workspace's (or, with none open, kept beside the notebook).
    const QString kernels =
        m_workspace ? m_workspace->kernelsDir() : QFileInfo(path).absolutePath() + u"/.ferry/kernels"_s;
    std::optional<Error> failed;
    m_panels.documents->open(QFileInfo(path).absoluteFilePath(), [&]() -> Document * {
        auto *editor = new NotebookEditor(kernels, m_services.ferryBinary);
        if (const auto opened = editor->open(QFileInfo(path).absoluteFilePath()); !opened) {
            failed = opened.error();
            delete editor;
            return nullptr;
        }
        connect(editor, &NotebookEditor::message, this,
                [this](const QString &text) { Q_EMIT statusMessage(text, 10000); });
        connect(editor, &NotebookEditor::jobRequested, this, [this](const NotebookJob &job) {
            m_runs->runActions()->startNotebookJob(job.script, m_panels.datasets->channels(), job.hyperparameters,
                                                   job.environmentFile, job.target, job.notebook, job.cells);
        });
        if (m_workspace) { // the kernel's environment: one of the workspace's
            const QDir environments(m_workspace->root() + u"/environments"_s);
            QStringList files;
            for (const QString &name : environments.entryList({u"*.yml"_s, u"*.yaml"_s}, QDir::Files, QDir::Name))
                files << environments.filePath(name);
            editor->setEnvironmentChoices(files);
        }
        return editor;
    });
    if (failed) {
        reportProblem(*failed);
        return;
    }
    if (Document *document = m_panels.documents->currentDocument()) // keys go to its first cell
        document->setFocus();
}

void Workbench::reportProblem(const Error &error)
{
    m_panels.problems->report({}, error); // structured: the panel keeps its place and hint
    Q_EMIT statusMessage(error.message, 10000);
}

void Workbench::reportError(const QString &what, const Error &error)
{
    m_panels.problems->report(what, error); // structured: the panel can open the file at its line
    Q_EMIT statusMessage(what + u": "_s + error.message, 10000);
    // Before a workspace is open there is no problems panel in view: say it where the user looks.
    if (!m_workspace || !m_session) {
        auto *box = new QMessageBox(QMessageBox::Warning, what, error.toString(), QMessageBox::Ok, m_window);
        box->setObjectName(u"errorBox"_s);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
}

bool Workbench::prepareToClose()
{
    if (!m_panels.documents->mayCloseAll()) // the user keeps the window for unsaved edits
        return false;
    if (m_panels.train->isTraining()) {
        // The embedded training lives in this process: closing cancels it (scripts run on).
        m_panels.train->cancel();
    }
    return true;
}

} // namespace ferry::ui
