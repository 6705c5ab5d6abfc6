// Pairs a metric's points with another metric of the same run at the same step: one metric
// plotted against another (loss against tokens seen, accuracy against epoch).
#pragma once

#include <QtGlobal>

#include <vector>

namespace ferry::run {

// For each point of y (its steps sorted, as a series is kept) the value of x at its step: the
// last point of x at that very step, else the last one before it (x logged less often than y,
// e.g. once an epoch, holds until its next point). A y point before x's first, or whose x is
// NaN, is left out. Appends to `yIndex` the index of each y point kept and to `x` its x value;
// O(yCount + xCount). xSteps must be sorted too.
void pairByStep(const double *xSteps, const double *xValues, qsizetype xCount, const double *ySteps, qsizetype yCount,
                std::vector<qsizetype> &yIndex, std::vector<double> &x);

} // namespace ferry::run
