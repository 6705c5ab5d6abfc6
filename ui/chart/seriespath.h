// Maps series data onto the device's pixel grid and builds the per-column M4 polylines the chart
// draws.
#pragma once

#include "ui/chart/seriesstore.h"

#include <QPolygonF>
#include <QRect>

namespace ferry::ui {

// Maps data to the device pixel grid, as the rasteriser would: x to a pixel column, y (or
// log10 y) to a pixel row, both rounded to whole pixels. Both maps are monotone, so the
// extreme rows of a column's points are the rows of its extreme values.
struct PlotMapping {
    double xScale = 1, xOffset = 0;  // column = floor(g(x) * xScale + xOffset), g = log10 on a log x axis
    double yScale = -1, yOffset = 0; // row = floor(f(y) * yScale + yOffset), f = log10 on a log axis
    bool logY = false;
    // A log x axis: raw x is first made axis units, (x - xOrigin) / xUnit; x <= 0 lies far left.
    bool logX = false;
    double xOrigin = 0, xUnit = 1;

    // x in [x0, x1] onto the columns of pixels, f(y) in [y0, y1] onto its rows (y1 on top).
    // On a log axis the range is log10 of it.
    static PlotMapping fit(double x0, double x1, double y0, double y1, const QRect &pixels, bool logY,
                           bool logX = false);
    // The same mapping for raw x values that are `origin + x * unit` (e.g. ms for seconds).
    PlotMapping forRawX(double origin, double unit) const;
    // Whether a raw x can be shown (on a log x axis: above 0).
    bool validX(double x) const { return !logX || (x - xOrigin) / xUnit > 0; }

    double column(double x) const;
    double row(double y) const;
    bool valid(double y) const;
    // Inverse of column / row (pixel to data; y in data units, not log10).
    double xAt(double column) const { return (column - xOffset + 0.5) / xScale; }
    double yAt(double row) const;

    friend bool operator==(const PlotMapping &, const PlotMapping &) = default;
};

// Appends to `out` the M4 polyline of v inside columns [left, right]: per pixel column its
// first, min, max and last point, plus one point beyond each edge so the lines leaving the
// plot are drawn. Points that cannot be shown (not finite; <= 0 on a log axis) are skipped.
// Drawn with a 1-px aliased pen it gives exactly the pixels of the polyline through every
// point, in O(columns * log n).
void appendM4Polyline(const SeriesView &v, const PlotMapping &m, int left, int right, QPolygonF &out);

// Index range [first, last) of the points of v in columns [left, right].
std::pair<qsizetype, qsizetype> visibleRange(const SeriesView &v, const PlotMapping &m, int left, int right);

} // namespace ferry::ui
