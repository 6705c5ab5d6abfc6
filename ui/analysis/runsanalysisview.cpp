#include "ui/analysis/runsanalysisview.h"

#include "store/runstore.h"
#include "ui/analysis/importancemodel.h"
#include "ui/analysis/parallelcoordinates.h"
#include "ui/analysis/runvaluechooser.h"
#include "ui/analysis/scatterplot.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSortFilterProxyModel>
#include <QTabWidget>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

using Kind = run::RunValueSpec::Kind;

constexpr int kMostDefaultAxes = 8; // parameters on the parallel coordinates before the user chooses

run::RunValueSpec param(const QString &name)
{
    return run::RunValueSpec{Kind::Param, name, 0, {}};
}

run::RunValueSpec lastOf(const QString &metric)
{
    return run::RunValueSpec{Kind::Last, metric, 0, {}};
}

// The metric a tracker's user looks at first: a validation loss or accuracy, else the loss, else
// the first metric of the script's own (not the machine's).
QString defaultMetric(const QStringList &metrics)
{
    for (const QString &name :
         {u"val_loss"_s, u"val_accuracy"_s, u"val_acc"_s, u"eval_loss"_s, u"loss"_s, u"train_loss"_s, u"accuracy"_s}) {
        if (metrics.contains(name))
            return name;
    }
    for (const QString &name : metrics) {
        if (!name.startsWith("system/"_L1))
            return name;
    }
    return metrics.value(0);
}

QLabel *note(QWidget *parent)
{
    auto *label = new QLabel(parent);
    label->setWordWrap(true);
    label->setStyleSheet(u"color: #666;"_s);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

} // namespace

RunsAnalysisView::RunsAnalysisView(QWidget *parent)
    : Document(parent), m_looks([](const run::RunRecord &r) {
          return RunLook{r.name.isEmpty() ? r.id : r.name, {}};
      }),
      m_caption(new QLabel(this)), m_filter(new QLineEdit(this)), m_tabs(new QTabWidget(this)),
      m_table(std::make_unique<PlotTable>())
{
    setObjectName(u"runsAnalysis"_s);
    m_caption->setObjectName(u"analysisCaption"_s);
    m_caption->setWordWrap(true);
    m_filter->setObjectName(u"analysisFilter"_s);
    m_filter->setClearButtonEnabled(true);
    m_filter->setPlaceholderText(tr("Filter the runs (the runs table's filter): words, or a query such as "
                                    "hp.lr < 0.01 and tag = baseline"));
    m_filter->setMinimumWidth(320);
    auto *top = new QHBoxLayout;
    top->addWidget(m_caption, 1);
    top->addWidget(m_filter);

    m_tabs->setObjectName(u"analysisViews"_s);
    m_tabs->addTab(makeScatterPage(), tr("Scatter"));
    m_tabs->addTab(makeParallelPage(), tr("Parallel Coordinates"));
    m_importancePage = makeImportancePage();
    m_tabs->addTab(m_importancePage, tr("Parameter Importance"));
    connect(m_tabs, &QTabWidget::currentChanged, this, [this] {
        if (m_tabs->currentWidget() == m_importancePage)
            loadImportance();
    });

    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(m_tabs, 1);

    connect(&m_reading, &QFutureWatcher<Loaded>::finished, this, &RunsAnalysisView::loaded);
    connect(&m_ranking, &QFutureWatcher<Importance>::finished, this, &RunsAnalysisView::importanceLoaded);
}

RunsAnalysisView::~RunsAnalysisView()
{
    // The reads use the store: they end before it may go.
    m_reading.waitForFinished();
    m_ranking.waitForFinished();
}

QWidget *RunsAnalysisView::makeScatterPage()
{
    auto *page = new QWidget(this);
    m_x = new RunValueChooser(page);
    m_y = new RunValueChooser(page);
    m_color = new RunValueChooser(page);
    m_color->setNoneText(tr("each run's colour"));
    m_logX = new QCheckBox(tr("log"), page);
    m_logY = new QCheckBox(tr("log"), page);
    m_scatter = new ScatterPlot(page);
    m_scatter->setObjectName(u"analysisScatter"_s);
    m_scatterNote = note(page);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("x:"), page));
    controls->addWidget(m_x);
    controls->addWidget(m_logX);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("y:"), page));
    controls->addWidget(m_y);
    controls->addWidget(m_logY);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("colour:"), page));
    controls->addWidget(m_color);
    controls->addStretch(1);
    auto *layout = new QVBoxLayout(page);
    layout->addLayout(controls);
    layout->addWidget(m_scatter, 1);
    layout->addWidget(m_scatterNote);
    // A new value: its axis on the scale that suits it (a learning rate's decades on a log one),
    // once its values are read.
    connect(m_x, &RunValueChooser::changed, this, [this] {
        m_autoLogX = true;
        redraw();
    });
    connect(m_y, &RunValueChooser::changed, this, [this] {
        m_autoLogY = true;
        redraw();
    });
    for (QCheckBox *log : {m_logX, m_logY})
        connect(log, &QCheckBox::toggled, this, &RunsAnalysisView::drawScatter);
    connect(m_color, &RunValueChooser::changed, this, &RunsAnalysisView::redraw);
    connect(m_scatter, &ScatterPlot::pointClicked, this, &RunsAnalysisView::runClicked);
    return page;
}

QWidget *RunsAnalysisView::makeParallelPage()
{
    auto *page = new QWidget(this);
    m_paramsButton = new QToolButton(page);
    m_paramsButton->setText(tr("Parameters"));
    m_paramsButton->setToolTip(tr("The parameters drawn as axes, in this order"));
    m_paramsButton->setPopupMode(QToolButton::InstantPopup);
    connect(m_paramsButton, &QToolButton::clicked, this, &RunsAnalysisView::showParamMenu);
    m_parallelMetric = new RunValueChooser(page);
    m_selectInRange = new QPushButton(tr("Select These Runs in the Table"), page);
    m_selectInRange->setToolTip(tr("Selects in the runs table the runs inside the ranges dragged on the axes"));
    m_selectInRange->setEnabled(false);
    m_parallel = new ParallelCoordinates(page);
    m_parallel->setObjectName(u"analysisParallel"_s);
    m_parallel->setData(m_table.get());
    auto *controls = new QHBoxLayout;
    controls->addWidget(m_paramsButton);
    controls->addSpacing(16);
    controls->addWidget(new QLabel(tr("metric (colour):"), page));
    controls->addWidget(m_parallelMetric);
    controls->addStretch(1);
    controls->addWidget(m_selectInRange);
    auto *layout = new QVBoxLayout(page);
    layout->addLayout(controls);
    layout->addWidget(m_parallel, 1);
    connect(m_parallelMetric, &RunValueChooser::changed, this, &RunsAnalysisView::redraw);
    connect(m_parallel, &ParallelCoordinates::lineClicked, this, &RunsAnalysisView::runClicked);
    connect(m_parallel, &ParallelCoordinates::rangesChanged, this,
            [this] { m_selectInRange->setEnabled(m_table->filtered() && !m_table->passingKeys().isEmpty()); });
    connect(m_selectInRange, &QPushButton::clicked, this,
            [this] { Q_EMIT selectRunsRequested(m_table->passingKeys()); });
    return page;
}

QWidget *RunsAnalysisView::makeImportancePage()
{
    auto *page = new QWidget(this);
    m_importanceMetric = new RunValueChooser(page);
    m_importanceSummary = new QLabel(page);
    m_importanceSummary->setWordWrap(true);
    m_importance = new ImportanceModel(this);
    auto *sorted = new QSortFilterProxyModel(this);
    sorted->setSourceModel(m_importance);
    sorted->setSortRole(ImportanceModel::SortRole);
    m_importanceTable = new QTableView(page);
    m_importanceTable->setObjectName(u"analysisImportance"_s);
    m_importanceTable->setModel(sorted);
    m_importanceTable->setSortingEnabled(true);
    m_importanceTable->sortByColumn(ImportanceModel::ImportanceColumn, Qt::DescendingOrder);
    m_importanceTable->setItemDelegate(new ImportanceBarDelegate(m_importanceTable));
    m_importanceTable->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_importanceTable->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_importanceTable->verticalHeader()->hide();
    m_importanceTable->setShowGrid(false);
    QHeaderView *header = m_importanceTable->horizontalHeader();
    header->setSectionResizeMode(ImportanceModel::ParameterColumn, QHeaderView::Interactive);
    header->setSectionResizeMode(ImportanceModel::ImportanceColumn, QHeaderView::Stretch);
    header->setSectionResizeMode(ImportanceModel::CorrelationColumn, QHeaderView::Stretch);
    header->resizeSection(ImportanceModel::ParameterColumn, 240);
    m_importanceNotes = note(page);
    m_importanceNotes->setObjectName(u"importanceNotes"_s);
    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("metric:"), page));
    controls->addWidget(m_importanceMetric);
    controls->addSpacing(16);
    controls->addWidget(m_importanceSummary, 1);
    auto *layout = new QVBoxLayout(page);
    layout->addLayout(controls);
    layout->addWidget(m_importanceTable, 1);
    layout->addWidget(m_importanceNotes);
    connect(m_importanceMetric, &RunValueChooser::changed, this, &RunsAnalysisView::loadImportance);
    // A parameter double-clicked: the metric against it in the scatter.
    connect(m_importanceTable, &QAbstractItemView::doubleClicked, this, [this, sorted](const QModelIndex &index) {
        const QModelIndex row = sorted->mapToSource(index);
        const auto metric = m_importanceMetric->spec();
        if (!metric || row.row() < 0 || row.row() >= m_importance->report().features.size())
            return;
        m_x->setSpec(param(m_importance->report().features[row.row()].param));
        m_y->setSpec(*metric);
        m_autoLogX = m_autoLogY = true;
        m_tabs->setCurrentIndex(0);
        redraw();
    });
    return page;
}

void RunsAnalysisView::setStore(run::RunStore *store)
{
    if (store == m_store)
        return;
    m_reading.waitForFinished();
    m_ranking.waitForFinished();
    m_store = store;
    ++m_generation;
    m_read = {};
    m_values.clear();
    m_importanceShown.clear();
    if (m_store && !m_ids.isEmpty())
        load(true);
    else
        redraw();
}

void RunsAnalysisView::setRunLooks(const RunLooks &looks)
{
    m_looks = looks;
    redraw();
}

RunLook RunsAnalysisView::lookOf(const run::RunRecord &record) const
{
    return m_looks(record);
}

void RunsAnalysisView::setRuns(const QStringList &runIds, const QString &caption, const QSet<QString> &highlighted)
{
    m_caption->setText(caption);
    if (highlighted != m_highlighted) {
        m_highlighted = highlighted;
        m_scatter->setHighlighted(highlighted);
        m_table->setHighlighted(highlighted);
        m_parallel->update();
    }
    if (runIds == m_ids)
        return;
    m_ids = runIds;
    ++m_generation;
    m_importanceShown.clear();
    load(true);
}

void RunsAnalysisView::refresh()
{
    if (!m_store || m_ids.isEmpty() || m_readingBusy)
        return;
    const bool over = m_read.runs.size() == m_ids.size() &&
                      std::all_of(m_read.runs.cbegin(), m_read.runs.cend(),
                                  [](const run::RunRecord &r) { return run::isFinished(r.status); });
    if (!over)
        load(true);
}

bool RunsAnalysisView::isReading() const
{
    return m_readingBusy || m_rankingBusy || m_pending;
}

QStringList RunsAnalysisView::neededSpecs() const
{
    QStringList specs;
    for (const RunValueChooser *chooser : {m_x, m_y, m_color, m_parallelMetric}) {
        if (const auto spec = chooser->spec())
            specs << spec->text();
    }
    for (const QString &p : m_chosenParams)
        specs << param(p).text();
    specs.removeDuplicates();
    return specs;
}

void RunsAnalysisView::load(bool readRuns)
{
    if (!m_store) {
        redraw();
        return;
    }
    if (m_readingBusy) { // after this one: the newest wish
        m_pending = true;
        m_readAgain = m_readAgain || readRuns;
        return;
    }
    m_pending = false;
    QStringList specs = neededSpecs();
    if (!readRuns) {
        specs.erase(
            std::remove_if(specs.begin(), specs.end(), [this](const QString &s) { return m_values.contains(s); }),
            specs.end());
        if (specs.isEmpty()) {
            redraw();
            return;
        }
    }
    const run::RunStore *store = m_store;
    const quint64 generation = m_generation;
    const QStringList ids = m_ids;
    const QList<run::RunRecord> runs = m_read.runs;
    m_readingBusy = true;
    m_reading.setFuture(QtConcurrent::run([store, generation, ids, runs, specs, readRuns] {
        Loaded result;
        result.generation = generation;
        QStringList wanted = specs;
        QList<run::RunRecord> records = runs;
        if (readRuns) {
            result.read = ui::readRuns(*store, ids);
            records = result.read->runs;
            // Every parameter's values (one read each): which vary, and the log scales.
            for (const QString &p : std::as_const(result.read->params))
                wanted << param(p).text();
            wanted << lastOf(defaultMetric(result.read->metrics)).text();
        }
        result.values = readValues(*store, records, wanted);
        return result;
    }));
}

void RunsAnalysisView::loaded()
{
    m_readingBusy = false;
    Loaded result = m_reading.result();
    const bool again = m_pending;
    const bool readAgain = m_readAgain;
    m_pending = false;
    m_readAgain = false;
    if (result.generation == m_generation) {
        if (result.read) {
            m_importanceShown.clear(); // new values: fitted again when in view
            m_read = std::move(*result.read);
            m_values = std::move(result.values);
            for (RunValueChooser *chooser : {m_x, m_y, m_color, m_parallelMetric, m_importanceMetric})
                chooser->setNames(m_read.params, m_read.metrics);
            chooseDefaults();
        } else {
            for (auto it = result.values.cbegin(); it != result.values.cend(); ++it)
                m_values.insert(it.key(), it.value());
        }
    }
    if (again || result.generation != m_generation) {
        load(readAgain || result.generation != m_generation);
        return;
    }
    redraw();
    if (m_tabs->currentWidget() == m_importancePage)
        loadImportance();
}

void RunsAnalysisView::chooseDefaults()
{
    // The parameters that differ among the runs (a constant one says nothing), at most a few.
    QStringList varying;
    for (const QString &p : std::as_const(m_read.params)) {
        QSet<QString> distinct;
        for (const run::RunValue &v : m_values.value(param(p).text()))
            distinct.insert(v.text);
        if (distinct.size() > 1)
            varying << p;
    }
    if (!m_paramsChosenByUser)
        m_chosenParams = varying.mid(0, kMostDefaultAxes);
    else // the user's, less those these runs do not have
        m_chosenParams.erase(std::remove_if(m_chosenParams.begin(), m_chosenParams.end(),
                                            [this](const QString &p) { return !m_read.params.contains(p); }),
                             m_chosenParams.end());
    if (m_defaultsChosen && m_x->spec() && m_y->spec())
        return;
    const QString metric = defaultMetric(m_read.metrics);
    if (metric.isEmpty() && m_read.params.isEmpty())
        return; // nothing read yet: the next read chooses
    m_defaultsChosen = true;
    // x: the first parameter that differs (lr if it does), y: the metric.
    const QString x = varying.contains(u"lr"_s)              ? u"lr"_s
                      : varying.contains(u"learning_rate"_s) ? u"learning_rate"_s
                                                             : varying.value(0, m_read.params.value(0));
    if (!x.isEmpty())
        m_x->setSpec(param(x));
    else if (!metric.isEmpty())
        m_x->setSpec(run::RunValueSpec{Kind::Min, metric, 0, {}});
    m_autoLogX = m_autoLogY = true;
    if (!metric.isEmpty()) {
        m_y->setSpec(lastOf(metric));
        m_parallelMetric->setSpec(lastOf(metric));
        m_importanceMetric->setSpec(lastOf(metric));
    }
    m_color->setSpec(std::nullopt);
}

void RunsAnalysisView::setParallelParams(const QStringList &params)
{
    m_chosenParams = params;
    m_paramsChosenByUser = true;
    redraw();
}

void RunsAnalysisView::showParamMenu()
{
    QMenu menu(this);
    for (const QString &p : std::as_const(m_read.params)) {
        QAction *action = menu.addAction(p);
        action->setCheckable(true);
        action->setChecked(m_chosenParams.contains(p));
        connect(action, &QAction::toggled, this, [this, p](bool on) {
            QStringList params = m_chosenParams;
            if (on) // in the order of the names
                params << p;
            else
                params.removeAll(p);
            std::stable_sort(params.begin(), params.end(), [this](const QString &a, const QString &b) {
                return m_read.params.indexOf(a) < m_read.params.indexOf(b);
            });
            setParallelParams(params);
        });
    }
    if (m_read.params.isEmpty())
        menu.addAction(tr("These runs have no parameters"))->setEnabled(false);
    menu.exec(m_paramsButton->mapToGlobal(QPoint(0, m_paramsButton->height())));
}

void RunsAnalysisView::redraw()
{
    // What is not read yet is read first; the plots are drawn when it comes.
    const QStringList specs = neededSpecs();
    if (m_store &&
        std::any_of(specs.cbegin(), specs.cend(), [this](const QString &s) { return !m_values.contains(s); })) {
        load(false);
        return;
    }
    drawScatter();
    drawParallel();
    if (!m_readingBusy)
        Q_EMIT readDone();
}

void RunsAnalysisView::drawScatter()
{
    const auto x = m_x->spec(), y = m_y->spec();
    if (!m_store || m_ids.isEmpty()) {
        m_scatter->setContent({}, {}, {}, std::nullopt);
        m_scatter->setEmptyText(m_ids.isEmpty() ? tr("No runs to analyse: the runs table shows none")
                                                : tr("No workspace open"));
        m_scatterNote->clear();
        return;
    }
    if (!x || !y) {
        m_scatter->setContent({}, {}, {}, std::nullopt);
        m_scatter->setEmptyText(m_read.runs.isEmpty() ? tr("Reading the runs…") : tr("Choose the values for x and y"));
        return;
    }
    const auto colour = m_color->spec();
    if (!m_values.contains(x->text()) || !m_values.contains(y->text()) ||
        (colour && !m_values.contains(colour->text())))
        return; // being read: the picture stays until they come
    const QHash<QString, run::RunValue> xs = m_values.value(x->text()), ys = m_values.value(y->text());
    const QList<run::RunValue> xValues(xs.cbegin(), xs.cend()), yValues(ys.cbegin(), ys.cend());
    // A value just chosen starts on the scale that suits it; the user's toggle stays after.
    for (auto [autoLog, box, values] :
         {std::tuple{&m_autoLogX, m_logX, &xValues}, std::tuple{&m_autoLogY, m_logY, &yValues}}) {
        if (*autoLog) {
            const QSignalBlocker blocker(box);
            box->setChecked(logByDefault(*values));
            *autoLog = false;
        }
        box->setEnabled(PlotAxis::canBeLog(*values));
        box->setToolTip(box->isEnabled() ? tr("A log scale") : tr("A log scale needs every value above 0"));
    }
    const ScatterContent content = scatterContent(
        m_read.runs, [this](const run::RunRecord &r) { return lookOf(r); }, m_values, *x, m_logX->isChecked(), *y,
        m_logY->isChecked(), colour);
    m_scatter->setContent(content.x, content.y, content.points, content.scale);
    m_scatter->setEmptyText(tr("No run has both %1 and %2").arg(content.x.name, content.y.name));
    QString text = content.points.size() == 1 ? tr("1 run drawn") : tr("%1 runs drawn").arg(content.points.size());
    if (!content.missing.isEmpty()) {
        QStringList names = content.missing.mid(0, 6);
        if (content.missing.size() > names.size())
            names << tr("%1 more").arg(content.missing.size() - names.size());
        text += tr(" · not drawn, without both values (or with one not above 0 on a log axis): %1")
                    .arg(names.join(u", "_s));
    }
    m_scatterNote->setText(text + tr(" · the pointer names a run; a click selects it in the runs table"));
}

void RunsAnalysisView::drawParallel()
{
    QList<run::RunValueSpec> params;
    for (const QString &p : std::as_const(m_chosenParams))
        params << param(p);
    const auto metric = m_parallelMetric->spec();
    std::vector<std::optional<std::pair<double, double>>> ranges;
    ranges.reserve(m_table->axes().size());
    for (int a = 0; a < int(m_table->axes().size()); ++a)
        ranges.push_back(m_table->range(a));
    QStringList wasAxes;
    for (const PlotAxis &axis : m_table->axes())
        wasAxes << axis.name;
    if (!m_store || !metric || m_read.runs.isEmpty()) {
        *m_table = PlotTable();
    } else {
        *m_table = parallelTable(
            m_read.runs, [this](const run::RunRecord &r) { return lookOf(r); }, m_values, params, *metric);
        m_table->setHighlighted(m_highlighted);
        // The ranges dragged stay while the axes are the same.
        QStringList axes;
        for (const PlotAxis &axis : m_table->axes())
            axes << axis.name;
        if (axes == wasAxes) {
            for (int a = 0; a < int(ranges.size()); ++a)
                m_table->setRange(a, ranges[std::size_t(a)]);
        }
    }
    m_parallel->setEmptyText(m_ids.isEmpty() ? tr("No runs to analyse: the runs table shows none")
                                             : tr("Choose a metric"));
    m_paramsButton->setText(tr("Parameters (%1 of %2)").arg(m_chosenParams.size()).arg(m_read.params.size()));
    m_selectInRange->setEnabled(m_table->filtered() && !m_table->passingKeys().isEmpty());
    m_parallel->update();
}

void RunsAnalysisView::loadImportance()
{
    const auto metric = m_importanceMetric->spec();
    if (!m_store || !metric || m_read.runs.isEmpty()) {
        m_importance->setReport({});
        m_importanceSummary->setText(m_ids.isEmpty() ? tr("No runs to analyse: the runs table shows none") : QString());
        m_importanceNotes->clear();
        return;
    }
    const QString key = QString::number(m_generation) + u'/' + metric->text();
    if (key == m_importanceShown)
        return;
    if (m_rankingBusy) { // when it ends, this one
        m_importanceShown.clear();
        return;
    }
    m_importanceShown = key;
    m_importanceSummary->setText(
        tr("Fitting a random forest to %1 over %2 runs…").arg(valueTitle(*metric)).arg(m_read.runs.size()));
    const run::RunStore *store = m_store;
    m_rankingBusy = true;
    m_ranking.setFuture(QtConcurrent::run([store, generation = m_generation, runs = m_read.runs, spec = *metric] {
        Importance result;
        result.generation = generation;
        result.metric = spec.text();
        if (auto report = run::parameterImportance(*store, runs, spec))
            result.report = std::move(*report);
        else
            result.error = report.error().message;
        return result;
    }));
}

void RunsAnalysisView::importanceLoaded()
{
    m_rankingBusy = false;
    const Importance result = m_ranking.result();
    const auto metric = m_importanceMetric->spec();
    if (result.generation != m_generation || !metric || result.metric != metric->text()) {
        m_importanceShown.clear();
        if (m_tabs->currentWidget() == m_importancePage)
            loadImportance(); // what is asked now
        return;
    }
    const QString title = valueTitle(*metric);
    if (!result.report) {
        m_importance->setReport({});
        m_importanceSummary->setText(tr("No importance for %1: %2").arg(title, result.error));
        m_importanceNotes->clear();
    } else {
        m_importance->setReport(*result.report);
        m_importanceSummary->setText(
            tr("Which parameters mattered for %1 over the %2 runs that have it: a random forest's importance and "
               "the correlation (the metric grows with the parameter: green, right; falls: red, left). "
               "Double-click a parameter to plot %1 against it.")
                .arg(title)
                .arg(result.report->runs));
        m_importanceNotes->setText(
            result.report->notes.isEmpty() ? QString() : tr("Left out: %1").arg(result.report->notes.join(u"; "_s)));
    }
    Q_EMIT readDone();
}

} // namespace ferry::ui
