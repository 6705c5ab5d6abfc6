// A run's metric against step, wall time, time since start or another metric of the run.
#include "analysis/xaxis.h"

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace Qt::StringLiterals;

namespace ferry::run {

Expected<XAxis> XAxis::parse(const QString &text)
{
    const QString t = text.trimmed();
    if (t.isEmpty() || t == "step"_L1)
        return XAxis{};
    if (t == "wall"_L1)
        return XAxis{Kind::WallTime, {}};
    if (t == "time"_L1)
        return XAxis{Kind::RelativeTime, {}};
    const QString name = t.startsWith("metrics."_L1) ? t.mid(8) : t;
    if (name.isEmpty())
        return Error{u"x axis '%1': name the metric, metrics.NAME"_s.arg(text),
                     {},
                     0,
                     0,
                     u"step, wall, time or metrics.NAME (e.g. metrics.tokens_seen)"_s};
    return XAxis{Kind::Metric, name};
}

QString XAxis::text() const
{
    switch (kind) {
    case Kind::Step:
        return u"step"_s;
    case Kind::WallTime:
        return u"wall"_s;
    case Kind::RelativeTime:
        return u"time"_s;
    case Kind::Metric:
        break;
    }
    return u"metrics."_s + metric;
}

QString XAxis::label() const
{
    switch (kind) {
    case Kind::Step:
        return u"step"_s;
    case Kind::WallTime:
        return u"wall time"_s;
    case Kind::RelativeTime:
        return u"time since start (s)"_s;
    case Kind::Metric:
        break;
    }
    return metric;
}

namespace {

// The points' indices in line order: by step (stable) or by wall time (stable); on the step and
// metric axes without the points that have no step.
std::vector<std::size_t> lineOrder(const std::vector<SeriesPoint> &points, bool byTime)
{
    std::vector<std::size_t> order;
    order.reserve(points.size());
    for (std::size_t i = 0; i < points.size(); ++i) {
        if (byTime || !std::isnan(points[i].step))
            order.push_back(i);
    }
    if (byTime)
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return points[a].wallMs < points[b].wallMs; });
    else
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return points[a].step < points[b].step; });
    return order;
}

} // namespace

MetricAgainst metricAgainst(const std::vector<SeriesPoint> &points, const XAxis &axis,
                            const std::vector<SeriesPoint> &xPoints, qint64 startedMs)
{
    using Kind = XAxis::Kind;
    const bool byTime = axis.kind == Kind::WallTime || axis.kind == Kind::RelativeTime;
    const std::vector<std::size_t> order = lineOrder(points, byTime);
    MetricAgainst result;
    result.steps.reserve(order.size());
    result.x.reserve(order.size());
    result.y.reserve(order.size());
    double origin = 0;
    if (axis.kind == Kind::RelativeTime && !order.empty())
        origin = static_cast<double>(startedMs > 0 ? startedMs : points[order.front()].wallMs);
    const Curve xCurve = axis.kind == Kind::Metric ? stepCurve(xPoints) : Curve{};
    for (const std::size_t i : order) {
        const SeriesPoint &p = points[i];
        double x = p.step;
        if (axis.kind == Kind::WallTime) {
            x = static_cast<double>(p.wallMs);
        } else if (axis.kind == Kind::RelativeTime) {
            x = (static_cast<double>(p.wallMs) - origin) / 1000.0;
        } else if (axis.kind == Kind::Metric) {
            const auto joined = valueAt(xCurve.view(), p.step);
            if (!joined)
                continue;
            x = *joined;
        }
        result.steps.push_back(p.step);
        result.x.push_back(x);
        result.y.push_back(p.value);
    }
    return result;
}

MetricAgainst metricAgainst(const RunStore &store, const RunRecord &run, const QString &metric, const XAxis &axis)
{
    const std::vector<SeriesPoint> xPoints =
        axis.kind == XAxis::Kind::Metric ? store.series(run.id, axis.metric) : std::vector<SeriesPoint>{};
    return metricAgainst(store.series(run.id, metric), axis, xPoints, run.startedMs);
}

Curve curveOf(const MetricAgainst &points)
{
    return curveOf(std::span<const double>(points.x), std::span<const double>(points.y));
}

} // namespace ferry::run
