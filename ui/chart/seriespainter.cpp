#include "ui/chart/seriespainter.h"

#include "ui/chart/runcolors.h"

#include <QPainter>

#include <algorithm>
#include <cmath>

namespace ferry::ui {

namespace {

// A series counts as finished, and goes into the cached layer, after this long without points.
constexpr qint64 SettleMs = 1000;

void drawBackground(QPainter &p, const PlotStyle &style)
{
    p.fillRect(style.device, style.background);
    // Opaque 1-px rectangles: translucent pens and fills take the raster engine's slow path.
    for (const int x : style.gridColumns)
        p.fillRect(QRect(x, style.device.top(), 1, style.device.height()), style.grid);
    for (const int y : style.gridRows)
        p.fillRect(QRect(style.device.left(), y, style.device.width(), 1), style.grid);
}

} // namespace

QColor opaqueBlend(const QColor &color, qreal alpha, const QColor &background)
{
    auto mixed = [&](int c, int b) { return int(std::lround(b + (c - b) * alpha)); };
    return QColor(mixed(color.red(), background.red()), mixed(color.green(), background.green()),
                  mixed(color.blue(), background.blue()));
}

void SeriesPainter::drawSeries(QPainter &p, SeriesStore &store, const DrawnSeries &s, const PlotStyle &style,
                               QPolygonF &line)
{
    SeriesData &d = store.data(s.id);
    const PlotMapping m = style.base.forRawX(s.origin, s.unit);
    const QColor color = runColor(s.runId);
    QPen pen(color, s.runId == style.highlightRun ? 2 : 1);
    pen.setCapStyle(Qt::SquareCap);
    if (s.metricIndex > 0)
        pen.setStyle(s.metricIndex == 1 ? Qt::DashLine : Qt::DotLine);
    const int left = style.device.left(), right = style.device.right();
    if (style.smoothing > 0) {
        QPen raw = pen;
        raw.setColor(opaqueBlend(color, 0.25, style.background));
        line.clear();
        appendM4Polyline(d.view(style.byWall, 0), m, left, right, line);
        p.setPen(raw);
        p.drawPolyline(line);
    }
    line.clear();
    appendM4Polyline(d.view(style.byWall, style.smoothing), m, left, right, line);
    p.setPen(pen);
    p.drawPolyline(line);
}

void SeriesPainter::paint(QPainter &p, SeriesStore &store, const std::vector<DrawnSeries> &series,
                          const PlotStyle &style)
{
    if (!m_clock.isValid())
        m_clock.start();
    const qint64 now = m_clock.elapsed();
    for (const DrawnSeries &s : series) {
        Seen &seen = m_seen[s.id];
        const qsizetype size = store.data(s.id).size();
        if (seen.size != size) {
            // What is there when the chart first paints counts as settled (usually finished
            // runs); a series that appears later is live until it stays unchanged.
            seen.changedMs = seen.size < 0 && m_builds == 0 ? now - SettleMs : now;
            seen.size = size;
        }
    }
    auto inLayer = [this](int id) {
        return std::any_of(m_layerSeries.begin(), m_layerSeries.end(), [id](const auto &e) { return e.first == id; });
    };
    bool rebuild = m_layer.isNull() || !(style == m_layerStyle);
    for (const auto &[id, size] : m_layerSeries) {
        const bool shown =
            std::any_of(series.begin(), series.end(), [id = id](const DrawnSeries &s) { return s.id == id; });
        if (!shown || store.data(id).size() != size)
            rebuild = true;
    }
    for (const DrawnSeries &s : series) {
        if (!inLayer(s.id) && now - m_seen[s.id].changedMs >= SettleMs)
            rebuild = true;
    }
    if (rebuild) {
        m_layer = QImage(style.device.size(), QImage::Format_RGB32);
        m_layerSeries.clear();
        QPainter lp(&m_layer);
        lp.translate(-style.device.topLeft());
        drawBackground(lp, style);
        for (const DrawnSeries &s : series) {
            const Seen &seen = m_seen[s.id];
            if (now - seen.changedMs < SettleMs)
                continue;
            drawSeries(lp, store, s, style, m_line);
            m_layerSeries.emplace_back(s.id, seen.size);
        }
        m_layerStyle = style;
        ++m_builds;
    }
    p.drawImage(style.device.topLeft(), m_layer);
    p.save();
    p.setClipRect(style.device);
    for (const DrawnSeries &s : series) {
        if (!inLayer(s.id))
            drawSeries(p, store, s, style, m_line);
    }
    p.restore();
}

} // namespace ferry::ui
