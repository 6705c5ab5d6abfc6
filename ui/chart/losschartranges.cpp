// The loss chart's series against its axes: which series it draws and at which x, their automatic
// x and y ranges, and the zoom.
#include "ui/chart/losschart.h"

#include "ui/chart/chartaxis.h"
#include "ui/chart/losschartlayout.h"
#include "ui/chart/seriespainter.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ferry::ui {

bool LossChart::seriesShown(const SeriesData &series) const
{
    if (series.size() == 0 || (!m_metrics.isEmpty() && !m_metrics.contains(series.key().metric)))
        return false;
    if (m_mode == XAxisMode::Metric)
        return series.key().metric != m_xMetric && m_store->find(series.key().runId, m_xMetric) >= 0;
    return m_mode != XAxisMode::Epoch || series.hasEpochs();
}

double LossChart::runOrigin(const QString &runId) const
{
    if (m_originsRevision != m_store->revision()) {
        m_runOrigins.clear();
        for (int i = 0; i < m_store->seriesCount(); ++i) {
            const SeriesData &d = m_store->data(i);
            if (d.size() == 0)
                continue;
            auto it = m_runOrigins.find(d.key().runId);
            if (it == m_runOrigins.end())
                m_runOrigins.insert(d.key().runId, double(d.firstWallMs()));
            else
                *it = std::min(*it, double(d.firstWallMs()));
        }
        m_originsRevision = m_store->revision();
    }
    return m_runOrigins.value(runId);
}

QHash<QString, int> LossChart::metricOrder() const
{
    // The metrics set, in their order (a panel's: the training quantity first); else as the
    // store has them.
    QHash<QString, int> order;
    for (const QString &metric : m_metrics)
        order.insert(metric, int(order.size()));
    if (!m_metrics.isEmpty() || !m_store)
        return order;
    for (int i = 0; i < m_store->seriesCount(); ++i) {
        const SeriesData &d = m_store->data(i);
        if (!order.contains(d.key().metric) && seriesShown(d))
            order.insert(d.key().metric, int(order.size()));
    }
    return order;
}

std::vector<DrawnSeries> LossChart::shownSeries() const
{
    std::vector<DrawnSeries> shown;
    if (!m_store)
        return shown;
    const QHash<QString, int> order = metricOrder();
    for (int i = 0; i < m_store->seriesCount(); ++i) {
        const SeriesData &d = m_store->data(i);
        if (!seriesShown(d) || m_hiddenRuns.contains(d.key().runId))
            continue;
        DrawnSeries s;
        s.id = i;
        s.runId = d.key().runId;
        s.color = runColor(s.runId);
        s.metricIndex = order.value(d.key().metric);
        if (m_mode == XAxisMode::WallTime) {
            s.origin = runOrigin(s.runId);
            s.unit = 1000;
        } else if (m_mode == XAxisMode::Clock) {
            s.unit = 1000;
        } else if (m_mode == XAxisMode::Metric) {
            s.xSeries = m_store->find(s.runId, m_xMetric);
        }
        shown.push_back(s);
    }
    return shown;
}

std::vector<DrawnSeries> LossChart::rangedSeries() const
{
    std::vector<DrawnSeries> shown = shownSeries();
    if (m_hiddenGroups.isEmpty())
        return shown;
    QSet<QString> hidden;
    for (const ChartGroup &group : m_groups) {
        if (!isGroupVisible(group.key))
            hidden.unite(QSet<QString>(group.runIds.begin(), group.runIds.end()));
    }
    std::erase_if(shown, [&hidden](const DrawnSeries &s) { return hidden.contains(s.runId); });
    return shown;
}

SeriesView LossChart::viewOf(const DrawnSeries &s, double smoothing) const
{
    return seriesView(*m_store, s, m_mode, smoothing);
}

double LossChart::toAxisX(const DrawnSeries &s, double raw) const
{
    const double v = (raw - s.origin) / s.unit;
    if (!logXShown())
        return v;
    return v > 0 ? std::log10(v) : -std::numeric_limits<double>::infinity();
}

double LossChart::toRawX(const DrawnSeries &s, double axis) const
{
    return s.origin + (logXShown() ? std::pow(10.0, axis) : axis) * s.unit;
}

bool LossChart::logXShown() const
{
    return m_logX && m_mode != XAxisMode::Clock; // the wall clock has no log axis
}

std::vector<int> LossChart::visibleSeries() const
{
    std::vector<int> ids;
    for (const DrawnSeries &s : shownSeries())
        ids.push_back(s.id);
    return ids;
}

std::vector<double> LossChart::drawnX(int series) const
{
    for (const DrawnSeries &s : shownSeries()) {
        if (s.id != series)
            continue;
        const SeriesView v = viewOf(s, 0);
        std::vector<double> x;
        for (qsizetype i = 0; i < v.size; ++i)
            x.push_back((v.x[i] - s.origin) / s.unit);
        return x;
    }
    return {};
}

ValueUnit LossChart::valueUnit() const
{
    const QStringList metrics = drawnMetrics();
    if (metrics.isEmpty())
        return ValueUnit::Plain;
    const ValueUnit unit = valueUnitOf(metrics.front());
    for (const QString &metric : metrics) {
        if (valueUnitOf(metric) != unit)
            return ValueUnit::Plain;
    }
    return unit;
}

std::pair<double, double> LossChart::autoX() const
{
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const DrawnSeries &s : rangedSeries()) {
        const SeriesView v = viewOf(s, 0);
        if (v.size == 0)
            continue;
        // On a log axis, from the first x above 0 (x is sorted).
        const double *first = logXShown() ? std::upper_bound(v.x, v.x + v.size, s.origin) : v.x;
        if (first == v.x + v.size)
            continue;
        lo = std::min(lo, toAxisX(s, *first));
        hi = std::max(hi, toAxisX(s, v.x[v.size - 1]));
    }
    if (!(lo <= hi))
        return {0, 1};
    if (lo == hi)
        return {lo - 0.5, hi + 0.5};
    return {lo, hi};
}

std::pair<double, double> LossChart::autoY(double xLo, double xHi) const
{
    YExtremes all;
    for (const DrawnSeries &s : rangedSeries()) {
        for (const double weight : {0.0, m_smoothing}) {
            const SeriesView v = viewOf(s, weight);
            const double *b = std::lower_bound(v.x, v.x + v.size, toRawX(s, xLo));
            const double *e = std::upper_bound(b, v.x + v.size, toRawX(s, xHi));
            all.merge(v.summary->query(v.y, b - v.x, e - v.x));
            if (weight == m_smoothing)
                break;
        }
    }
    double lo = m_logY ? std::log10(all.minPositive) : all.min;
    double hi = m_logY ? std::log10(all.max) : all.max;
    if (!(m_logY ? all.hasPositive() : all.hasFinite()))
        return m_logY ? std::pair{-1.0, 1.0} : std::pair{0.0, 1.0};
    if (lo == hi) {
        // A constant: a tenth of its size either side, so its ticks read it (0.001, not 0.0 on
        // -0.4..0.4); zero gets ±0.5.
        const double pad = m_logY ? 0.5 : lo != 0 ? std::abs(lo) * 0.1 : 0.5;
        return {lo - pad, hi + pad};
    }
    const double pad = (hi - lo) * 0.04;
    return {lo - pad, hi + pad};
}

std::pair<double, double> LossChart::xRange() const
{
    updateLayout();
    return {m_layout->x0, m_layout->x1};
}

std::pair<double, double> LossChart::yRange() const
{
    updateLayout();
    return {m_layout->y0, m_layout->y1};
}

void LossChart::setXRange(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    m_xView = {lo, hi};
    m_autoY.reset();
    changed(true);
    Q_EMIT viewChanged();
}

void LossChart::setYRange(double lo, double hi)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return;
    m_yView = {lo, hi};
    changed(true);
    Q_EMIT viewChanged();
}

void LossChart::resetZoom()
{
    forgetAutoRanges();
    m_xView.reset();
    m_yView.reset();
    changed(true);
    Q_EMIT viewChanged();
}

} // namespace ferry::ui
