#include "ui/chart/seriespath.h"

#include <algorithm>
#include <cmath>

namespace ferry::ui {

namespace {

// Far enough outside any plot, near enough for the rasteriser's fixed-point clipping.
constexpr double Limit = 1e6;

double clampPixel(double v)
{
    if (std::isnan(v))
        return v;
    return std::clamp(v, -Limit, Limit);
}

// First index in [lo, hi) where pred is false (pred holds on a prefix). Exponential search
// from lo: O(log d) for an answer d points away.
template <typename Pred> qsizetype gallop(qsizetype lo, qsizetype hi, Pred pred)
{
    qsizetype step = 1, probe = lo;
    while (probe < hi && pred(probe)) {
        lo = probe + 1;
        probe = lo + step;
        step <<= 1;
    }
    qsizetype end = std::min(hi, probe);
    while (lo < end) {
        const qsizetype mid = lo + (end - lo) / 2;
        if (pred(mid))
            lo = mid + 1;
        else
            end = mid;
    }
    return lo;
}

// First index in [lo, hi] where pred is false, knowing it is false at hi (or hi is the end):
// exponential search backwards from hi.
template <typename Pred> qsizetype gallopBack(qsizetype lo, qsizetype hi, Pred pred)
{
    qsizetype step = 1, probe = hi - 1;
    while (probe >= lo && !pred(probe)) {
        hi = probe;
        probe = hi - step;
        step <<= 1;
    }
    qsizetype from = std::max(lo, probe + 1);
    while (from < hi) {
        const qsizetype mid = from + (hi - from) / 2;
        if (pred(mid))
            from = mid + 1;
        else
            hi = mid;
    }
    return from;
}

// One column's points [b, e) as the rasteriser needs them. Within a column every segment is
// vertical, and a walk through rows that reaches min and max lights every row from the top one
// to just above the bottom one; the rest depends on Qt's cosmetic stroker, which carries state
// from segment to segment (it drops a repeated pixel, adds one where the direction turns, lights
// the bottom row where the walk turns there). So of the walk through the column's distinct rows
// r0, r1, ..., rk the first two and the last two are kept as they are (the turn from the line
// entering, the state the leaving line starts from) and the rows between are replaced by their
// min and max (the bottom row is lit where the walk turns there, which they reproduce). Rows
// repeated in a row are no-ops for the stroker; r1 and r(k-1) are found past them in O(log n)
// through the summary. At most 6 points per column; tst_m4summary checks the pixels.
template <typename Push>
qsizetype appendColumn(const SeriesView &v, const PlotMapping &m, double column, qsizetype b, qsizetype e, Push push)
{
    const double *y = v.y;
    const M4Summary &s = *v.summary;
    const bool positive = m.logY;
    const qsizetype f = s.firstValid(y, b, e, positive);
    if (f < 0)
        return e;
    push(column, y[f]);
    const qsizetype l = s.lastValid(y, f, e, positive);
    if (l == f)
        return e;
    auto otherRow = [&m, positive](double row) {
        return std::pair{[&m, row](double value) { return m.valid(value) && m.row(value) != row; },
                         [&m, row, positive](const YExtremes &ext) {
                             const double lo = positive ? ext.minPositive : ext.min;
                             return lo <= ext.max && (m.row(lo) != row || m.row(ext.max) != row);
                         }};
    };
    const auto [acceptF, mayHoldF] = otherRow(m.row(y[f]));
    const qsizetype f2 = s.findFirst(y, f + 1, l + 1, acceptF, mayHoldF);
    if (f2 < 0)
        return e; // one row only
    const auto [acceptL, mayHoldL] = otherRow(m.row(y[l]));
    const qsizetype l2 = s.findLast(y, f, l, acceptL, mayHoldL);
    if (l2 < f2) {
        // r0 ... r0 rk ... rk
        push(column, y[l]);
        return e;
    }
    push(column, y[f2]);
    if (f2 + 1 < l2) {
        const YExtremes ext = s.query(y, f2 + 1, l2);
        if (positive ? ext.hasPositive() : ext.hasFinite()) {
            push(column, positive ? ext.minPositive : ext.min);
            push(column, ext.max);
        }
    }
    push(column, y[l2]);
    push(column, y[l]);
    return e;
}

} // namespace

PlotMapping PlotMapping::fit(double x0, double x1, double y0, double y1, const QRect &pixels, bool logY, bool logX)
{
    PlotMapping m;
    m.logY = logY;
    m.logX = logX;
    const double xSpan = x1 > x0 ? x1 - x0 : 1;
    const double ySpan = y1 > y0 ? y1 - y0 : 1;
    // x0 lands in the middle of the first column, x1 in the middle of the last.
    m.xScale = (pixels.width() - 1) / xSpan;
    m.xOffset = pixels.left() + 0.5 - x0 * m.xScale;
    m.yScale = -(pixels.height() - 1) / ySpan;
    m.yOffset = pixels.top() + 0.5 - y1 * m.yScale;
    return m;
}

PlotMapping PlotMapping::forRawX(double origin, double unit) const
{
    PlotMapping m = *this;
    if (logX) { // the log of (x - origin) / unit: no linear fold
        m.xOrigin = origin;
        m.xUnit = unit;
        return m;
    }
    m.xScale = xScale / unit;
    m.xOffset = xOffset - origin * m.xScale;
    return m;
}

double PlotMapping::column(double x) const
{
    if (logX) {
        const double v = (x - xOrigin) / xUnit;
        return v > 0 ? clampPixel(std::floor(std::log10(v) * xScale + xOffset)) : -Limit;
    }
    return clampPixel(std::floor(x * xScale + xOffset));
}

double PlotMapping::row(double y) const
{
    const double f = logY ? std::log10(y) : y;
    return clampPixel(std::floor(f * yScale + yOffset));
}

bool PlotMapping::valid(double y) const
{
    return std::isfinite(y) && (!logY || y > 0);
}

double PlotMapping::yAt(double rowValue) const
{
    const double f = (rowValue + 0.5 - yOffset) / yScale;
    return logY ? std::pow(10.0, f) : f;
}

std::pair<qsizetype, qsizetype> visibleRange(const SeriesView &v, const PlotMapping &m, int left, int right)
{
    const double *x = v.x;
    const auto first = std::partition_point(x, x + v.size, [&](double xi) { return m.column(xi) < left; });
    const auto last = std::partition_point(first, x + v.size, [&](double xi) { return m.column(xi) <= right; });
    return {first - x, last - x};
}

void appendM4Polyline(const SeriesView &v, const PlotMapping &m, int left, int right, QPolygonF &out)
{
    if (v.size == 0)
        return;
    const double *x = v.x;
    const double *y = v.y;
    const M4Summary &s = *v.summary;
    const bool positive = m.logY;
    const auto [begin, end] = visibleRange(v, m, left, right);

    QPointF last(std::nan(""), std::nan(""));
    auto push = [&](double column, double value) {
        const QPointF p(column, m.row(value));
        if (p != last)
            out.append(p);
        last = p;
    };

    // The line that enters from the left (on a log x axis, not from x <= 0: nowhere on it).
    if (const qsizetype before = s.lastValid(y, 0, begin, positive); before >= 0 && m.validX(x[before]))
        push(m.column(x[before]), y[before]);
    qsizetype width = 1; // points in the last column: where the next one likely ends
    for (qsizetype b = begin; b < end;) {
        const double column = m.column(x[b]);
        auto inColumn = [&](qsizetype i) { return m.column(x[i]) <= column; };
        // Search from the guess outwards: a few probes on nearby cache lines, not a binary
        // search across the whole series.
        const qsizetype guess = std::min(end, b + width);
        const qsizetype e =
            guess < end && inColumn(guess) ? gallop(guess + 1, end, inColumn) : gallopBack(b + 1, guess, inColumn);
        width = e - b;
        b = appendColumn(v, m, column, b, e, push);
    }
    if (const qsizetype after = s.firstValid(y, end, v.size, positive); after >= 0) {
        push(m.column(x[after]), y[after]);
    } else if (const qsizetype final = s.lastValid(y, begin, end, positive); final >= 0) {
        // The stroker gives the end cap to the last segment even when it is empty: when the
        // polyline ends on a repeated pixel, so must this one.
        const qsizetype previous = s.lastValid(y, 0, final, positive);
        if (previous >= 0 && m.column(x[previous]) == m.column(x[final]) && m.row(y[previous]) == m.row(y[final]))
            out.append(out.constLast());
    }
}

} // namespace ferry::ui
