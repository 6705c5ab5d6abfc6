#include "ui/chart/losschartpanel.h"

#include "ui/chart/metricgroups.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHash>
#include <QLabel>
#include <QMessageBox>
#include <QScrollArea>
#include <QSet>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
// The metric box's first entries; then one entry per metric seen.
enum MetricChoice : int { Panels = 0, AllMetrics = 1 };

constexpr int kPanelMinimumHeight = 230;
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
      m_logY(new QCheckBox(tr("Log y"), this)), m_smoothing(new QSlider(Qt::Horizontal, this)),
      m_smoothingValue(new QLabel(u"0.00"_s, this)), m_caption(new QLabel(this)), m_scroll(new QScrollArea(this)),
      m_grid(new QGridLayout)
{
    m_caption->setObjectName(u"chartCaption"_s);
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    m_caption->hide();
    // Panels: one axis for a loss and a throughput of 100000 samples/s would draw the loss flat.
    m_metric->addItem(tr("Panels"));
    m_metric->setItemData(Panels, tr("A panel per metric group, each with its own y range: losses first"),
                          Qt::ToolTipRole);
    m_metric->addItem(tr("All metrics"));
    m_xAxis->addItem(tr("Step"), int(XAxisMode::Step));
    m_xAxis->addItem(tr("Epoch"), int(XAxisMode::Epoch));
    m_xAxis->addItem(tr("Wall time"), int(XAxisMode::WallTime));
    m_smoothing->setRange(0, 99);
    m_smoothing->setToolTip(tr("EMA smoothing; the raw curve stays faint behind"));
    auto *reset = new QToolButton(this);
    reset->setText(tr("Reset zoom"));
    auto *png = new QToolButton(this);
    png->setText(tr("PNG…"));
    auto *csv = new QToolButton(this);
    csv->setText(tr("CSV…"));

    auto *controls = new QHBoxLayout;
    controls->addWidget(new QLabel(tr("Metric"), this));
    controls->addWidget(m_metric);
    controls->addWidget(new QLabel(tr("x"), this));
    controls->addWidget(m_xAxis);
    controls->addWidget(m_logY);
    controls->addWidget(new QLabel(tr("Smoothing"), this));
    controls->addWidget(m_smoothing, 1);
    controls->addWidget(m_smoothingValue);
    controls->addWidget(reset);
    controls->addWidget(png);
    controls->addWidget(csv);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(controls);
    layout->addWidget(m_caption);
    auto *grid = new QWidget(m_scroll);
    grid->setLayout(m_grid);
    m_grid->setContentsMargins(0, 0, 0, 0);
    m_grid->addWidget(m_chart, 0, 0, 1, 2);
    m_scroll->setWidget(grid);
    m_scroll->setWidgetResizable(true);
    m_scroll->setFrameShape(QFrame::NoFrame);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    layout->addWidget(m_scroll, 1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, &LossChartPanel::applyMetricChoice);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this, [this](int) {
        forEachChart([this](LossChart *c) { c->setXAxisMode(XAxisMode(m_xAxis->currentData().toInt())); });
    });
    connect(m_logY, &QCheckBox::toggled, this,
            [this](bool on) { forEachChart([on](LossChart *c) { c->setLogY(on); }); });
    connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
        forEachChart([value](LossChart *c) { c->setSmoothing(value / 100.0); });
        m_smoothingValue->setText(QString::number(value / 100.0, 'f', 2));
    });
    connect(reset, &QToolButton::clicked, this, [this] { forEachChart([](LossChart *c) { c->resetZoom(); }); });
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
    connect(png, &QToolButton::clicked, this, [this] { exportTo(true); });
    connect(csv, &QToolButton::clicked, this, [this] { exportTo(false); });
    connect(m_chart, &LossChart::dataChanged, this, &LossChartPanel::updateMetrics);
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

QList<LossChart *> LossChartPanel::panels() const
{
    QList<LossChart *> shown{m_chart};
    shown << m_others.mid(0, m_shownOthers);
    return shown;
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
    chart->setXAxisMode(m_chart->xAxisMode());
    chart->setLogY(m_chart->logY());
    chart->setSmoothing(m_chart->smoothing());
    chart->setStore(m_chart->store());
    chart->setPinnedRun(m_chart->pinnedRun());
    connect(chart, &LossChart::runVisibilityChanged, this, &LossChartPanel::showRunEverywhere);
    m_others << chart;
    return chart;
}

// The first group in the first panel, the others two by two below it; one panel alone fills
// the area.
void LossChartPanel::layOutPanels(const QList<QStringList> &groups)
{
    m_chart->setMetrics(groups.value(0));
    const int others = int(groups.size()) - 1;
    while (m_others.size() < others)
        addPanel();
    for (int i = 0; i < m_others.size(); ++i) {
        LossChart *chart = m_others[i];
        m_grid->removeWidget(chart);
        if (i >= others) {
            chart->hide();
            continue;
        }
        chart->setMetrics(groups[i + 1]);
        for (const QString &run : m_chart->legendRuns())
            chart->setRunLabel(run, m_chart->runLabel(run));
        m_grid->addWidget(chart, 1 + i / 2, i % 2);
        chart->show();
    }
    m_shownOthers = std::max(0, others);
    m_chart->setMinimumHeight(m_shownOthers > 0 ? kPanelMinimumHeight + 60 : 0);
}

void LossChartPanel::applyMetricChoice()
{
    const int index = m_metric->currentIndex();
    if (index != Panels) {
        m_groups.clear();
        layOutPanels({index == AllMetrics ? QStringList() : QStringList{m_metric->itemText(index)}});
        return;
    }
    // The groups of the metrics the store has now, by section, then as they came. Each metric
    // once, looked up in a set: linear in the series (review M6: a run of 200,000 names).
    QList<std::pair<MetricPanel, QStringList>> groups;
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
            groups[*it].second << metric;
        }
    }
    std::stable_sort(groups.begin(), groups.end(),
                     [](const auto &a, const auto &b) { return a.first.section < b.first.section; });
    QList<QStringList> metrics;
    for (auto &[panel, names] : groups) {
        sortForDrawing(names);
        metrics << names;
    }
    if (metrics.isEmpty())
        metrics << QStringList{};
    if (metrics.size() > kMostPanels)
        metrics.resize(kMostPanels);
    if (metrics == m_groups)
        return; // as drawn: setting the same metrics again would redraw every panel
    m_groups = metrics;
    layOutPanels(metrics);
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
    for (int i = 0; i < store->seriesCount(); ++i) {
        const QString &metric = store->data(i).key().metric;
        if (!m_knownMetrics.contains(metric)) {
            m_knownMetrics.insert(metric);
            m_metric->addItem(metric);
        }
    }
    if (m_metric->currentIndex() == Panels)
        applyMetricChoice();
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
