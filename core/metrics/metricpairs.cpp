#include "metrics/metricpairs.h"

#include <cmath>

namespace ferry::run {

void pairByStep(const double *xSteps, const double *xValues, qsizetype xCount, const double *ySteps, qsizetype yCount,
                std::vector<qsizetype> &yIndex, std::vector<double> &x)
{
    qsizetype j = 0;     // x's points at steps <= the current y step are [0, j)
    qsizetype last = -1; // the last of them that has a step
    for (qsizetype i = 0; i < yCount; ++i) {
        const double step = ySteps[i];
        if (std::isnan(step))
            continue;
        for (; j < xCount && !(xSteps[j] > step); ++j) {
            if (!std::isnan(xSteps[j]))
                last = j;
        }
        if (last < 0 || std::isnan(xValues[last]))
            continue; // before x's first point, or no value there
        yIndex.push_back(i);
        x.push_back(xValues[last]);
    }
}

} // namespace ferry::run
