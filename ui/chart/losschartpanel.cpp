#include "ui/chart/losschartpanel.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QSlider>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <tuple>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {
// The metric box's first entries; then one entry per metric seen.
enum MetricChoice : int { Losses = 0, AllMetrics = 1 };
} // namespace

LossChartPanel::LossChartPanel(QWidget *parent)
    : QWidget(parent), m_chart(new LossChart(this)), m_metric(new QComboBox(this)), m_xAxis(new QComboBox(this)),
      m_logY(new QCheckBox(tr("Log y"), this)), m_smoothing(new QSlider(Qt::Horizontal, this)),
      m_smoothingValue(new QLabel(u"0.00"_s, this)), m_caption(new QLabel(this))
{
    m_caption->setObjectName(u"chartCaption"_s);
    m_caption->setForegroundRole(QPalette::PlaceholderText);
    m_caption->hide();
    // Losses first: one axis for a loss and a throughput of 100000 samples/s draws the loss flat.
    m_metric->addItem(tr("Losses"));
    m_metric->setItemData(Losses, tr("Every metric whose name ends in “loss”; all of them while there is none"),
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
    layout->addWidget(m_chart, 1);

    connect(m_metric, &QComboBox::currentIndexChanged, this, &LossChartPanel::applyMetricChoice);
    connect(m_xAxis, &QComboBox::currentIndexChanged, this,
            [this](int) { m_chart->setXAxisMode(XAxisMode(m_xAxis->currentData().toInt())); });
    connect(m_logY, &QCheckBox::toggled, m_chart, &LossChart::setLogY);
    connect(m_smoothing, &QSlider::valueChanged, this, [this](int value) {
        m_chart->setSmoothing(value / 100.0);
        m_smoothingValue->setText(QString::number(value / 100.0, 'f', 2));
    });
    connect(reset, &QToolButton::clicked, m_chart, &LossChart::resetZoom);
    connect(png, &QToolButton::clicked, this, [this] { exportTo(true); });
    connect(csv, &QToolButton::clicked, this, [this] { exportTo(false); });
    connect(m_chart, &LossChart::dataChanged, this, &LossChartPanel::updateMetrics);
}

void LossChartPanel::setStore(std::shared_ptr<SeriesStore> store)
{
    m_chart->setStore(std::move(store));
    updateMetrics();
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

void LossChartPanel::applyMetricChoice()
{
    const int index = m_metric->currentIndex();
    if (index == Losses) {
        QStringList losses;
        for (const QString &metric : std::as_const(m_knownMetrics)) {
            if (metric.endsWith(u"loss"_s, Qt::CaseInsensitive))
                losses << metric;
        }
        // The chart draws the first metric solid, the others dashed and dotted: the training loss first.
        const auto rank = [](const QString &name) {
            return std::tuple(name != u"loss"_s, !name.startsWith(u"train"_s), name);
        };
        std::sort(losses.begin(), losses.end(), [&](const QString &a, const QString &b) { return rank(a) < rank(b); });
        m_chart->setMetrics(losses);
    } else {
        m_chart->setMetrics(index <= AllMetrics ? QStringList() : QStringList{m_metric->itemText(index)});
    }
}

void LossChartPanel::updateMetrics()
{
    const auto &store = m_chart->store();
    if (!store)
        return;
    bool added = false;
    for (int i = 0; i < store->seriesCount(); ++i) {
        const QString &metric = store->data(i).key().metric;
        if (!m_knownMetrics.contains(metric)) {
            m_knownMetrics.append(metric);
            m_metric->addItem(metric);
            added = true;
        }
    }
    if (added && m_metric->currentIndex() == Losses)
        applyMetricChoice(); // a loss metric that just arrived is shown
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
