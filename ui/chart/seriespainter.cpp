#include "ui/chart/seriespainter.h"

#include <QPainter>
#include <QThread>
#include <QtConcurrent/QtConcurrentMap>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <array>
#ifdef Q_OS_LINUX
#include <sys/resource.h>
#include <unistd.h>
#endif
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

// Threads that draw a layer in the background run at nice 5, so on a busy machine the GUI
// thread (frames) gets about three times their share of a core. Once per thread.
void yieldToTheGuiThread()
{
#ifdef Q_OS_LINUX
    thread_local bool lowered = false;
    if (!lowered) {
        setpriority(PRIO_PROCESS, static_cast<id_t>(gettid()), 5);
        lowered = true;
    }
#endif
}

// The affine map of one axis from an old mapping's pixels to a new one's: pixel u of the old
// view shows what pixel u * scale + shift shows in the new one.
struct AxisMove {
    double scale = 1, shift = 0;
    double to(double u) const { return u * scale + shift; }
    double from(double v) const { return (v - shift) / scale; }
};

AxisMove moveOf(double oldScale, double oldOffset, double newScale, double newOffset)
{
    const double scale = newScale / oldScale;
    return {scale, newOffset - oldOffset * scale};
}

// Whether a polyline is one point inside the plot: a series drawn as no line at all.
bool isLonePoint(const QPolygonF &line, const QRect &plot)
{
    if (line.isEmpty() || !plot.contains(line.first().toPoint()))
        return false;
    return std::all_of(line.begin(), line.end(), [&line](const QPointF &p) { return p == line.first(); });
}

} // namespace

struct SeriesPainter::Job {
    DrawnSeries series;
    PlotMapping mapping;
    SeriesView raw, shown;
    QPolygonF rawLine, line;
};

Qt::PenStyle metricPenStyle(int metricIndex)
{
    static constexpr std::array<Qt::PenStyle, 5> styles = {Qt::SolidLine, Qt::DashLine, Qt::DotLine, Qt::DashDotLine,
                                                           Qt::DashDotDotLine};
    return styles[std::size_t(std::max(0, metricIndex)) % styles.size()];
}

SeriesView seriesView(SeriesStore &store, const DrawnSeries &s, XAxisMode x, double smoothing)
{
    SeriesData &d = store.data(s.id);
    if (s.xSeries >= 0)
        return d.pairedView(store.data(s.xSeries), smoothing);
    return d.view(x, smoothing);
}

QColor opaqueBlend(const QColor &color, qreal alpha, const QColor &background)
{
    auto mixed = [&](int c, int b) { return int(std::lround(b + (c - b) * alpha)); };
    return QColor(mixed(color.red(), background.red()), mixed(color.green(), background.green()),
                  mixed(color.blue(), background.blue()));
}

SeriesPainter::SeriesPainter()
{
    m_pool.setMaxThreadCount(1);
    // The layer's polylines are computed on threads of their own: frames drawn meanwhile use
    // the global pool for the live series and never queue behind them.
    m_mapPool.setMaxThreadCount(QThread::idealThreadCount());
    QObject::connect(&m_watcher, &QFutureWatcherBase::finished, &m_watcher, [this] {
        if (m_ready)
            m_ready();
    });
}

SeriesPainter::~SeriesPainter()
{
    finishLayer();
    m_pool.waitForDone();
    m_mapPool.waitForDone();
}

std::vector<SeriesPainter::Job>
SeriesPainter::prepare(SeriesStore &store, const std::vector<const DrawnSeries *> &series, const PlotStyle &style)
{
    std::vector<Job> jobs;
    jobs.reserve(series.size());
    for (const DrawnSeries *s : series) {
        // view() brings the summaries up to date: here, on the store's thread, so that what
        // follows only reads.
        Job job{*s, style.base.forRawX(s->origin, s->unit), {}, {}, {}, {}};
        if (style.smoothing > 0)
            job.raw = seriesView(store, *s, style.x, 0);
        job.shown = seriesView(store, *s, style.x, style.smoothing);
        jobs.push_back(std::move(job));
    }
    return jobs;
}

void SeriesPainter::render(QPainter &p, std::vector<Job> &jobs, const PlotStyle &style, QThreadPool *pool)
{
    const int left = style.device.left(), right = style.device.right();
    auto polylines = [&](Job &job) {
        if (pool)
            yieldToTheGuiThread(); // a layer's own threads
        if (style.smoothing > 0)
            appendM4Polyline(job.raw, job.mapping, left, right, job.rawLine);
        appendM4Polyline(job.shown, job.mapping, left, right, job.line);
    };
    if (jobs.size() > 1)
        QtConcurrent::blockingMap(pool ? pool : QThreadPool::globalInstance(), jobs, polylines);
    else
        std::for_each(jobs.begin(), jobs.end(), polylines);

    for (const Job &job : jobs) {
        const QColor color = job.series.color;
        QPen pen(color, job.series.runId == style.highlightRun ? 2 : 1);
        pen.setCapStyle(Qt::SquareCap);
        pen.setStyle(metricPenStyle(job.series.metricIndex));
        if (style.smoothing > 0) {
            QPen raw = pen;
            raw.setColor(opaqueBlend(color, 0.25, style.background));
            p.setPen(raw);
            p.drawPolyline(job.rawLine);
        }
        p.setPen(pen);
        p.drawPolyline(job.line);
        // A series of one point (a value logged once) has no line: a dot shows it.
        if (isLonePoint(job.line, style.device)) {
            const QPointF at = job.line.first();
            p.fillRect(QRectF(at.x() - 2, at.y() - 2, 5, 5), color);
        }
    }
}

void SeriesPainter::drawSeries(QPainter &p, SeriesStore &store, const std::vector<const DrawnSeries *> &series,
                               const PlotStyle &style)
{
    std::vector<Job> jobs = prepare(store, series, style);
    render(p, jobs, style, nullptr);
}

SeriesPainter::Layer SeriesPainter::drawLayer(std::vector<Job> jobs, const PlotStyle &style, LayerKey key,
                                              QThreadPool *pool)
{
    if (pool)
        yieldToTheGuiThread();
    Layer layer{QImage(style.device.size(), QImage::Format_ARGB32_Premultiplied), std::move(key)};
    // Opaque aliased lines on a transparent layer: blitted over the background, every pixel is
    // what drawing them on the background gives.
    layer.image.fill(Qt::transparent);
    QPainter lp(&layer.image);
    lp.translate(-style.device.topLeft());
    render(lp, jobs, style, pool);
    return layer;
}

SeriesPainter::LayerKey SeriesPainter::keyFor(const PlotStyle &style)
{
    return {style.device, style.base, style.x, style.smoothing, style.highlightRun, {}};
}

void SeriesPainter::adoptFinished()
{
    if (!m_building || !m_pending.isFinished())
        return;
    m_layer = m_pending.result();
    m_pending = {};
    m_building = false;
}

void SeriesPainter::finishLayer()
{
    if (m_building)
        m_pending.waitForFinished();
    adoptFinished();
}

void SeriesPainter::reset()
{
    finishLayer();
    m_layer = {};
    m_seen.clear();
    m_painted = false;
}

bool SeriesPainter::reads(int id) const
{
    return m_building && std::any_of(m_pendingKey.series.begin(), m_pendingKey.series.end(),
                                     [id](const auto &e) { return e.first.id == id || e.first.xSeries == id; });
}

bool SeriesPainter::previewable(const LayerKey &wanted, const std::vector<DrawnSeries> &shown) const
{
    const LayerKey &had = m_layer.key;
    if (m_layer.image.isNull() || had.x != wanted.x || had.smoothing != wanted.smoothing ||
        had.highlightRun != wanted.highlightRun || had.base.logY != wanted.base.logY)
        return false;
    // Every series in the layer must still be drawn the same way (a hidden run must go now).
    return std::all_of(had.series.begin(), had.series.end(), [&shown](const auto &e) {
        return std::find(shown.begin(), shown.end(), e.first) != shown.end();
    });
}

void SeriesPainter::blitLayer(QPainter &p, const PlotStyle &style) const
{
    if (m_layer.image.isNull())
        return;
    const LayerKey &had = m_layer.key;
    if (had.device == style.device && had.base == style.base) {
        p.drawImage(style.device.topLeft(), m_layer.image);
        return;
    }
    // Only the view moved: the old layer, moved and scaled, until the new one is drawn. The
    // part of it that lands in the plot area, so that deep zooms stay cheap.
    const AxisMove mx = moveOf(had.base.xScale, had.base.xOffset, style.base.xScale, style.base.xOffset);
    const AxisMove my = moveOf(had.base.yScale, had.base.yOffset, style.base.yScale, style.base.yOffset);
    if (!(mx.scale > 0) || !(my.scale > 0) || !std::isfinite(mx.shift) || !std::isfinite(my.shift))
        return;
    const QRectF plot(style.device);
    QRectF source(QPointF(mx.from(plot.left()), my.from(plot.top())),
                  QPointF(mx.from(plot.right() + 1), my.from(plot.bottom() + 1)));
    source &= QRectF(had.device);
    if (source.isEmpty())
        return;
    const QRectF target(QPointF(mx.to(source.left()), my.to(source.top())),
                        QPointF(mx.to(source.right()), my.to(source.bottom())));
    p.save();
    p.setClipRect(style.device);
    p.drawImage(target, m_layer.image, source.translated(-had.device.topLeft()));
    p.restore();
}

void SeriesPainter::paint(QPainter &p, SeriesStore &store, const std::vector<DrawnSeries> &series,
                          const PlotStyle &style, bool exact)
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
            seen.changedMs = seen.size < 0 && !m_painted ? now - SettleMs : now;
            seen.size = size;
        }
    }
    m_painted = true;
    adoptFinished();

    LayerKey wanted = keyFor(style);
    std::vector<const DrawnSeries *> settled;
    for (const DrawnSeries &s : series) {
        const Seen &seen = m_seen[s.id];
        if (now - seen.changedMs < SettleMs)
            continue;
        settled.push_back(&s);
        wanted.series.emplace_back(s, seen.size);
    }
    if (m_layer.image.isNull() || !(m_layer.key == wanted)) {
        if (exact || !previewable(wanted, series)) {
            finishLayer();
            if (m_layer.image.isNull() || !(m_layer.key == wanted)) {
                m_layer = drawLayer(prepare(store, settled, style), style, wanted, nullptr);
                ++m_builds;
            }
        } else if (!m_building) {
            // The summaries are brought up to date here; while the layer is drawn the store
            // holds back new points of its series (reads()), so the other thread only reads.
            std::vector<Job> jobs = prepare(store, settled, style);
            m_pendingKey = wanted;
            m_pending = QtConcurrent::run(&m_pool, [this, jobs = std::move(jobs), style, wanted]() mutable {
                return drawLayer(std::move(jobs), style, std::move(wanted), &m_mapPool);
            });
            m_building = true;
            m_watcher.setFuture(m_pending);
            ++m_builds;
        }
        // Otherwise a layer is being drawn: the frame after it lands starts the next one.
    }
    m_lastExact = m_layer.key == wanted;

    drawBackground(p, style);
    blitLayer(p, style);
    // Live series, and layer series that have grown since, drawn exactly on top.
    std::vector<const DrawnSeries *> live;
    for (const DrawnSeries &s : series) {
        const qsizetype size = m_seen[s.id].size;
        const bool inLayer = std::any_of(m_layer.key.series.begin(), m_layer.key.series.end(),
                                         [&](const auto &e) { return e.first == s && e.second == size; });
        if (!inLayer)
            live.push_back(&s);
    }
    p.save();
    p.setClipRect(style.device);
    drawSeries(p, store, live, style);
    p.restore();
}

} // namespace ferry::ui
