// The loss chart's groups of runs: each group's line and band at the plot's columns, by core's rule
// (analysis/curves.h), its legend entries and what hovering says.
#include "ui/chart/losschart.h"

#include "ui/chart/losschartlayout.h"

#include <QPainter>
#include <QSet>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// Each channel of a premultiplied pixel times f / 255, two channels a multiplication.
QRgb scaledPixel(QRgb pixel, uint f)
{
    quint32 rb = (pixel & 0x00ff00ffu) * f;
    quint32 ag = ((pixel >> 8) & 0x00ff00ffu) * f;
    rb = ((rb + ((rb >> 8) & 0x00ff00ffu) + 0x00800080u) >> 8) & 0x00ff00ffu;
    ag = ((ag + ((ag >> 8) & 0x00ff00ffu) + 0x00800080u) >> 8) & 0x00ff00ffu;
    return rb | (ag << 8);
}

// The runs of `group` whose series of `metric` are drawn, as curves over raw x with their origins:
// what core's aggregateAt reads, without a copy of a point.
struct GroupCurves {
    std::vector<run::CurveView> curves;
    std::vector<double> origins;
    double unit = 1; // raw x per axis unit (the same for every series of a chart)
};

GroupCurves groupCurves(SeriesStore &store, const std::vector<DrawnSeries> &shown, XAxisMode mode,
                        const QString &metric, const ChartGroup &group)
{
    const QSet<QString> members(group.runIds.begin(), group.runIds.end());
    GroupCurves c;
    for (const DrawnSeries &s : shown) {
        if (!members.contains(s.runId) || store.data(s.id).key().metric != metric)
            continue;
        const SeriesView v = seriesView(store, s, mode, 0); // the raw values: the numbers aggregate prints
        c.curves.push_back({v.x, v.y, v.size});
        c.origins.push_back(s.origin);
        c.unit = s.unit;
    }
    return c;
}

// The group's statistics at the given x (axis units: log10 of x on a log axis), core's rule
// evaluated at each; the statistics' x are the x themselves (not their log).
std::vector<run::GroupStats> groupStatsAt(const GroupCurves &c, std::span<const double> axisX, bool logX)
{
    std::vector<double> raw(axisX.begin(), axisX.end());
    for (double &x : raw)
        x = (logX ? std::pow(10.0, x) : x) * c.unit;
    std::vector<run::GroupStats> stats = run::aggregateAt(c.curves, raw, c.origins);
    for (std::size_t i = 0; i < stats.size(); ++i)
        stats[i].x = logX ? std::pow(10.0, axisX[i]) : axisX[i];
    return stats;
}

} // namespace

void LossChart::setGroups(const QList<ChartGroup> &groups)
{
    if (groups == m_groups)
        return;
    m_groups = groups;
    if (m_groups.isEmpty())
        m_groupPicture.clear(); // nothing drawn for groups any more
    // A hidden group stays hidden while a group of its key is set (new runs, a regroup by the same
    // key); the keys of another grouping start shown.
    m_hiddenGroups.removeIf([this](const QString &key) {
        return std::none_of(m_groups.begin(), m_groups.end(), [&key](const ChartGroup &g) { return g.key == key; });
    });
    changed(true);
}

void LossChart::setGroupVisible(const QString &key, bool visible)
{
    if (visible == isGroupVisible(key))
        return;
    forgetAutoRanges();
    if (visible)
        m_hiddenGroups.remove(key);
    else
        m_hiddenGroups.insert(key);
    changed(true);
    Q_EMIT groupVisibilityChanged(key, visible);
}

void LossChart::setGroupStatistic(GroupStatistic statistic)
{
    if (statistic == m_statistic)
        return;
    m_statistic = statistic;
    changed(true);
}

void LossChart::setGroupBand(run::Band band)
{
    if (band == m_band)
        return;
    m_band = band;
    changed(true);
}

QString LossChart::statisticText() const
{
    const QString line = m_statistic == GroupStatistic::Mean ? tr("mean") : tr("median");
    return m_band == run::Band::Std ? tr("%1 ± std").arg(line) : tr("%1, min–max").arg(line);
}

int LossChart::groupRunCount(const ChartGroup &group) const
{
    const QSet<QString> members(group.runIds.begin(), group.runIds.end());
    QSet<QString> drawn;
    for (const DrawnSeries &s : shownSeries()) {
        if (members.contains(s.runId))
            drawn.insert(s.runId);
    }
    return int(drawn.size());
}

void LossChart::updateGroupPicture(int columns)
{
    updateLayout();
    if (m_pictureGeneration == m_layoutGeneration && m_pictureColumns == columns)
        return;
    m_pictureGeneration = m_layoutGeneration;
    m_pictureColumns = columns;
    m_groupPicture.clear();
    if (!isGrouped() || !m_store || columns < 1)
        return;
    const std::vector<double> grid = run::evenGrid(m_layout->x0, m_layout->x1, columns);
    const std::vector<DrawnSeries> shown = shownSeries();
    for (const QString &metric : drawnMetrics()) {
        for (const ChartGroup &group : std::as_const(m_groups)) {
            if (!isGroupVisible(group.key))
                continue;
            const GroupCurves c = groupCurves(*m_store, shown, m_mode, metric, group);
            if (c.curves.empty())
                continue;
            DrawnGroup g{group.key, group.label, metric, group.color, int(c.curves.size()), {}, {}, {}, {}};
            g.stats = groupStatsAt(c, grid, logXShown());
            for (const run::GroupStats &s : g.stats) {
                const bool none = s.n == 0;
                const double nan = std::numeric_limits<double>::quiet_NaN();
                g.center.push_back(none ? nan : m_statistic == GroupStatistic::Mean ? s.mean : s.median);
                g.low.push_back(none ? nan : run::bandLow(s, m_band));
                g.high.push_back(none ? nan : run::bandHigh(s, m_band));
            }
            m_groupPicture.push_back(std::move(g));
        }
    }
}

// Bands first (every group's, translucent, so overlapping ones both show), then the lines on
// top; a column where no run of the group has a value breaks both. The bands are blended here
// into one image, blitted once, and a line is two 1-px aliased polylines a pixel apart: the
// raster engine's fast paths (a translucent fill per column, or a wide or antialiased polyline
// of thousands of points, takes its threaded blending path or its stroker: a hundred
// milliseconds a frame).
void LossChart::paintGroups(QPainter &p, const PlotStyle &style)
{
    updateGroupPicture(style.device.width());
    const QHash<QString, int> order = metricOrder();
    const int left = style.device.left();
    const PlotMapping &m = style.base;
    QImage bands(style.device.size(), QImage::Format_ARGB32_Premultiplied);
    bands.fill(Qt::transparent);
    const uint alpha = uint(std::lround(kGroupBandAlpha * 255));
    uchar *bits = bands.bits();
    const qsizetype stride = bands.bytesPerLine();
    for (const DrawnGroup &g : m_groupPicture) {
        // Source-over of a premultiplied colour at `alpha`: dst = src + dst × (255 − alpha) / 255.
        const QRgb src = qPremultiply(qRgba(g.color.red(), g.color.green(), g.color.blue(), int(alpha)));
        for (std::size_t i = 0; i < g.stats.size() && qsizetype(i) < bands.width(); ++i) {
            if (!m.valid(g.low[i]) || !m.valid(g.high[i]))
                continue;
            const int a = int(m.row(g.high[i])) - style.device.top(), b = int(m.row(g.low[i])) - style.device.top();
            const int top = std::max(0, std::min(a, b)), bottom = std::min(bands.height() - 1, std::max(a, b));
            for (int y = top; y <= bottom; ++y) {
                auto *px = reinterpret_cast<QRgb *>(bits + y * stride) + i;
                *px = src + scaledPixel(*px, 255 - alpha);
            }
        }
    }
    p.save();
    p.setClipRect(style.device);
    p.setRenderHint(QPainter::Antialiasing, false);
    p.drawImage(style.device.topLeft(), bands);
    // The group whose legend entry is hovered last, on top, a pixel thicker.
    std::vector<const DrawnGroup *> lines;
    for (const DrawnGroup &g : m_groupPicture)
        lines.push_back(&g);
    std::stable_partition(lines.begin(), lines.end(), [this](const DrawnGroup *g) { return m_hoverGroup != g->key; });
    for (const DrawnGroup *drawn : lines) {
        const DrawnGroup &g = *drawn;
        const int thickness = m_hoverGroup == g.key ? 3 : 2;
        QPen pen(g.color, 1);
        pen.setStyle(metricPenStyle(order.value(g.metric)));
        pen.setCapStyle(Qt::SquareCap);
        p.setPen(pen);
        const std::size_t n = g.center.size();
        for (std::size_t i = 0; i < n;) {
            if (!m.valid(g.center[i])) {
                ++i;
                continue;
            }
            QPolygonF line;
            for (; i < n && m.valid(g.center[i]); ++i)
                line << QPointF(left + double(i), m.row(g.center[i]));
            if (line.size() == 1) {
                p.fillRect(QRectF(line.first() - QPointF(2, 2), QSizeF(5, 5)), g.color);
                continue;
            }
            for (int dy = 0; dy < thickness; ++dy) // two pixels thick (three hovered): the group stands out
                p.drawPolyline(line.translated(0, dy));
        }
    }
    p.restore();
}

// Each metric with the statistic drawn ("val_loss: mean ± std"), then each group with its runs
// drawn here ("lr=0.01 (n=3)").
std::vector<LossChart::LegendEntry> LossChart::groupLegendEntries() const
{
    std::vector<LegendEntry> entries;
    const QHash<QString, int> order = metricOrder();
    for (const QString &metric : drawnMetrics())
        entries.push_back(
            {LegendEntry::Metric, metric, u"%1: %2"_s.arg(metric, statisticText()), {}, order.value(metric), {}});
    for (const ChartGroup &group : m_groups) {
        const int runs = groupRunCount(group);
        if (runs > 0)
            entries.push_back(
                {LegendEntry::Group, group.key, u"%1 (n=%2)"_s.arg(group.label).arg(runs), {}, 0, group.color});
    }
    return entries;
}

// What hovering at x says of each group: its line's value and band there, over how many runs.
QStringList LossChart::groupHoverLines(double x) const
{
    QStringList lines;
    const std::vector<DrawnSeries> shown = shownSeries();
    const QStringList metrics = drawnMetrics();
    const bool manyMetrics = metrics.size() > 1;
    for (const QString &metric : metrics) {
        for (const ChartGroup &group : m_groups) {
            if (!isGroupVisible(group.key))
                continue;
            const GroupCurves c = groupCurves(*m_store, shown, m_mode, metric, group);
            if (c.curves.empty())
                continue;
            const double at[]{x};
            const run::GroupStats s = groupStatsAt(c, at, logXShown()).front();
            if (s.n == 0)
                continue;
            const ValueUnit vu = valueUnitOf(metric);
            const double center = m_statistic == GroupStatistic::Mean ? s.mean : s.median;
            const QString name = manyMetrics ? group.label + u" · "_s + metric : group.label;
            lines << u"%1: %2 [%3 … %4] (n=%5)"_s
                         .arg(name, formatValue(center, vu), formatValue(run::bandLow(s, m_band), vu),
                              formatValue(run::bandHigh(s, m_band), vu))
                         .arg(s.n);
        }
    }
    return lines;
}

} // namespace ferry::ui
