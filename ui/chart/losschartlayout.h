// Where the loss chart's plot, legend and ticks are, shared by its painting and its mouse handling.
#pragma once

// Where the loss chart's parts are for the current size and view; shared by its painting
// (losschart.cpp) and its mouse handling (losschartinput.cpp).
#include "ui/chart/chartaxis.h"
#include "ui/chart/losschart.h"

#include <QRect>

#include <vector>

namespace ferry::ui {

struct LossChart::Layout {
    QRect plot, legend;
    std::vector<std::pair<QString, QRect>> entries;
    double x0 = 0, x1 = 1, y0 = 0, y1 = 1; // axis units
    AxisTicks xTicks, yTicks;
    bool empty = true;
};

} // namespace ferry::ui
