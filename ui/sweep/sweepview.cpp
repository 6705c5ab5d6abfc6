#include "ui/sweep/sweepview.h"

#include "store/runstore.h"
#include "sweep/sweepcontroller.h"
#include "ui/analysis/parallelcoordinates.h"
#include "ui/chart/chartaxis.h"
#include "ui/chart/losschartpanel.h"
#include "ui/chart/seriesstore.h"
#include "ui/sweep/sweepplots.h"
#include "ui/sweep/sweeptrialsmodel.h"

#include <QComboBox>
#include <QFile>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSplitter>
#include <QTabWidget>
#include <QTableView>

#include <QVBoxLayout>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

SweepView::SweepView(QWidget *parent)
    : QWidget(parent), m_sweeps(new QComboBox(this)), m_summary(new QLabel(this)),
      m_rerun(new QPushButton(tr("Re-run Best With…"), this)), m_cancel(new QPushButton(tr("Cancel Sweep"), this)),
      m_resume(new QPushButton(tr("Resume"), this)), m_table(new QTableView(this)), m_model(new SweepTrialsModel(this)),
      m_filter(new SweepTrialsFilter(this)), m_tabs(new QTabWidget(this)), m_objective(new ObjectivePlot(this)),
      m_parallel(new ParallelCoordinates(this)), m_scatter(new ParameterScatter(this)),
      m_curves(new LossChartPanel(this)), m_series(std::make_shared<SeriesStore>())
{
    setObjectName(u"sweepView"_s);
    m_sweeps->setObjectName(u"sweepChoice"_s);
    m_sweeps->setMinimumContentsLength(36);
    m_summary->setWordWrap(true);
    m_summary->setTextInteractionFlags(Qt::TextSelectableByMouse);
    auto *top = new QHBoxLayout;
    top->addWidget(new QLabel(tr("Sweep:"), this));
    top->addWidget(m_sweeps, 1);
    top->addWidget(m_resume);
    top->addWidget(m_cancel);
    top->addWidget(m_rerun);

    m_filter->setSourceModel(m_model);
    m_table->setObjectName(u"sweepTrials"_s);
    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(SweepTrialsModel::TrialColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setAlternatingRowColors(true);

    m_objective->setData(&m_data);
    m_parallel->setData(&m_data);
    m_parallel->setEmptyText(tr("No trials yet"));
    m_scatter->setData(&m_data);
    m_curves->setStore(m_series);
    m_tabs->setObjectName(u"sweepPlots"_s);
    m_tabs->addTab(m_parallel, tr("Parallel Coordinates"));
    m_tabs->addTab(m_objective, tr("Objective"));
    m_tabs->addTab(m_scatter, tr("Parameters"));
    m_tabs->addTab(m_curves, tr("Curves"));

    auto *split = new QSplitter(Qt::Horizontal, this);
    m_split = split;
    split->addWidget(m_table);
    split->addWidget(m_tabs);
    split->setStretchFactor(0, 2);
    split->setStretchFactor(1, 3);
    split->setSizes({560, 940});
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_summary);
    layout->addWidget(split, 1);

    connect(m_sweeps, &QComboBox::currentIndexChanged, this, [this] { loadSweep(m_sweeps->currentData().toString()); });
    connect(m_parallel, &ParallelCoordinates::rangesChanged, this, &SweepView::applyFilter);
    connect(m_rerun, &QPushButton::clicked, this, &SweepView::rerunBest);
    connect(m_cancel, &QPushButton::clicked, this, &SweepView::cancelSweep);
    connect(m_resume, &QPushButton::clicked, this, &SweepView::resumeSweep);
    m_timer.setInterval(1000);
    connect(&m_timer, &QTimer::timeout, this, &SweepView::refresh);
    updateButtons();
}

SweepView::~SweepView() = default;

const sweep::SweepState &SweepView::state() const
{
    return m_model->state();
}

void SweepView::setWorkspace(const workspace::Workspace &workspace, run::RunStore *store, const QString &ferryProgram)
{
    m_workspace = workspace;
    m_store = store;
    m_ferryProgram = ferryProgram;
    m_shownId.clear();
    m_shownState.clear();
    reloadList();
    m_timer.start();
}

void SweepView::clearWorkspace()
{
    m_timer.stop();
    m_workspace.reset();
    m_store = nullptr;
    m_shownId.clear();
    m_shownState.clear();
}

QString SweepView::currentSweep() const
{
    return m_shownId;
}

bool SweepView::showSweep(const QString &id)
{
    reloadList();
    const int index = m_sweeps->findData(id);
    if (index < 0)
        return false;
    m_sweeps->setCurrentIndex(index);
    loadSweep(id);
    return true;
}

void SweepView::refresh()
{
    if (!m_workspace)
        return;
    reloadList();
    loadSweep(m_shownId);
}

void SweepView::reloadList()
{
    if (!m_workspace)
        return;
    const QList<sweep::SweepState> sweeps = sweep::listSweeps(m_workspace->sweepsDir());
    QStringList ids;
    for (const sweep::SweepState &s : sweeps)
        ids << s.id;
    QStringList shown;
    for (int i = 0; i < m_sweeps->count(); ++i)
        shown << m_sweeps->itemData(i).toString();
    if (ids == shown) {
        for (int i = 0; i < sweeps.size(); ++i) // statuses change
            m_sweeps->setItemText(i, u"%1  (%2, %3/%4)"_s.arg(sweeps[i].id, sweep::sweepStatusText(sweeps[i].status))
                                         .arg(sweeps[i].count(sweep::TrialStatus::Succeeded) +
                                              sweeps[i].count(sweep::TrialStatus::StoppedEarly) +
                                              sweeps[i].count(sweep::TrialStatus::Failed))
                                         .arg(sweeps[i].trials.size()));
        return;
    }
    const QString keep = m_shownId;
    const QSignalBlocker blocker(m_sweeps);
    m_sweeps->clear();
    for (const sweep::SweepState &s : sweeps)
        m_sweeps->addItem(u"%1  (%2)"_s.arg(s.id, sweep::sweepStatusText(s.status)), s.id);
    const int index = m_sweeps->findData(keep);
    m_sweeps->setCurrentIndex(index >= 0 ? index : 0);
    if (m_sweeps->count() > 0 && index < 0)
        loadSweep(m_sweeps->itemData(0).toString());
}

void SweepView::loadSweep(const QString &id)
{
    if (!m_workspace || id.isEmpty()) {
        updateButtons();
        return;
    }
    const sweep::SweepDirectory dir(m_workspace->sweepsDir() + u'/' + id);
    m_controllerRunning = dir.controllerRunning();
    QFile file(dir.stateFile());
    const QByteArray bytes = file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
    if (id == m_shownId && bytes == m_shownState) { // only the running trials' curves grew
        loadCurves();
        updateButtons();
        return;
    }
    const auto state = dir.readState();
    const sweep::SweepRead read = dir.readSpec();
    if (!state) {
        Q_EMIT problem(state.error().toString());
        return;
    }
    if (id != m_shownId) { // another sweep: its own curves, no ranges
        m_series = std::make_shared<SeriesStore>();
        m_curves->setStore(m_series);
        m_loadedPoints.clear();
        m_data = SweepPlotData();
    }
    // The ranges brushed so far stay (the axes are the same parameters).
    std::vector<std::optional<std::pair<double, double>>> ranges;
    ranges.reserve(m_data.axes().size());
    for (int a = 0; a < int(m_data.axes().size()); ++a)
        ranges.push_back(m_data.range(a));
    m_shownId = id;
    m_shownState = bytes;
    m_model->setSweep(read.spec, *state);
    // Progress, ETA and cost so far while a trial runs (the whole cost is the Costs window's, by
    // sweep): the table keeps to its width otherwise.
    const bool running = std::any_of(state->trials.cbegin(), state->trials.cend(),
                                     [](const sweep::Trial &t) { return !sweep::isOver(t.status); });
    for (const int column :
         {SweepTrialsModel::ProgressColumn, SweepTrialsModel::EtaColumn, SweepTrialsModel::CostColumn})
        m_table->setColumnHidden(column, !running);
    m_data = SweepPlotData(read.spec, *state);
    if (ranges.size() == m_data.axes().size()) {
        for (int a = 0; a < int(ranges.size()); ++a)
            m_data.setRange(a, ranges[std::size_t(a)]);
    }
    const auto best = state->best(read.spec.goal);
    QString text = tr("%1 · %2 · %3 of %4 trials over")
                       .arg(sweep::sweepStatusText(state->status), read.spec.script)
                       .arg(state->count(sweep::TrialStatus::Succeeded) + state->count(sweep::TrialStatus::Failed) +
                            state->count(sweep::TrialStatus::StoppedEarly) +
                            state->count(sweep::TrialStatus::Cancelled) + state->count(sweep::TrialStatus::Lost))
                       .arg(read.spec.plannedTrials());
    if (const qsizetype stopped = state->count(sweep::TrialStatus::StoppedEarly))
        text += tr(", %1 stopped early").arg(stopped);
    if (best)
        text += tr(" · best: trial %1, %2 = %3")
                    .arg(*best)
                    .arg(read.spec.metric, formatValue(*state->trials[*best].objective));
    if (!state->error.isEmpty())
        text += u" · "_s + state->error;
    if (state->status == sweep::SweepStatus::Running && !m_controllerRunning)
        text += tr(" · its controller is gone: Resume goes on");
    m_summary->setText(text);
    m_curves->setPinnedRun(best ? state->trials[*best].runId : QString());
    applyFilter();
    loadCurves();
    updateButtons();
    fitTrialTable();
}

void SweepView::showEvent(QShowEvent *event)
{
    QWidget::showEvent(event);
    fitTrialTable();
}

void SweepView::fitTrialTable()
{
    // Every column in view (review 2026-12-06, finding 6: the seed column was cut off), taking
    // at most 60% of the width from the plots.
    QHeaderView *header = m_table->horizontalHeader();
    header->setStretchLastSection(false); // the columns' own widths, the last one's too
    m_table->resizeColumnsToContents();
    const int needed = header->length() + 2 * m_table->frameWidth() + m_table->verticalScrollBar()->sizeHint().width();
    header->setStretchLastSection(true);
    QList<int> sizes = m_split->sizes();
    if (sizes.size() != 2 || sizes.first() >= needed || sizes.first() + sizes.last() <= 0)
        return; // wide enough, or not laid out yet (showEvent fits it then)
    const int total = sizes.first() + sizes.last();
    const int table = std::min(needed, total * 3 / 5);
    m_split->setSizes({table, total - table});
}

void SweepView::applyFilter()
{
    m_filter->setTrials(m_data.filtered() ? std::optional<QSet<int>>(m_data.passingTrials()) : std::nullopt);
    m_objective->update();
    m_parallel->update();
    m_scatter->update();
}

// Each trial's metrics from the run store into the curves' store: what it has not loaded yet
// (finished trials once, running ones as they grow), each run labelled by its trial.
void SweepView::loadCurves()
{
    if (!m_store)
        return;
    LossChart *chart = m_curves->chart();
    for (const sweep::Trial &t : state().trials) {
        if (t.runId.isEmpty())
            continue;
        const QString done = t.runId + u"\x1f"_s;
        if (m_loadedPoints.contains(done)) // over and loaded whole
            continue;
        for (const QString &metric : m_store->metricNames(t.runId)) {
            if (metric.startsWith(u"system/"_s)) // the machine's samples: by wall time, not steps
                continue;
            const QString key = t.runId + u'\x1f' + metric;
            const std::vector<run::SeriesPoint> points = m_store->series(t.runId, metric);
            const qsizetype have = m_loadedPoints.value(key);
            if (qsizetype(points.size()) <= have)
                continue;
            m_series->append(m_series->series(t.runId, metric),
                             std::vector<ChartPoint>(points.begin() + have, points.end()));
            m_loadedPoints.insert(key, qsizetype(points.size()));
        }
        if (chart->runLabel(t.runId) == t.runId)
            chart->setRunLabel(t.runId, tr("trial %1").arg(t.number));
        if (sweep::isOver(t.status))
            m_loadedPoints.insert(done, 0);
    }
}

void SweepView::rerunBest()
{
    const auto best = state().best(m_model->spec().goal);
    if (!best || !m_store)
        return;
    const auto record = m_store->run(state().trials[*best].runId);
    if (!record) {
        Q_EMIT problem(tr("trial %1's run %2 is not in the run store").arg(*best).arg(state().trials[*best].runId));
        return;
    }
    auto spec = run::RunSpec::fromJson(record->spec);
    if (!spec) {
        Q_EMIT problem(spec.error().toString());
        return;
    }
    spec->sweep.clear(); // a run of its own now
    spec->trial = -1;
    spec->target.options.remove(u"arrayTask"_s);
    Q_EMIT rerunRequested(*spec);
}

void SweepView::cancelSweep()
{
    if (!m_workspace || m_shownId.isEmpty())
        return;
    const sweep::SweepDirectory dir(m_workspace->sweepsDir() + u'/' + m_shownId);
    if (const auto asked = dir.requestCancel(); !asked)
        Q_EMIT problem(asked.error().toString());
    m_cancel->setEnabled(false);
    m_cancel->setText(tr("Cancelling…"));
}

void SweepView::resumeSweep()
{
    if (!m_workspace || m_shownId.isEmpty())
        return;
    const sweep::SweepDirectory dir(m_workspace->sweepsDir() + u'/' + m_shownId);
    if (const auto started = sweep::startController(*m_workspace, dir, m_ferryProgram); !started)
        Q_EMIT problem(started.error().toString());
    m_resume->setEnabled(false);
}

void SweepView::updateButtons()
{
    const bool any = !m_shownId.isEmpty();
    const bool running = any && state().status == sweep::SweepStatus::Running;
    m_cancel->setEnabled(running && m_controllerRunning &&
                         !sweep::SweepDirectory(m_workspace ? m_workspace->sweepsDir() + u'/' + m_shownId : QString())
                              .cancelRequested());
    if (m_cancel->isEnabled())
        m_cancel->setText(tr("Cancel Sweep"));
    m_resume->setVisible(running && !m_controllerRunning);
    m_resume->setEnabled(running && !m_controllerRunning);
    m_rerun->setEnabled(any && state().best(m_model->spec().goal).has_value() && m_store);
}

} // namespace ferry::ui
