// SeriesPainter: draws the chart's series, finished ones from a cached layer redrawn off-thread
// when the view moves.
#pragma once

#include "ui/chart/seriespath.h"

#include <QColor>
#include <QElapsedTimer>
#include <QFuture>
#include <QFutureWatcher>
#include <QHash>
#include <QImage>
#include <QThreadPool>

#include <functional>
#include <vector>

class QPainter;

namespace ferry::ui {

// `color` at `alpha` over `background`, as an opaque colour: translucent pens and fills send
// the raster engine to its slow, threaded blending path.
QColor opaqueBlend(const QColor &color, qreal alpha, const QColor &background);

// A series as the chart draws it: which one, its run and colour, and how its raw x maps to the axis.
struct DrawnSeries {
    int id = -1;
    QString runId;
    QColor color;
    int metricIndex = 0; // its line style: metricPenStyle(metricIndex)
    double origin = 0;   // raw x at axis 0
    double unit = 1;     // raw x per axis unit
    int xSeries = -1;    // XAxisMode::Metric: the series of the run whose values are x

    friend bool operator==(const DrawnSeries &, const DrawnSeries &) = default;
};

// The line style of the i-th metric of a chart: solid, dashed, dotted, dash-dot, dash-dot-dot,
// then again.
Qt::PenStyle metricPenStyle(int metricIndex);

// What a series is drawn from: its points by the chart's x (view()), or against its x series.
SeriesView seriesView(SeriesStore &store, const DrawnSeries &s, XAxisMode x, double smoothing);

// How the plot area looks; everything in device pixels.
struct PlotStyle {
    QRect device;     // the plot area
    PlotMapping base; // axis units to device pixels
    XAxisMode x = XAxisMode::Step;
    double smoothing = 0;
    QString highlightRun; // drawn thicker, on top
    QColor background, grid;
    std::vector<int> gridColumns, gridRows;

    friend bool operator==(const PlotStyle &, const PlotStyle &) = default;
};

// Paints the plot area: background, grid and every series (M4 polylines, 1-px aliased lines).
//
// Series that have not changed for a while are kept in a cached layer (transparent where no
// series is), so a frame with a few live series among many finished runs blits the layer and
// draws only the live ones. When only the view moves (pan, zoom, the automatic range growing),
// the new layer is drawn on another thread while frames show the last layer moved and scaled
// to the new view, with the live series drawn exactly; the exact picture follows within a few
// frames, and no frame waits for tens of millions of points. Other changes (series shown or
// hidden, smoothing, log axis) rebuild the layer before the frame.
class SeriesPainter {
public:
    SeriesPainter();
    ~SeriesPainter();
    SeriesPainter(const SeriesPainter &) = delete;
    SeriesPainter &operator=(const SeriesPainter &) = delete;

    // exact: the frame must show the exact picture (export, tests), so a layer is drawn now
    // if needed; otherwise a view change may be shown from the last layer for a few frames.
    void paint(QPainter &p, SeriesStore &store, const std::vector<DrawnSeries> &series, const PlotStyle &style,
               bool exact = false);
    // Draws the series in order (raw faint plus smoothed when smoothing > 0). Their polylines
    // are computed in parallel (the summaries are read only), then drawn one by one.
    static void drawSeries(QPainter &p, SeriesStore &store, const std::vector<const DrawnSeries *> &series,
                           const PlotStyle &style);

    // Called on the painter's thread when a layer drawn in the background is ready to show.
    void setLayerReady(std::function<void()> callback) { m_ready = std::move(callback); }
    // True while a layer being drawn in the background reads series `id`: its points must stay
    // pending in the store until then (SeriesStore::drain's hold).
    bool reads(int id) const;
    // Waits for the layer being drawn, before something changes what it reads (the store, the
    // smoothing, the x axis).
    void finishLayer();
    // Forgets the layer and what was seen (a new store).
    void reset();
    // How many times the cached layer was drawn (benchmarks, tests).
    int layerBuilds() const { return m_builds; }
    // Whether the last frame showed the exact picture, not a moved layer.
    bool lastFrameExact() const { return m_lastExact; }

private:
    struct Seen {
        qsizetype size = -1;
        qint64 changedMs = 0;
    };
    // What a layer was drawn for: the style parts that change its pixels, and each series with
    // its size then.
    struct LayerKey {
        QRect device;
        PlotMapping base;
        XAxisMode x = XAxisMode::Step;
        double smoothing = 0;
        QString highlightRun;
        std::vector<std::pair<DrawnSeries, qsizetype>> series;

        friend bool operator==(const LayerKey &, const LayerKey &) = default;
    };
    struct Layer {
        QImage image; // ARGB32_Premultiplied, transparent where no series is
        LayerKey key;
    };
    struct Job;

    static std::vector<Job> prepare(SeriesStore &store, const std::vector<const DrawnSeries *> &series,
                                    const PlotStyle &style);
    // pool: where the polylines are computed (nullptr: the global pool).
    static void render(QPainter &p, std::vector<Job> &jobs, const PlotStyle &style, QThreadPool *pool);
    static Layer drawLayer(std::vector<Job> jobs, const PlotStyle &style, LayerKey key, QThreadPool *pool);
    static LayerKey keyFor(const PlotStyle &style);
    void adoptFinished();
    // Draws the layer over the background: in place, or moved and scaled to this view.
    void blitLayer(QPainter &p, const PlotStyle &style) const;
    bool previewable(const LayerKey &wanted, const std::vector<DrawnSeries> &shown) const;

    Layer m_layer;
    QThreadPool m_pool;    // one thread: the layer being drawn
    QThreadPool m_mapPool; // its polylines
    QFuture<Layer> m_pending;
    QFutureWatcher<Layer> m_watcher;
    LayerKey m_pendingKey;
    std::function<void()> m_ready;
    QHash<int, Seen> m_seen;
    QElapsedTimer m_clock;
    int m_builds = 0;
    bool m_building = false; // m_pending runs
    bool m_painted = false;  // a frame was painted since the last reset
    bool m_lastExact = true;
};

} // namespace ferry::ui
