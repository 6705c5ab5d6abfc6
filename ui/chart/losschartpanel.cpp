#include "ui/chart/losschartpanel.h"

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
    connect(m_chart, &LossChart::groupVisibilityChanged, this, &LossChartPanel::showGroupEverywhere);
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

// A group hidden or shown in one panel's legend is so in all of them.
void LossChartPanel::showGroupEverywhere(const QString &key, bool visible)
{
    forEachChart([&](LossChart *c) { c->setGroupVisible(key, visible); });
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
    for (const QString &key : m_chart->hiddenGroups())
        chart->setGroupVisible(key, false);
    chart->setGroupStatistic(m_chart->groupStatistic());
    chart->setGroupBand(m_chart->groupBand());
    chart->setContextMenuPolicy(Qt::CustomContextMenu);
    chart->installEventFilter(this);
    connect(chart, &LossChart::runVisibilityChanged, this, &LossChartPanel::showRunEverywhere);
    connect(chart, &LossChart::groupVisibilityChanged, this, &LossChartPanel::showGroupEverywhere);
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

} // namespace ferry::ui
