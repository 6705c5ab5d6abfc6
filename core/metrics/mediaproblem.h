// How media's readers word what they refuse, shared by the index (media.cpp) and TensorBoard's
// encodings (tensorboardmedia.cpp); internal to core/metrics.
#pragma once

#include "common/error.h"

#include <QLocale>
#include <QString>

#include <cmath>
#include <limits>

namespace ferry::run::media {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// An item's problem as its Error: the reader's caller names the file and the item.
inline Error problem(const QString &message)
{
    return Error{message, {}, 0, 0, {}};
}

// Checks a histogram's buckets as they are read (before any is kept).
inline Error bucketProblem(const QString &what)
{
    using namespace Qt::StringLiterals;
    return problem(u"a histogram with %1"_s.arg(what));
}

// A number as an Error or a hyperparameter says it: a whole one without ".0", else the shortest
// text that reads back the same.
inline QString numberText(double x)
{
    if (std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9.0e15)
        return QString::number(qint64(x));
    return QString::number(x, 'g', QLocale::FloatingPointShortest);
}

} // namespace ferry::run::media
