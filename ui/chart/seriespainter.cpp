#include "ui/chart/seriespainter.h"

#include "ui/chart/runcolors.h"

#include <QPainter>
#include <QtConcurrent/QtConcurrentMap>

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

void SeriesPainter::drawSeries(QPainter &p, SeriesStore &store, const std::vector<const DrawnSeries *> &series,
                               const PlotStyle &style)
{
    struct Job {
        const DrawnSeries *series;
        PlotMapping mapping;
        SeriesView raw, shown;
        QPolygonF rawLine, line;
    };
    std::vector<Job> jobs;
    jobs.reserve(series.size());
    for (const DrawnSeries *s : series) {
        // view() brings the summaries up to date: here, on this thread, before the parallel part.
        SeriesData &d = store.data(s->id);
        Job job{s, style.base.forRawX(s->origin, s->unit), {}, {}, {}, {}};
        if (style.smoothing > 0)
            job.raw = d.view(style.byWall, 0);
        job.shown = d.view(style.byWall, style.smoothing);
        jobs.push_back(std::move(job));
    }
    const int left = style.device.left(), right = style.device.right();
    auto polylines = [&](Job &job) {
        if (style.smoothing > 0)
            appendM4Polyline(job.raw, job.mapping, left, right, job.rawLine);
        appendM4Polyline(job.shown, job.mapping, left, right, job.line);
    };
    if (jobs.size() > 1)
        QtConcurrent::blockingMap(jobs, polylines);
    else
        std::for_each(jobs.begin(), jobs.end(), polylines);

    for (const Job &job : jobs) {
        const QColor color = runColor(job.series->runId);
        QPen pen(color, job.series->runId == style.highlightRun ? 2 : 1);
        pen.setCapStyle(Qt::SquareCap);
        if (job.series->metricIndex > 0)
            pen.setStyle(job.series->metricIndex == 1 ? Qt::DashLine : Qt::DotLine);
        if (style.smoothing > 0) {
            QPen raw = pen;
            raw.setColor(opaqueBlend(color, 0.25, style.background));
            p.setPen(raw);
            p.drawPolyline(job.rawLine);
        }
        p.setPen(pen);
        p.drawPolyline(job.line);
    }
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
        std::vector<const DrawnSeries *> settled;
        for (const DrawnSeries &s : series) {
            const Seen &seen = m_seen[s.id];
            if (now - seen.changedMs < SettleMs)
                continue;
            settled.push_back(&s);
            m_layerSeries.emplace_back(s.id, seen.size);
        }
        drawSeries(lp, store, settled, style);
        m_layerStyle = style;
        ++m_builds;
    }
    p.drawImage(style.device.topLeft(), m_layer);
    p.save();
    p.setClipRect(style.device);
    std::vector<const DrawnSeries *> live;
    for (const DrawnSeries &s : series) {
        if (!inLayer(s.id))
            live.push_back(&s);
    }
    drawSeries(p, store, live, style);
    p.restore();
}

} // namespace ferry::ui
