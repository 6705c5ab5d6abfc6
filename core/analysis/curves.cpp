// Curves over x, the rule for a value between points, and a group's statistics at each x.
#include "analysis/curves.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ferry::run {

namespace {

constexpr double kCurvesNaN = std::numeric_limits<double>::quiet_NaN();

// Walks one curve along a non-decreasing x (a new smaller x starts it over): where it stands is
// the last point at or before x, found by galloping, so a walk over every point and one over a
// few columns are both cheap.
class CurveCursor {
public:
    explicit CurveCursor(CurveView curve) : m_c(curve)
    {
        while (m_begin < m_c.size && std::isnan(m_c.x[m_begin]))
            ++m_begin;
        m_i = m_begin - 1;
    }

    std::optional<double> at(double t)
    {
        if (t < m_t)
            m_i = m_begin - 1;
        m_t = t;
        advance(t);
        if (m_i < m_begin)
            return std::nullopt;
        const double x0 = m_c.x[m_i];
        const double y0 = m_c.y[m_i];
        if (x0 == t)
            return std::isfinite(y0) ? std::optional<double>(y0) : std::nullopt;
        const qsizetype j = m_i + 1;
        if (j >= m_c.size)
            return std::nullopt;
        qsizetype k = j; // of equal x the last is the run's value
        while (k + 1 < m_c.size && m_c.x[k + 1] == m_c.x[j])
            ++k;
        const double x1 = m_c.x[j];
        const double y1 = m_c.y[k];
        if (!std::isfinite(y0) || !std::isfinite(y1))
            return std::nullopt;
        return y0 + (y1 - y0) * (t - x0) / (x1 - x0);
    }

    // The first x after the one it stands at (+inf at the end); before the first call, the
    // curve's first x.
    double nextX() const
    {
        const qsizetype j = m_i + 1;
        return j < m_c.size ? m_c.x[j] : std::numeric_limits<double>::infinity();
    }

private:
    // Moves to the last index whose x <= t: first where the line from here to the last point puts
    // t, then galloping from that guess within what is known (x[m_i] <= t < x[last]). A curve on
    // a regular grid is found in a probe or two, whose memory is what a jump costs (32 runs of a
    // million points are half a gigabyte, mostly out of the caches).
    void advance(double t)
    {
        const double *x = m_c.x;
        const qsizetype last = m_c.size - 1;
        if (m_i < m_begin) {
            if (m_begin > last || !(x[m_begin] <= t))
                return;
            m_i = m_begin;
        }
        if (m_i == last)
            return;
        if (x[last] <= t) {
            m_i = last;
            return;
        }
        qsizetype a = m_i, b = last; // x[a] <= t < x[b]
        if (a + 1 == b)
            return;
        const double xa = x[a];
        qsizetype guess = a + 1;
        if (const double span = x[last] - xa; span > 0)
            guess =
                std::clamp<qsizetype>(a + static_cast<qsizetype>((t - xa) / span * double(last - a)), a + 1, last - 1);
        qsizetype step = 1;
        if (x[guess] <= t) {
            a = guess;
            for (qsizetype probe = a + step; probe < b; probe = a + step) {
                if (!(x[probe] <= t)) {
                    b = probe;
                    break;
                }
                a = probe;
                step *= 2;
            }
        } else {
            b = guess;
            for (qsizetype probe = b - step; probe > a; probe = b - step) {
                if (x[probe] <= t) {
                    a = probe;
                    break;
                }
                b = probe;
                step *= 2;
            }
        }
        m_i = std::upper_bound(x + a + 1, x + b, t) - x - 1;
    }

    CurveView m_c;
    qsizetype m_begin = 0;
    qsizetype m_i = -1;
    double m_t = -std::numeric_limits<double>::infinity();
};

} // namespace

Curve curveOf(std::span<const double> x, std::span<const double> y)
{
    const std::size_t n = std::min(x.size(), y.size());
    std::vector<std::size_t> order;
    order.reserve(n);
    bool sorted = true;
    for (std::size_t i = 0; i < n; ++i) {
        if (std::isnan(x[i]))
            continue;
        if (!order.empty() && x[i] < x[order.back()])
            sorted = false;
        order.push_back(i);
    }
    if (!sorted)
        std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return x[a] < x[b]; });
    Curve c;
    c.x.reserve(order.size());
    c.y.reserve(order.size());
    for (const std::size_t i : order) {
        if (!c.x.empty() && c.x.back() == x[i]) {
            c.y.back() = y[i];
            continue;
        }
        c.x.push_back(x[i]);
        c.y.push_back(y[i]);
    }
    return c;
}

Curve stepCurve(const std::vector<SeriesPoint> &points)
{
    LargeVector<double> x(points.size()), y(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        x[i] = points[i].step;
        y[i] = points[i].value;
    }
    return curveOf(x, y);
}

std::optional<double> valueAt(CurveView curve, double x)
{
    CurveCursor cursor(curve);
    return cursor.at(x);
}

double bandLow(const GroupStats &s, Band band)
{
    return band == Band::Std ? s.mean - s.std : s.min;
}

double bandHigh(const GroupStats &s, Band band)
{
    return band == Band::Std ? s.mean + s.std : s.max;
}

GroupStats statsOf(double x, std::span<double> values)
{
    GroupStats s;
    s.x = x;
    s.n = static_cast<int>(values.size());
    if (values.empty()) {
        s.mean = s.median = s.std = s.min = s.max = kCurvesNaN;
        return s;
    }
    double sum = 0;
    s.min = s.max = values[0];
    for (const double v : values) {
        sum += v;
        s.min = std::min(s.min, v);
        s.max = std::max(s.max, v);
    }
    s.mean = sum / s.n;
    double squares = 0;
    for (const double v : values)
        squares += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(squares / s.n);
    const auto middle = values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2);
    std::nth_element(values.begin(), middle, values.end());
    s.median = *middle;
    if (values.size() % 2 == 0) // the mean of the two middle values, as numpy.median
        s.median = (*std::max_element(values.begin(), middle) + s.median) / 2;
    return s;
}

void aggregate(std::span<const CurveView> curves, const std::function<void(const GroupStats &)> &sink)
{
    std::vector<CurveCursor> cursors(curves.begin(), curves.end());
    std::vector<double> values;
    values.reserve(curves.size());
    const auto next = [&] {
        double t = std::numeric_limits<double>::infinity();
        for (const CurveCursor &c : cursors)
            t = std::min(t, c.nextX());
        return t;
    };
    for (double t = next(); t < std::numeric_limits<double>::infinity(); t = next()) {
        values.clear();
        for (CurveCursor &c : cursors) {
            if (const auto v = c.at(t))
                values.push_back(*v);
        }
        sink(statsOf(t, values));
    }
}

std::vector<GroupStats> aggregate(std::span<const CurveView> curves)
{
    std::vector<GroupStats> result;
    aggregate(curves, [&](const GroupStats &s) { result.push_back(s); });
    return result;
}

std::vector<GroupStats> aggregateAt(std::span<const CurveView> curves, std::span<const double> xs,
                                    std::span<const double> origins)
{
    std::vector<CurveCursor> cursors(curves.begin(), curves.end());
    std::vector<double> values;
    values.reserve(curves.size());
    std::vector<GroupStats> result;
    result.reserve(xs.size());
    for (const double t : xs) {
        values.clear();
        for (std::size_t k = 0; k < cursors.size(); ++k) {
            if (const auto v = cursors[k].at(k < origins.size() ? t + origins[k] : t))
                values.push_back(*v);
        }
        result.push_back(statsOf(t, values));
    }
    return result;
}

std::vector<GroupStats> aggregateAt(std::span<const CurveView> curves, std::span<const double> xs)
{
    return aggregateAt(curves, xs, {});
}

std::vector<double> evenGrid(double x0, double x1, int columns)
{
    if (columns < 2)
        return {x0};
    std::vector<double> xs(static_cast<std::size_t>(columns));
    for (int i = 0; i < columns; ++i)
        xs[static_cast<std::size_t>(i)] = x0 + (x1 - x0) * i / (columns - 1);
    xs.back() = x1;
    return xs;
}

} // namespace ferry::run
