#include "ui/window/runscontroller.h"

#include "cost/rates.h"
#include "run/distribution.h"
#include "secrets/secretstore.h"
#include "store/runstore.h"
#include "tracking/runlabels.h"
#include "training/training.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/runcolors.h"
#include "ui/compare/compareview.h"
#include "ui/data/datasetpanel.h"
#include "ui/log/logview.h"
#include "ui/runs/runactions.h"
#include "ui/runs/rundetailsview.h"
#include "ui/runs/runsview.h"
#include "ui/session/chartfeeder.h"
#include "ui/session/runmonitorworker.h"
#include "ui/session/workspacesession.h"
#include "ui/sweep/sweepdialog.h"
#include "ui/sweep/sweeptrialsmodel.h"
#include "ui/sweep/sweepview.h"
#include "ui/train/trainpanel.h"

#include <QAction>
#include <QDir>
#include <QLineEdit>
#include <QMenu>
#include <QMessageBox>
#include <QTableView>
#include <QTimer>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
constexpr int kNewestRunsCharted = 10; // shown in the chart while no run is selected
} // namespace

QString runLegendLabel(const RunRow &row, const QString &runId)
{
    const QString name = row.record.id.isEmpty() ? runId : row.shownName();
    return name == runId ? runId : u"%1 (%2)"_s.arg(name, run::shortRunId(runId));
}

RunsController::RunsController(QSettings &settings, const WorkbenchServices &services, const WorkbenchPanels &panels,
                               const std::optional<workspace::Workspace> &workspace, QWidget *window, QObject *parent)
    : QObject(parent), m_settings(settings), m_panels(panels), m_workspace(workspace),
      m_ferryBinary(services.ferryBinary), m_window(window),
      m_actions(new RunActions(settings, services.ferryBinary, window)), m_rankLogs(new QTimer(this)),
      m_colors(new RunColors(this)), m_followTable(new QTimer(this))
{
    // One colour per run wherever it is drawn: the chart, the table's swatches, compare, sweeps.
    panels.chart->setRunColors(m_colors);
    panels.runs->model()->setRunColors(m_colors);
    panels.runs->model()->setRates(cost::readRates(settings).rates); // Workbench sets them again when they change
    // With nothing selected the chart shows the newest runs the table shows: it follows the
    // filter (words at once, a query once the rows are read again).
    m_followTable->setSingleShot(true);
    m_followTable->setInterval(0);
    connect(m_followTable, &QTimer::timeout, this, &RunsController::followTable);
    for (const auto signal : {&QAbstractItemModel::rowsInserted, &QAbstractItemModel::rowsRemoved})
        connect(panels.runs->proxy(), signal, m_followTable, qOverload<>(&QTimer::start));
    connect(panels.runs->proxy(), &QAbstractItemModel::modelReset, m_followTable, qOverload<>(&QTimer::start));
    connect(panels.runs->proxy(), &QAbstractItemModel::layoutChanged, m_followTable, qOverload<>(&QTimer::start));
    m_actions->setSecretNames([secrets = services.secrets] { return secrets ? secrets->names() : QStringList(); });
    connect(m_actions, &RunActions::problem, this, &RunsController::problem);
    connect(m_actions, &RunActions::message, this, [this](const QString &text) { Q_EMIT statusMessage(text, 5000); });
    connect(m_actions, &RunActions::starting, this, [this](const QString &id) { m_selectAfterLoad = id; });
    connect(m_actions, &RunActions::runsChanged, this, &RunsController::reload);
    panels.runs->setSettings(&settings); // the columns chosen
    m_rankLogs->setInterval(3000);
    connect(m_rankLogs, &QTimer::timeout, this, &RunsController::fetchShownRankLog);
    connect(panels.log, &LogView::rankChosen, this, &RunsController::fetchShownRankLog);

    connect(panels.runs, &RunsView::selectionChanged, this, &RunsController::selectionChanged);
    connect(panels.runs, &RunsView::currentRunChanged, this, &RunsController::currentRunChanged);
    // The runs table's own menu: compare, re-run exactly and a re-run with changes.
    panels.runs->table()->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(panels.runs->table(), &QWidget::customContextMenuRequested, this, &RunsController::showTableMenu);
    panels.details->setRunsModel(panels.runs->model()); // its progress, ETA and cost so far
    connect(panels.details, &RunDetailsView::cancelRequested, this, &RunsController::cancelRun);
    connect(panels.details, &RunDetailsView::deleteRequested, m_actions, &RunActions::remove);
    connect(panels.details, &RunDetailsView::rerunRequested, this, &RunsController::rerun);
    connect(panels.details, &RunDetailsView::rerunExactlyRequested, this, &RunsController::rerunExactly);
    connect(panels.details, &RunDetailsView::exportRequested, m_actions, &RunActions::exportRun);
    connect(panels.details, &RunDetailsView::reattachRequested, this, &RunsController::reload);
    connect(panels.details, &RunDetailsView::problem, this, &RunsController::problem);
    connect(panels.log, &LogView::problem, this, &RunsController::problem);
    connect(panels.train, &TrainPanel::runStarted, this, [this](const QString &id) {
        m_selectAfterLoad = id;
        m_quietRun = id;
        reload();
    });
    connect(panels.train, &TrainPanel::runFinished, this, &RunsController::reload);
}

QString RunsController::runsDir() const
{
    return m_workspace ? m_workspace->runsDir() : QString();
}

run::RunStore *RunsController::store() const
{
    return m_session ? m_session->store() : nullptr;
}

void RunsController::attach(WorkspaceSession *session)
{
    m_session = session;
    connect(store(), &run::RunStore::writeFailed, this, &RunsController::problem);
    // In this order: the table has the rows before a new run is selected in it.
    RunsLoader *loader = session->loader();
    connect(loader, &RunsLoader::loaded, m_panels.runs, &RunsView::setRows);
    connect(m_panels.runs, &RunsView::queryChanged, loader, &RunsLoader::setQuery);
    connect(loader, &RunsLoader::loaded, m_panels.details, &RunDetailsView::runsUpdated);
    connect(loader, &RunsLoader::loaded, this, &RunsController::runsLoaded);
    connect(session->monitor(), &RunMonitorWorker::detailChanged, m_panels.runs->model(), &RunsModel::setDetail);
    connect(session->monitor(), &RunMonitorWorker::progressChanged, m_panels.runs->model(), &RunsModel::setProgress);
    m_panels.runs->model()->setRates(cost::readRates(m_settings).rates); // as set when the workspace opens
    m_panels.details->setStore(store(), m_workspace->root());
    m_panels.train->setWorkspace(store(), m_workspace->runsDir(), m_workspace->root());
    m_actions->setWorkspace(store(), m_workspace->root(), m_workspace->runsDir());
    // The runs' colours from the last session: each run keeps its own.
    if (const auto read = m_colors->setFile(QDir(m_workspace->stateDir()).filePath(u"run-colors.json"_s)); !read)
        Q_EMIT problem(read.error());
    // The chart's groups, x axis, scales and hidden panels from the last session.
    if (const auto read = m_panels.chart->setSettingsFile(QDir(m_workspace->stateDir()).filePath(u"chart.json"_s));
        !read)
        Q_EMIT problem(read.error());
}

void RunsController::detach()
{
    // A run being started writes to this store: let it finish (a container build can take a while).
    m_actions->setWorkspace(nullptr, {}, {});
    // The table and chart empty now (a workspace reopened at once would keep the old rows and
    // their selection over an empty chart).
    m_newestRuns.clear();
    m_panels.runs->setRows({});
    m_panels.details->setStore(nullptr, {});
    m_panels.train->setWorkspace(nullptr, {}, {});
    if (m_sweepView)
        m_sweepView->clearWorkspace();
    if (m_compareView) { // its runs were this workspace's
        m_compareView->setStore(nullptr, {});
        m_compareView->hide();
    }
    m_rows.clear();
    (void)m_panels.chart->setSettingsFile({}); // the next workspace's, or the defaults
    m_session = nullptr;
    (void)m_colors->setFile({});
}

void RunsController::reload()
{
    if (m_session)
        m_session->loader()->reload();
}

void RunsController::runsLoaded(const QList<RunRow> &rows)
{
    m_rows.clear();
    QStringList ids;
    for (const RunRow &row : rows) {
        m_rows.insert(row.record.id, row);
        ids << row.record.id;
    }
    m_colors->retain(ids);
    m_colors->know(ids); // a new run has its colour from its first row on

    if (!m_selectAfterLoad.isEmpty() && m_rows.contains(m_selectAfterLoad)) {
        m_panels.runs->selectRuns({m_selectAfterLoad});
        m_selectAfterLoad.clear();
    }
    followTable();
}

// The runs the table shows (the filter applied), newest first: the chart's while none is selected.
void RunsController::followTable()
{
    QList<RunRow> shown;
    const QAbstractItemModel *proxy = m_panels.runs->proxy();
    for (int row = 0; row < proxy->rowCount(); ++row) {
        const auto it = m_rows.constFind(proxy->index(row, 0).data(RunsModel::RunIdRole).toString());
        if (it != m_rows.cend())
            shown << *it;
    }
    m_newestRuns = RunsModel::newestRunsWithMetrics(shown, kNewestRunsCharted);
    m_tableRunsWithMetrics = int(RunsModel::newestRunsWithMetrics(shown, int(shown.size())).size());
    if (m_panels.runs->selectedRunIds().isEmpty())
        selectionChanged({});
}

QString RunsController::chartCaption(const QStringList &selected) const
{
    if (selected.size() == 1)
        return tr("Showing the selected run");
    if (!selected.isEmpty())
        return tr("Showing the %1 selected runs").arg(selected.size());
    const bool filtered = !m_panels.runs->filterEdit()->text().trimmed().isEmpty();
    const int all = m_tableRunsWithMetrics, shown = int(m_newestRuns.size());
    if (all == 0)
        return filtered ? tr("No run the filter keeps has metrics yet") : QString();
    if (shown < all)
        return (filtered ? tr("Showing the %1 newest of the %2 runs the filter keeps (%3 left out): select runs in "
                              "the table to chart others")
                         : tr("Showing the %1 newest of the %2 runs (%3 left out): select runs in the table to chart "
                              "others"))
            .arg(shown)
            .arg(all)
            .arg(all - shown);
    if (shown == 1)
        return filtered ? tr("Showing the one run the filter keeps") : tr("Showing the one run with metrics");
    return (filtered ? tr("Showing the %1 runs the filter keeps: select runs in the table to chart only those")
                     : tr("Showing the %1 newest runs: select runs in the table to chart only those"))
        .arg(shown);
}

void RunsController::selectionChanged(const QStringList &runIds)
{
    // Nothing selected: the newest runs the table shows, so a workspace opens on its latest curves
    // and a filter narrows the chart as it narrows the table.
    const QStringList shown = runIds.isEmpty() ? m_newestRuns : runIds;
    m_panels.chart->setCaption(chartCaption(runIds));
    // What the chart groups by: the runs' parameters, tags and sweeps, as the table has them.
    QList<run::RunRecord> records;
    QHash<QString, QHash<QString, QString>> params;
    for (const QString &id : shown) {
        const RunRow row = m_rows.value(id);
        records << (row.record.id.isEmpty() ? run::RunRecord{} : row.record);
        records.back().id = id;
        QHash<QString, QString> &mine = params[id];
        for (const run::Hyperparameter &p : row.params)
            mine.insert(p.name, p.value);
    }
    m_panels.chart->setRunFacts(records, params);
    if (!m_session || shown == m_session->feeder()->runs())
        return; // no runs to read, or the same runs: their points are in the chart already
    // The legend names each run as the table does ("train lr=0.03"), and by the end of its id,
    // which the table's Id column shows and `ferry runs show` takes.
    QHash<QString, QString> labels;
    for (const QString &id : shown)
        labels.insert(id, runLegendLabel(m_rows.value(id), id));
    m_session->feeder()->setRuns(shown, labels);
}

void RunsController::currentRunChanged(const QString &runId)
{
    // A run chosen in the table brings its details forward (review 2026-12-06, finding 8); one
    // the train panel just started leaves that panel in view.
    if (!runId.isEmpty() && runId != m_currentRun && runId != m_quietRun)
        Q_EMIT panelRequested(m_panels.details);
    if (runId == m_quietRun)
        m_quietRun.clear();
    m_currentRun = runId;
    m_rankLogs->stop();
    m_panels.details->showRun(runId);
    const auto spec = run::RunSpec::fromJson(m_rows.value(runId).record.spec);
    m_panels.log->setRun(runId.isEmpty() ? QString() : QDir(runsDir()).filePath(runId),
                         spec ? run::Distribution::orSingle(spec->target).worldSize() : 1);
}

void RunsController::fetchShownRankLog()
{
    const run::RunRecord record = m_rows.value(m_currentRun).record;
    const auto spec = run::RunSpec::fromJson(record.spec);
    // Rank 0's log is the run's own (followed as any run's); a finished run's ranks were collected.
    if (m_panels.log->shownRank() == 0 || !spec || run::isFinished(record.status)) {
        m_rankLogs->stop();
        return;
    }
    m_actions->fetchRankLogs(m_currentRun, *spec);
    m_rankLogs->start();
}

void RunsController::startScriptRun(const QString &script)
{
    m_actions->startScriptRun(script, m_panels.datasets->channels());
}

void RunsController::findRun()
{
    Q_EMIT panelRequested(m_panels.runs);
    m_panels.runs->filterEdit()->setFocus(Qt::ShortcutFocusReason);
    m_panels.runs->filterEdit()->selectAll();
}

void RunsController::cancelRun(const QString &runId)
{
    const RunRow row = m_rows.value(runId);
    const auto spec = run::RunSpec::fromJson(row.record.spec);
    if (!spec) {
        Q_EMIT problem(withContext(tr("Cancel %1").arg(runId), spec.error()));
        return;
    }
    if (spec->target.kind == run::TargetKind::Embedded && m_panels.train->isTraining()) {
        m_panels.train->cancel(); // this window's own training
        return;
    }
    m_actions->cancel(runId, *spec);
}

void RunsController::rerun(const run::RunSpec &spec)
{
    if (spec.target.kind == run::TargetKind::Embedded) {
        // The same training, in the train panel, to change and start again.
        run::TrainingConfig config;
        for (const run::Hyperparameter &hp : spec.hyperparameters)
            (void)config.set(hp.name, hp.value);
        m_panels.train->setConfig(config);
        if (!spec.channels.isEmpty())
            m_panels.train->setDataset(spec.channels.first().path);
        Q_EMIT panelRequested(m_panels.train);
        return;
    }
    m_actions->rerun(spec);
}

void RunsController::rerunExactly(const QString &runId)
{
    const auto row = m_rows.constFind(runId);
    if (runId.isEmpty() || row == m_rows.constEnd()) {
        reportText(tr("Select the run to re-run in the runs table"));
        return;
    }
    // The embedded trainer has no code to keep: its settings and data are the run.
    if (const auto spec = run::RunSpec::fromJson(row->record.spec);
        spec && spec->target.kind == run::TargetKind::Embedded) {
        if (m_panels.train->isTraining()) {
            reportText(tr("A training is under way: re-run %1 once it ends").arg(runId));
            return;
        }
        Q_EMIT panelRequested(m_panels.train);
        m_panels.train->trainAgain(*spec, runId);
        return;
    }
    m_actions->rerunExactly(row->record);
}

void RunsController::compareRuns(const QStringList &runIds)
{
    if (!store() || runIds.size() < 2) {
        reportText(tr("Select two or more runs in the runs table to compare them (the first one selected is the "
                      "baseline)"));
        return;
    }
    if (!m_compareView) {
        m_compareView = new CompareView(m_window);
        m_compareView->setObjectName(u"compareView"_s);
        m_compareView->setWindowFlag(Qt::Window);
        m_compareView->resize(1280, 820);
        connect(m_compareView, &CompareView::problem, this, &RunsController::problem);
        m_compareView->curves()->setRunColors(m_colors);
    }
    m_compareView->setWindowTitle(tr("Compare %n run(s) — %1", nullptr, int(runIds.size())).arg(m_workspace->name()));
    m_compareView->setStore(store(), runsDir());
    m_compareView->compare(runIds);
    m_compareView->show();
    m_compareView->raise();
    m_compareView->activateWindow();
}

void RunsController::compareSelectedRuns()
{
    compareRuns(m_panels.runs->selectedRunIds());
}

void RunsController::rerunCurrentExactly()
{
    rerunExactly(m_panels.runs->currentRunId());
}

void RunsController::showTableMenu(const QPoint &at)
{
    const QStringList selected = m_panels.runs->selectedRunIds();
    const QString current = m_panels.runs->currentRunId();
    QMenu menu(m_window);
    QAction *compare = menu.addAction(tr("Compare %n Run(s)", nullptr, int(selected.size())), this,
                                      [this, selected] { compareRuns(selected); });
    compare->setEnabled(selected.size() >= 2);
    menu.addAction(selected.size() >= 2 ? tr("Analyse the %1 Selected Runs").arg(selected.size())
                                        : tr("Analyse the Runs Shown"),
                   this, &RunsController::analysisRequested);
    QAction *images = menu.addAction(tr("Images of %n Run(s)", nullptr, int(std::max<qsizetype>(1, selected.size()))),
                                     this, &RunsController::imagesRequested);
    images->setEnabled(!selected.isEmpty() || !current.isEmpty());
    QAction *distributions = menu.addAction(tr("Distributions"), this, &RunsController::distributionsRequested);
    distributions->setEnabled(!selected.isEmpty() || !current.isEmpty());
    menu.addSeparator();
    QAction *exact = menu.addAction(tr("Re-run Exactly"), this, [this, current] { rerunExactly(current); });
    QAction *changes = menu.addAction(tr("Re-run with Changes…"), this, [this, current] {
        if (const auto spec = run::RunSpec::fromJson(m_rows.value(current).record.spec))
            rerun(*spec);
    });
    menu.addSeparator();
    QAction *alerts = menu.addAction(tr("Alerts…"), this, [this, current] { Q_EMIT alertRulesRequested(current); });
    alerts->setEnabled(!current.isEmpty() && !run::isFinished(m_rows.value(current).record.status));
    for (QAction *one : {exact, changes})
        one->setEnabled(!current.isEmpty());
    menu.exec(m_panels.runs->table()->viewport()->mapToGlobal(at));
}

void RunsController::showRun(const QString &runId)
{
    m_panels.runs->selectRuns({runId});
    if (m_panels.runs->currentRunId() == runId)
        return;
    // Not in the table yet, or hidden by its filter: selected once the runs are read again.
    m_panels.runs->filterEdit()->clear();
    m_selectAfterLoad = runId;
    reload();
}

void RunsController::showSweeps(const QString &sweepId)
{
    if (!m_workspace) {
        QMessageBox::information(m_window, tr("Sweeps"), tr("Open a workspace first: its sweeps are shown here."));
        return;
    }
    if (!m_sweepView) {
        m_sweepView = new SweepView(m_window);
        m_sweepView->setWindowFlag(Qt::Window);
        m_sweepView->resize(1280, 760);
        connect(m_sweepView, &SweepView::rerunRequested, this, &RunsController::rerun);
        connect(m_sweepView, &SweepView::problem, this, &RunsController::reportText);
        m_sweepView->curves()->setRunColors(m_colors);
        m_sweepView->model()->setRunsModel(m_panels.runs->model()); // the trials' progress, ETA and cost
    }
    m_sweepView->setWindowTitle(tr("Sweeps — %1").arg(m_workspace->name()));
    if (m_sweepView->currentSweep().isEmpty() || !m_sweepView->isVisible())
        m_sweepView->setWorkspace(*m_workspace, store(), m_ferryBinary);
    if (!sweepId.isEmpty())
        m_sweepView->showSweep(sweepId);
    m_sweepView->show();
    m_sweepView->raise();
    m_sweepView->activateWindow();
}

void RunsController::openSweepForm()
{
    if (!m_workspace) {
        QMessageBox::information(m_window, tr("New Sweep"),
                                 tr("Open a workspace first: a sweep runs one of its scripts."));
        return;
    }
    SweepDialog dialog(*m_workspace, m_ferryBinary, m_window);
    if (store()) // the estimate, as the launch dialog's
        dialog.setEstimateSource(store()->runs(), cost::readRates(m_settings).rates);
    connect(&dialog, &SweepDialog::started, this, [this](const QString &id) { showSweeps(id); });
    dialog.exec();
}

void RunsController::reportText(const QString &text)
{
    Q_EMIT problem(Error{text, {}, 0, 0, {}});
}

} // namespace ferry::ui
