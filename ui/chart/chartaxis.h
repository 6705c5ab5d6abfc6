// Chooses an axis's tick positions and labels: "nice" 1-2-5 steps on linear axes, decades on log
// axes.
#pragma once

#include <QString>

#include <vector>

namespace ferry::ui {

// Tick positions and their labels along one axis.
struct AxisTicks {
    std::vector<double> values; // in axis units (log10 of the value on a log axis)
    std::vector<QString> labels;
};

// "Nice" steps: 1, 2 or 5 times a power of ten, so that [lo, hi] gets at most maxTicks ticks.
double niceStep(double span, int maxTicks);
// Ticks at multiples of a 1-2-5 step inside [lo, hi], labelled with as many decimals as the
// step needs (and exponent notation for very large or small numbers).
AxisTicks linearTicks(double lo, double hi, int maxTicks);
// For a log axis, lo and hi in log10 units: ticks at powers of ten (every n-th decade when
// there are many), with 2 and 5 in between when the range spans few decades.
AxisTicks logTicks(double lo, double hi, int maxTicks);
// Seconds: steps of 1-2-5 s below a minute, then 1, 2, 5, 10, 15, 30 min, then hours; labels
// as 45 s, 12:30 (m:ss) or 1:05:00 (h:mm:ss).
AxisTicks timeTicks(double lo, double hi, int maxTicks);
// A value as a tooltip shows it: 4 significant digits, exponent when far from 1.
QString formatValue(double value);

} // namespace ferry::ui
