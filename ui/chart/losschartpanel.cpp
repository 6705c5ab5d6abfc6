#include "ui/chart/losschartpanel.h"

#include "analysis/rungroups.h"
#include "ui/chart/runcolors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QMenu>
#include <QMessageBox>
#include <QScopedValueRollback>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
// The metric box's first entries; then one entry per metric seen.
enum MetricChoice : int { Panels = 0, AllMetrics = 1 };
// The x box's entries: these modes, a separator, then one entry per metric (its name as data).
constexpr int kXMetricRole = Qt::UserRole + 1;

constexpr int kPanelMinimumHeight = 250;
// Each panel is a chart widget: past this many groups (a run of thousands of names, review M6)
// the others are left to the metric box, which lists every metric.
constexpr qsizetype kMostPanels = 48;

// A panel's metrics in drawing order: the first solid, the others dashed and dotted; the
// training quantity first.
void sortForDrawing(QStringList &metrics)
{
    const auto rank = [](const QString &name) {
        return std::tuple(name != u"loss"_s, !name.startsWith(u"train"_s), name);
    };
    std::sort(metrics.begin(), metrics.end(), [&](const QString &a, const QString &b) { return rank(a) < rank(b); });
}
} // namespace

LossChartPanel::LossChartPanel(QWidget *parent)
    : QWidget(parent), m_chart(new LossChart(this)), m_metric(new QComboBox(this)), m_xAxis(new QComboBox(this)),
      m_logX(new QCheckBox(tr("Log x"), this)), m_logY(new QCheckBox(tr("Log y"), this)),
      m_smoothing(new QSlider(Qt::Horizontal, this)), m_smoothingValue(new QLabel(u"0.00"_s, this)),
      m_hidden(new QToolButton(this)), m_caption(new QLabel(this)), m_scroll(new QScrollArea(this)),
      m_grid(new QGridLayout), m_systemHeading(new QLabel(this)), m_colors(new RunColors(this))
{
    m_ownColors = m_colors;
    m_caption->setObjectName(u"chartCaption"_s);
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    m_caption->setWordWrap(true);
    m_caption->setMinimumWidth(200);
    m_caption->hide();
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(createControls());
    // The caption, and the groups' controls on its right: a row the caption had to itself, so the
    // row above stays narrow enough for the chart to have most of the window's width.
    auto *captionRow = new QHBoxLayout;
    captionRow->addWidget(m_caption, 1);
    captionRow->addStretch();
    captionRow->addWidget(new QLabel(tr("Group"), this));
    captionRow->addWidget(m_groupBy);
    captionRow->addWidget(m_groupStatistic);
    captionRow->addWidget(m_groupBand);
    captionRow->addWidget(m_ungroup);
    layout->addLayout(captionRow);
    auto *grid = new QWidget(m_scroll);
    grid->setLayout(m_grid);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->addWidget(m_chart, 0, 0, 1, 2);
    m_systemHeading->setObjectName(u"systemHeading"_s);
    m_systemHeading->setText(tr("<b>System</b> &nbsp;the run's processes, by time since its start"));
    m_systemHeading->setContentsMargins(6, 10, 6, 2);
    m_systemHeading->hide();
    m_scroll->setWidget(grid);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_scroll, 1);

    // The other panels follow the first: its store (a new selection), labels and hidden runs.
    connect(m_chart, &LossChart::storeChanged, this, [this] {
        for (LossChart *other : std::as_const(m_others))
            other->setStore(m_chart->store());
        updateMetrics();
    });
    connect(m_chart, &LossChart::runLabelChanged, this, [this](const QString &run, const QString &label) {
        for (LossChart *other : std::as_const(m_others))
            other->setRunLabel(run, label);
    });
    connect(m_chart, &LossChart::runVisibilityChanged, this, &LossChartPanel::showRunEverywhere);
    connect(m_chart, &LossChart::dataChanged, this, &LossChartPanel::updateMetrics);
    m_chart->setRunColors(m_colors);
    m_chart->installEventFilter(this);
    m_chart->setContextMenuPolicy(Qt::CustomContextMenu);
    connect(m_chart, &QWidget::customContextMenuRequested, this,
            [this](const QPoint &at) { panelMenu(m_chart)->popup(m_chart->mapToGlobal(at)); });
}

// The row above the charts: metric, x axis, log x and y, smoothing, hidden panels, reset, export.
QHBoxLayout *LossChartPanel::createControls()
{
    // Panels: one axis for a loss and a throughput of 100000 samples/s would draw the loss flat.
    m_metric->addItem(tr("Panels"));
    m_metric->setItemData(Panels, tr("A panel per metric group, each with its own y range: losses first"),
                          Qt::ToolTipRole);
    m_metric->addItem(tr("All metrics"));
    m_xAxis->setObjectName(u"xAxis"_s);
    m_xAxis->addItem(tr("Step"), int(XAxisMode::Step));
    m_xAxis->addItem(tr("Epoch"), int(XAxisMode::Epoch));
    m_xAxis->addItem(tr("Time since start"), int(XAxisMode::WallTime));
    m_xAxis->addItem(tr("Wall time"), int(XAxisMode::Clock));
    m_xAxis->insertSeparator(m_xAxis->count());
    m_xAxis->setToolTip(tr("The x axis: step, epoch, time, or another metric of each run (at the same step)"));
    // Narrow boxes: the row of controls stays narrow enough for the chart to have most of the
    // window's width (issue 37: a third of it was left to the chart).
    for (QComboBox *box : {m_metric, m_xAxis}) {
        box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        box->setMinimumContentsLength(10);
    }
    m_logX->setObjectName(u"logX"_s);
    m_smoothing->setRange(0, 99);
    m_smoothing->setMinimumWidth(50);
    m_smoothing->setToolTip(tr("EMA smoothing; the raw curve stays faint behind"));
    m_hidden->setObjectName(u"hiddenPanels"_s);
    m_hidden->setPopupMode(QToolButton::InstantPopup);
    m_hidden->setMenu(new QMenu(m_hidden));
    m_hidden->setToolTip(tr("Panels hidden from their context menu: show them again"));
    m_hidden->hide();
    auto *reset = new QToolButton(this);
    reset->setText(tr("Reset zoom"));
    auto *exportButton = new QToolButton(this); // both exports behind one button
    exportButton->setObjectName(u"export"_s);
    exportButton->setText(tr("Export"));
    exportButton->setPopupMode(QToolButton::InstantPopup);
    exportButton->setMenu(new QMenu(exportButton));
    connect(exportButton->menu()->addAction(tr("Chart as PNG…")), &QAction::triggered, this,
            [this] { exportTo(true); });
    connect(exportButton->menu()->addAction(tr("Points as CSV…")), &QAction::triggered, this,
            [this] { exportTo(false); });

    createGroupControls();

    connect(m_metric, &QComboBox::currentIndexChanged, this, &LossChartPanel::applyMetricChoice);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this] {
        m_pendingXMetric.clear(); // a choice made: the settings' one is no longer awaited
        applyXAxis();
        saveSettings();
    });
    connect(m_logX, &QCheckBox::toggled, this, [this] {
        applyXAxis();
        saveSettings();
    });
    connect(m_logY, &QCheckBox::toggled, this, [this](bool on) {
        forEachChart([on](LossChart *c) { c->setLogY(on); });
        saveSettings();
    });
    connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
        forEachChart([value](LossChart *c) { c->setSmoothing(value / 100.0); });
        m_smoothingValue->setText(QString::number(value / 100.0, 'f', 2));
        saveSettings();
    });
    connect(reset, &QToolButton::clicked, this, [this] { forEachChart([](LossChart *c) { c->resetZoom(); }); });

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric"), this));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("x"), this));
    controls->addWidget(m_xAxis);
    controls->addWidget(m_logX);
    controls->addWidget(m_logY);
    controls->addWidget(new QLabel(tr("Smoothing"), this));
    controls->addWidget(m_smoothing, 1);
    controls->addWidget(m_smoothingValue);
    controls->addWidget(m_hidden);
    controls->addWidget(reset);
    controls->addWidget(exportButton);
    return controls;
}

void LossChartPanel::setStore(std::shared_ptr<SeriesStore> store)
{
    m_chart->setStore(std::move(store));
    updateMetrics();
}

void LossChartPanel::setPinnedRun(const QString &runId)
{
    forEachChart([&runId](LossChart *chart) { chart->setPinnedRun(runId); });
}

void LossChartPanel::setCaption(const QString &text)
{
    m_caption->setText(text);
    m_caption->setVisible(!text.isEmpty());
}

QString LossChartPanel::caption() const
{
    return m_caption->text();
}

void LossChartPanel::setRunColors(RunColors *colors)
{
    m_colors = colors ? colors : m_ownColors;
    forEachChart([this](LossChart *c) { c->setRunColors(m_colors); });
    assignColors();
}

// The runs of the store, different colours among them (in the window's RunColors, where they
// keep them for every other view).
void LossChartPanel::assignColors()
{
    if (!m_chart->store() || !m_colors)
        return;
    m_colors->assign(storeRuns());
}

QStringList LossChartPanel::storeRuns() const
{
    QStringList runs;
    QSet<QString> seen;
    const auto &store = m_chart->store();
    for (int i = 0; store && i < store->seriesCount(); ++i) {
        const QString &run = store->data(i).key().runId;
        if (!seen.contains(run)) {
            seen.insert(run);
            runs << run;
        }
    }
    return runs;
}

QList<LossChart *> LossChartPanel::panels() const
{
    QList<LossChart *> shown{m_chart};
    shown << m_others.mid(0, m_shownOthers);
    return shown;
}

// The wheel over a panel scrolls the list of panels; Ctrl+wheel is the panel's (it zooms).
bool LossChartPanel::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() == QEvent::Wheel && qobject_cast<LossChart *>(watched) &&
        !(static_cast<QWheelEvent *>(event)->modifiers() & Qt::ControlModifier)) {
        QCoreApplication::sendEvent(m_scroll->verticalScrollBar(), event);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

QString LossChartPanel::panelKey(const LossChart *chart) const
{
    const qsizetype index = chart == m_chart ? 0 : m_others.indexOf(chart) + 1;
    return index >= 0 && index <= m_shownOthers && index < m_groups.size() ? m_groups[index].panel.key : QString();
}

// A run hidden or shown in one panel's legend is so in all of them.
void LossChartPanel::showRunEverywhere(const QString &runId, bool visible)
{
    forEachChart([&](LossChart *c) { c->setRunVisible(runId, visible); });
}

void LossChartPanel::forEachChart(const std::function<void(LossChart *)> &apply)
{
    apply(m_chart);
    for (LossChart *other : std::as_const(m_others))
        apply(other);
}

LossChart *LossChartPanel::addPanel()
{
    auto *chart = new LossChart(m_scroll->widget());
    chart->setMinimumHeight(kPanelMinimumHeight);
    chart->setLogY(m_chart->logY());
    chart->setSmoothing(m_chart->smoothing());
    chart->setRunColors(m_colors);
    chart->setStore(m_chart->store());
    chart->setPinnedRun(m_chart->pinnedRun());
    chart->setGroups(m_chart->groups());
    chart->setGroupStatistic(m_chart->groupStatistic());
    chart->setGroupBand(m_chart->groupBand());
    chart->setContextMenuPolicy(Qt::CustomContextMenu);
    chart->installEventFilter(this);
    connect(chart, &LossChart::runVisibilityChanged, this, &LossChartPanel::showRunEverywhere);
    connect(chart, &QWidget::customContextMenuRequested, this,
            [this, chart](const QPoint &at) { panelMenu(chart)->popup(chart->mapToGlobal(at)); });
    m_others << chart;
    return chart;
}

QMenu *LossChartPanel::panelMenu(LossChart *chart)
{
    if (!m_panelMenu)
        m_panelMenu = new QMenu(this);
    m_panelMenu->clear();
    const QString key = panelKey(chart);
    if (!key.isEmpty() && m_metric->currentIndex() == Panels) {
        QAction *hide = m_panelMenu->addAction(tr("Hide Panel “%1”").arg(chart->title()));
        hide->setObjectName(u"hidePanel"_s);
        connect(hide, &QAction::triggered, this, [this, key] { setPanelHidden(key, true); });
    }
    QAction *reset = m_panelMenu->addAction(tr("Reset Zoom"));
    connect(reset, &QAction::triggered, chart, &LossChart::resetZoom);
    if (!m_hiddenPanels.isEmpty()) {
        m_panelMenu->addSeparator();
        m_panelMenu->addMenu(m_hidden->menu())->setText(tr("Show Hidden Panels"));
    }
    return m_panelMenu;
}

void LossChartPanel::setPanelHidden(const QString &key, bool hidden)
{
    if (hidden == m_hiddenPanels.contains(key))
        return;
    if (hidden)
        m_hiddenPanels.insert(key);
    else
        m_hiddenPanels.remove(key);
    updateHiddenButton();
    m_groups.clear(); // laid out again without (or with) it
    applyMetricChoice();
    saveSettings();
}

void LossChartPanel::updateHiddenButton()
{
    QMenu *menu = m_hidden->menu();
    menu->clear();
    for (const Group &group : std::as_const(m_allGroups)) {
        if (!m_hiddenPanels.contains(group.panel.key))
            continue;
        const QString key = group.panel.key;
        connect(menu->addAction(tr("Show “%1”").arg(group.panel.title)), &QAction::triggered, this,
                [this, key] { setPanelHidden(key, false); });
    }
    if (!menu->isEmpty()) {
        menu->addSeparator();
        connect(menu->addAction(tr("Show All Panels")), &QAction::triggered, this, [this] {
            m_hiddenPanels.clear();
            updateHiddenButton();
            m_groups.clear();
            applyMetricChoice();
            saveSettings();
        });
    }
    m_hidden->setText(tr("Hidden panels (%1)").arg(m_hiddenPanels.size()));
    m_hidden->setVisible(!m_hiddenPanels.isEmpty());
}

// The first group in the first panel, the others two by two below it, the system's under their
// heading; one panel alone fills the area.
void LossChartPanel::layOutPanels(const QList<Group> &groups)
{
    const Group first = groups.value(0);
    m_chart->setMetrics(first.metrics);
    m_chart->setTitle(first.panel.title);
    const int others = int(groups.size()) - 1;
    while (m_others.size() < others)
        addPanel();
    m_grid->removeWidget(m_systemHeading);
    m_systemHeading->hide();
    int row = 1, column = 0;
    for (int i = 0; i < m_others.size(); ++i) {
        LossChart *chart = m_others[i];
        m_grid->removeWidget(chart);
        if (i >= others) {
            chart->hide();
            continue;
        }
        const Group &group = groups[i + 1];
        const bool system = group.panel.section == MetricPanel::System;
        if (system && m_systemHeading->isHidden() && first.panel.section != MetricPanel::System) {
            // The system's panels start a row of their own, under their heading.
            row += column > 0 ? 1 : 0;
            column = 0;
            m_grid->addWidget(m_systemHeading, row++, 0, 1, 2);
            m_systemHeading->show();
        }
        chart->setMetrics(group.metrics);
        chart->setTitle(group.panel.title);
        for (const QString &run : m_chart->legendRuns())
            chart->setRunLabel(run, m_chart->runLabel(run));
        m_grid->addWidget(chart, row, column);
        chart->show();
        if (++column == 2) {
            column = 0;
            ++row;
        }
    }
    m_shownOthers = std::max(0, others);
    m_chart->setMinimumHeight(m_shownOthers > 0 ? kPanelMinimumHeight + 60 : 0);
    applyXAxis();
}

void LossChartPanel::applyMetricChoice()
{
    const int index = m_metric->currentIndex();
    if (index != Panels) {
        m_groups.clear();
        const QString metric = index == AllMetrics ? QString() : m_metric->itemText(index);
        MetricPanel panel =
            metric.isEmpty() ? MetricPanel{{}, tr("All metrics"), MetricPanel::Other} : metricPanelOf(metric);
        panel.key.clear(); // no panel of the grid: nothing to hide
        panel.title = metric.isEmpty() ? tr("All metrics") : metric;
        layOutPanels({Group{panel, metric.isEmpty() ? QStringList() : QStringList{metric}}});
        return;
    }
    // The groups of the metrics the store has now, by section, then as they came. Each metric
    // once, looked up in a set: linear in the series (review M6: a run of 200,000 names).
    QList<Group> groups;
    QHash<QString, qsizetype> byKey;
    QSet<QString> grouped;
    const auto &store = m_chart->store();
    for (int i = 0; store && i < store->seriesCount(); ++i) {
        const QString &metric = store->data(i).key().metric;
        if (grouped.contains(metric))
            continue; // another run's series of it
        grouped.insert(metric);
        const MetricPanel panel = metricPanelOf(metric);
        const auto it = byKey.constFind(panel.key);
        if (it == byKey.cend()) {
            byKey.insert(panel.key, groups.size());
            groups.append({panel, {metric}});
        } else {
            groups[*it].metrics << metric;
        }
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const Group &a, const Group &b) { return a.panel.section < b.panel.section; });
    for (Group &group : groups)
        sortForDrawing(group.metrics);
    if (groups.size() > kMostPanels)
        groups.resize(kMostPanels);
    if (m_allGroups != groups) {
        m_allGroups = groups;
        updateHiddenButton();
    }
    groups.removeIf([this](const Group &g) { return m_hiddenPanels.contains(g.panel.key); });
    if (groups.isEmpty())
        groups << Group{{}, {}};
    if (groups == m_groups)
        return; // as drawn: setting the same metrics again would redraw every panel
    m_groups = groups;
    layOutPanels(groups);
}

void LossChartPanel::setXAxis(XAxisMode mode, const QString &metric)
{
    for (int i = 0; i < m_xAxis->count(); ++i) {
        const bool isMetric = m_xAxis->itemData(i, kXMetricRole).isValid();
        if (mode == XAxisMode::Metric
                ? isMetric && m_xAxis->itemData(i, kXMetricRole).toString() == metric
                : !isMetric && m_xAxis->itemData(i).isValid() && m_xAxis->itemData(i).toInt() == int(mode)) {
            m_xAxis->setCurrentIndex(i);
            return;
        }
    }
}

void LossChartPanel::applyXAxis()
{
    const QVariant metric = m_xAxis->currentData(kXMetricRole);
    const XAxisMode mode = metric.isValid() ? XAxisMode::Metric : XAxisMode(m_xAxis->currentData().toInt());
    const bool clock = mode == XAxisMode::Clock;
    m_logX->setEnabled(!clock);
    for (int i = 0; i <= m_shownOthers && i < int(m_groups.size()); ++i) {
        LossChart *chart = i == 0 ? m_chart : m_others[i - 1];
        // The system's metrics are sampled in time, not at steps: time is their x, always.
        if (m_groups[i].panel.section == MetricPanel::System) {
            chart->setXAxisMode(clock ? XAxisMode::Clock : XAxisMode::WallTime);
            chart->setLogX(false);
            continue;
        }
        chart->setXMetric(metric.toString());
        chart->setXAxisMode(mode);
        chart->setLogX(m_logX->isChecked());
    }
}

void LossChartPanel::updateMetrics()
{
    const auto &store = m_chart->store();
    if (!store)
        return;
    // New points alone change neither the metric box nor the panels: only a series that just
    // arrived (a new metric, or a new selection's store) can. A store only ever gains series.
    if (store.get() == m_groupedStore && store->seriesCount() == m_groupedSeries)
        return;
    m_groupedStore = store.get();
    m_groupedSeries = store->seriesCount();
    assignColors();
    for (int i = 0; i < store->seriesCount(); ++i) {
        const QString &metric = store->data(i).key().metric;
        if (!m_knownMetrics.contains(metric)) {
            m_knownMetrics.insert(metric);
            m_metric->addItem(metric);
            if (metricPanelOf(metric).section != MetricPanel::System) {
                m_xAxis->addItem(metric);
                m_xAxis->setItemData(m_xAxis->count() - 1, metric, kXMetricRole);
                m_xAxis->setItemData(m_xAxis->count() - 1, tr("Each run's metrics against its %1").arg(metric),
                                     Qt::ToolTipRole);
                if (metric == m_pendingXMetric) { // the workspace's x axis, now that a run has it
                    const QScopedValueRollback applying(m_applyingSettings, true);
                    setXAxis(XAxisMode::Metric, metric);
                }
            }
        }
    }
    applyGroups(); // runs new to the chart join their groups
    if (m_metric->currentIndex() == Panels)
        applyMetricChoice();
    else
        applyXAxis();
}

void LossChartPanel::exportTo(bool png)
{
    const QString path = QFileDialog::getSaveFileName(
        this, png ? tr("Export chart as PNG") : tr("Export points as CSV"), png ? u"loss.png"_s : u"loss.csv"_s,
        png ? tr("PNG image (*.png)") : tr("CSV (*.csv)"));
    if (path.isEmpty())
        return;
    if (const auto written = png ? m_chart->exportPng(path) : m_chart->exportCsv(path); !written)
        QMessageBox::warning(this, tr("Export failed"), written.error().toString());
}

// Group [No groups | each differing parameter | Tags | Sweep | Experiment] [Mean | Median] [± std | min–max]
// [Ungroup].
void LossChartPanel::createGroupControls()
{
    m_groupBy = new QComboBox(this);
    m_groupBy->setObjectName(u"groupBy"_s);
    m_groupBy->setToolTip(tr("Draw the runs in groups, each one line (mean or median) with a band over its runs"));
    m_groupStatistic = new QComboBox(this);
    m_groupStatistic->setObjectName(u"groupStatistic"_s);
    m_groupStatistic->addItem(tr("Mean"), int(GroupStatistic::Mean));
    m_groupStatistic->addItem(tr("Median"), int(GroupStatistic::Median));
    m_groupStatistic->setToolTip(tr("Each group's line: the mean or the median of its runs at each x"));
    m_groupBand = new QComboBox(this);
    m_groupBand->setObjectName(u"groupBand"_s);
    m_groupBand->addItem(tr("± std"), int(run::Band::Std));
    m_groupBand->addItem(tr("min–max"), int(run::Band::MinMax));
    m_groupBand->setToolTip(tr("Each group's band: mean ± standard deviation, or min to max of its runs"));
    m_ungroup = new QToolButton(this);
    m_ungroup->setObjectName(u"ungroup"_s);
    m_ungroup->setText(tr("Ungroup"));
    m_ungroup->setToolTip(tr("Draw each run again"));
    m_groupBy->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_groupBy->setMinimumContentsLength(8);
    updateGroupChoices();
    connect(m_groupBy, &QComboBox::currentIndexChanged, this, [this] {
        applyGroups();
        saveSettings();
    });
    connect(m_groupStatistic, &QComboBox::currentIndexChanged, this, [this] {
        const auto statistic = GroupStatistic(m_groupStatistic->currentData().toInt());
        forEachChart([statistic](LossChart *c) { c->setGroupStatistic(statistic); });
        saveSettings();
    });
    connect(m_groupBand, &QComboBox::currentIndexChanged, this, [this] {
        const auto band = run::Band(m_groupBand->currentData().toInt());
        forEachChart([band](LossChart *c) { c->setGroupBand(band); });
        saveSettings();
    });
    connect(m_ungroup, &QToolButton::clicked, this, [this] { setGroupBy({}); });
    applyGroups();
}

// "No groups", each parameter whose value differs among the runs (one missing it counts), the
// tags, the sweep and the experiment; the current choice is kept (and listed, if no run differs
// in it now).
void LossChartPanel::updateGroupChoices()
{
    const QString current = m_groupBy->currentData().toString();
    QStringList params;
    QHash<QString, QSet<QString>> values; // parameter -> its values ("\x1f" for none)
    for (const run::RunRecord &r : std::as_const(m_runFacts)) {
        const QHash<QString, QString> mine = m_runParams.value(r.id);
        for (auto it = mine.cbegin(); it != mine.cend(); ++it) {
            if (!values.contains(it.key()))
                params << it.key();
            values[it.key()];
        }
    }
    for (const QString &name : std::as_const(params)) {
        for (const run::RunRecord &r : std::as_const(m_runFacts))
            values[name].insert(m_runParams.value(r.id).value(name, u"\x1f"_s));
    }
    std::sort(params.begin(), params.end());
    QStringList choices{QString()};
    for (const QString &name : std::as_const(params)) {
        if (values.value(name).size() > 1)
            choices << u"hp."_s + name;
    }
    choices << u"tag"_s << u"sweep"_s << u"experiment"_s;
    if (!choices.contains(current))
        choices.insert(1, current);
    if (choices == groupChoices())
        return; // as listed: an open list is left alone
    const QSignalBlocker block(m_groupBy);
    m_groupBy->clear();
    for (const QString &choice : std::as_const(choices)) {
        QString text = choice.isEmpty()            ? tr("No groups")
                       : choice == "tag"_L1        ? tr("Tags")
                       : choice == "sweep"_L1      ? tr("Sweep")
                       : choice == "experiment"_L1 ? tr("Experiment")
                                                   : choice.mid(3);
        m_groupBy->addItem(text, choice);
    }
    m_groupBy->setCurrentIndex(std::max(0, m_groupBy->findData(current)));
}

QStringList LossChartPanel::groupChoices() const
{
    QStringList choices;
    for (int i = 0; i < m_groupBy->count(); ++i)
        choices << m_groupBy->itemData(i).toString();
    return choices;
}

void LossChartPanel::setRunFacts(const QList<run::RunRecord> &runs,
                                 const QHash<QString, QHash<QString, QString>> &params)
{
    if (runs == m_runFacts && params == m_runParams)
        return; // the window gives them again on each refresh of the table
    m_runFacts = runs;
    m_runParams = params;
    updateGroupChoices();
    applyGroups();
}

void LossChartPanel::setGroupBy(const QString &text)
{
    if (m_groupBy->findData(text) < 0) { // a parameter no run shown differs in (yet)
        const QSignalBlocker block(m_groupBy);
        m_groupBy->insertItem(1, text.startsWith("hp."_L1) ? text.mid(3) : text, text);
    }
    m_groupBy->setCurrentIndex(m_groupBy->findData(text));
}

QString LossChartPanel::groupBy() const
{
    return m_groupBy->currentData().toString();
}

void LossChartPanel::setGroupStatistic(GroupStatistic statistic)
{
    m_groupStatistic->setCurrentIndex(m_groupStatistic->findData(int(statistic)));
}

void LossChartPanel::setGroupBand(run::Band band)
{
    m_groupBand->setCurrentIndex(m_groupBand->findData(int(band)));
}

// The runs of the store in groups by core's rule (run::groupRuns, from the facts given), to
// every panel; runs without facts are grouped as runs without the key.
void LossChartPanel::applyGroups()
{
    const QString text = groupBy();
    const bool grouped = !text.isEmpty();
    m_groupStatistic->setVisible(grouped);
    m_groupBand->setVisible(grouped);
    m_ungroup->setVisible(grouped);
    QList<ChartGroup> groups;
    const auto by = run::GroupBy::parse(text);
    if (grouped && by) {
        QHash<QString, const run::RunRecord *> facts;
        for (const run::RunRecord &r : std::as_const(m_runFacts))
            facts.insert(r.id, &r);
        QList<run::RunRecord> records;
        QHash<QString, QString> values;
        for (const QString &id : storeRuns()) {
            const run::RunRecord *r = facts.value(id);
            run::RunRecord bare;
            bare.id = id;
            records << (r ? *r : bare);
            if (const auto it = m_runParams.constFind(id); it != m_runParams.cend() && it->contains(by->name))
                values.insert(id, it->value(by->name));
        }
        const QList<run::RunGroup> runGroups = run::groupRuns(records, *by, values);
        const QList<QColor> colors = groupColors(runGroups.size());
        for (qsizetype i = 0; i < runGroups.size(); ++i)
            groups << ChartGroup{runGroups[i].key, runGroups[i].label, runGroups[i].runIds, colors[i]};
    }
    forEachChart([&groups](LossChart *c) { c->setGroups(groups); });
}

ChartSettings LossChartPanel::settings() const
{
    ChartSettings s;
    s.groupBy = groupBy();
    s.median = GroupStatistic(m_groupStatistic->currentData().toInt()) == GroupStatistic::Median;
    s.minMaxBand = run::Band(m_groupBand->currentData().toInt()) == run::Band::MinMax;
    if (!m_pendingXMetric.isEmpty()) {
        s.xAxis = u"metrics."_s + m_pendingXMetric;
    } else if (const QVariant metric = m_xAxis->currentData(kXMetricRole); metric.isValid()) {
        s.xAxis = u"metrics."_s + metric.toString();
    } else {
        static const QHash<int, QString> names{{int(XAxisMode::Step), u"step"_s},
                                               {int(XAxisMode::Epoch), u"epoch"_s},
                                               {int(XAxisMode::WallTime), u"time"_s},
                                               {int(XAxisMode::Clock), u"wall"_s}};
        s.xAxis = names.value(m_xAxis->currentData().toInt(), u"step"_s);
    }
    s.logX = m_logX->isChecked();
    s.logY = m_logY->isChecked();
    s.smoothing = m_smoothing->value();
    s.hiddenPanels = QStringList(m_hiddenPanels.cbegin(), m_hiddenPanels.cend());
    s.hiddenPanels.sort();
    return s;
}

void LossChartPanel::applySettings(const ChartSettings &s)
{
    const QScopedValueRollback applying(m_applyingSettings, true);
    setGroupBy(s.groupBy);
    setGroupStatistic(s.median ? GroupStatistic::Median : GroupStatistic::Mean);
    setGroupBand(s.minMaxBand ? run::Band::MinMax : run::Band::Std);
    m_logX->setChecked(s.logX);
    m_logY->setChecked(s.logY);
    m_smoothing->setValue(s.smoothing);
    m_pendingXMetric.clear();
    if (s.xAxis.startsWith("metrics."_L1)) {
        const QString metric = s.xAxis.mid(8);
        setXAxis(XAxisMode::Metric, metric);
        if (m_xAxis->currentData(kXMetricRole).toString() != metric)
            m_pendingXMetric = metric; // chosen once a run shows it (updateMetrics)
    } else {
        static const QHash<QString, XAxisMode> modes{
            {u"epoch"_s, XAxisMode::Epoch}, {u"time"_s, XAxisMode::WallTime}, {u"wall"_s, XAxisMode::Clock}};
        setXAxis(modes.value(s.xAxis, XAxisMode::Step));
    }
    const QSet<QString> hidden(s.hiddenPanels.cbegin(), s.hiddenPanels.cend());
    if (hidden != m_hiddenPanels) {
        m_hiddenPanels = hidden;
        updateHiddenButton();
        m_groups.clear();
        applyMetricChoice();
    }
}

Expected<void> LossChartPanel::setSettingsFile(const QString &path)
{
    m_settingsFile.clear(); // nothing written while the file's settings are applied
    const auto read = readChartSettings(path);
    applySettings(read ? *read : ChartSettings{});
    m_settingsFile = path;
    if (!read)
        return read.error();
    return {};
}

// Best effort, as the runs' colours: a choice not kept is made again.
void LossChartPanel::saveSettings()
{
    if (m_settingsFile.isEmpty() || m_applyingSettings)
        return;
    (void)writeChartSettings(m_settingsFile, settings());
}

} // namespace ferry::ui
