#pragma once

#include "ui/chart/seriespath.h"

#include <QColor>
#include <QElapsedTimer>
#include <QHash>
#include <QImage>

#include <vector>

class QPainter;

namespace ferry::ui {

// `color` at `alpha` over `background`, as an opaque colour: translucent pens and fills send
// the raster engine to its slow, threaded blending path.
QColor opaqueBlend(const QColor &color, qreal alpha, const QColor &background);

// A series as the chart draws it: which one, its run, and how its raw x maps to the axis.
struct DrawnSeries {
    int id = -1;
    QString runId;
    int metricIndex = 0; // 0 solid, 1 dashed, 2+ dotted
    double origin = 0;   // raw x at axis 0
    double unit = 1;     // raw x per axis unit
};

// How the plot area looks; everything in device pixels.
struct PlotStyle {
    QRect device;     // the plot area
    PlotMapping base; // axis units to device pixels
    bool byWall = false;
    double smoothing = 0;
    QString highlightRun; // drawn thicker, on top
    QColor background, grid;
    std::vector<int> gridColumns, gridRows;

    friend bool operator==(const PlotStyle &, const PlotStyle &) = default;
};

// Paints the plot area: background, grid and every series (M4 polylines, 1-px aliased lines).
//
// Series that have not changed for a while are kept in a cached layer, so a frame with a few
// live series among many finished runs blits the layer and draws only the live ones; anything
// that changes the picture (view, size, style, a cached series getting points) rebuilds it.
class SeriesPainter {
public:
    void paint(QPainter &p, SeriesStore &store, const std::vector<DrawnSeries> &series, const PlotStyle &style);
    // Draws the series in order (raw faint plus smoothed when smoothing > 0). Their polylines
    // are computed in parallel (the summaries are read only), then drawn one by one.
    static void drawSeries(QPainter &p, SeriesStore &store, const std::vector<const DrawnSeries *> &series,
                           const PlotStyle &style);
    // How many times the cached layer was rebuilt (benchmarks, tests).
    int layerBuilds() const { return m_builds; }

private:
    struct Seen {
        qsizetype size = -1;
        qint64 changedMs = 0;
    };

    QImage m_layer;
    PlotStyle m_layerStyle;
    std::vector<std::pair<int, qsizetype>> m_layerSeries; // id, size when drawn
    QHash<int, Seen> m_seen;
    QElapsedTimer m_clock;
    int m_builds = 0;
};

} // namespace ferry::ui
