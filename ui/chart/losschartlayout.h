// Where the loss chart's plot, legend and ticks are, shared by its painting and its mouse handling.
#pragma once

// Where the loss chart's parts are for the current size and view; shared by its painting
// (losschart.cpp) and its mouse handling (losschartinput.cpp).
#include "ui/chart/chartaxis.h"
#include "ui/chart/losschart.h"

#include <QRect>

#include <vector>

namespace ferry::ui {

// The space between the chart's parts (title, legend, plot, labels), in pixels.
inline constexpr int kLossChartGap = 6;
// How opaque a group's band is, in the plot and in its legend entry.
inline constexpr double kGroupBandAlpha = 0.28;

// One entry of the legend: a run (its colour, its label; a click hides or shows it), a metric's
// line style (when the chart draws several; grouped, always, with the statistic drawn), a group
// of runs (its colour, "lr=0.01 (n=3)"; a click hides or shows it), or the entries that did not fit.
struct LossChart::LegendEntry {
    enum Kind { Run, Metric, More, Group } kind = Run;
    QString key;  // the run id, the metric, or the group's key
    QString text; // as drawn: elided only when one entry is wider than the whole legend
    QRect rect;
    int style = 0; // Metric: its index (metricPenStyle)
    QColor color;  // Group: its colour
};

struct LossChart::Layout {
    QRect plot, legend, title;
    std::vector<LegendEntry> entries;
    QStringList moreRuns;                  // the runs "+N more" stands for
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1; // axis units (log10 of the value on a log axis)
    AxisTicks xTicks, yTicks;
    bool empty = true;
};

} // namespace ferry::ui
