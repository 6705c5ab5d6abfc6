#include "ui/analysis/plotaxis.h"

#include "ui/chart/chartaxis.h"

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

std::optional<double> PlotAxis::position(const QString &value) const
{
    if (!categories.isEmpty()) {
        const qsizetype i = categories.indexOf(value);
        if (i < 0)
            return std::nullopt;
        return (double(i) + 0.5) / double(categories.size());
    }
    bool ok = false;
    const double v = value.toDouble(&ok);
    return ok ? position(v) : std::nullopt;
}

std::optional<double> PlotAxis::position(double value) const
{
    if (!categories.isEmpty() || !std::isfinite(value) || (log && value <= 0))
        return std::nullopt;
    const double v = log ? std::log10(value) : value;
    if (hi <= lo)
        return 0.5;
    return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

std::optional<double> PlotAxis::position(const run::RunValue &value) const
{
    if (categories.isEmpty())
        return value.number ? position(*value.number) : std::nullopt;
    return position(value.text);
}

double PlotAxis::valueAt(double t) const
{
    const double v = lo + t * (hi - lo);
    return log ? std::pow(10.0, v) : v;
}

QString PlotAxis::title() const
{
    return log ? name + u" (log)"_s : name;
}

std::vector<PlotAxis::Tick> PlotAxis::ticks(int most, bool ends) const
{
    std::vector<Tick> ticks;
    if (!categories.isEmpty()) {
        // Every category while they fit, else every n-th: labels that do not overlap.
        const qsizetype n = categories.size();
        const qsizetype every = std::max<qsizetype>(1, (n + std::max(1, most) - 1) / std::max(1, most));
        for (qsizetype i = 0; i < n; ++i) {
            if (ends ? (i == 0 || i == n - 1) : i % every == 0)
                ticks.push_back({(double(i) + 0.5) / double(n), categories[i]});
        }
        return ticks;
    }
    if (hi <= lo) { // one value: in the middle
        ticks.push_back({0.5, formatValue(valueAt(0))});
        return ticks;
    }
    if (!marks.empty() && !ends) {
        for (const double v : marks) {
            if (const auto at = position(v))
                ticks.push_back({*at, formatValue(v)});
        }
        return ticks;
    }
    if (ends) {
        ticks.push_back({0, formatValue(valueAt(0))});
        ticks.push_back({1, formatValue(valueAt(1))});
        return ticks;
    }
    const AxisTicks axis = log ? logTicks(lo, hi, most) : linearTicks(lo, hi, most);
    for (std::size_t i = 0; i < axis.values.size(); ++i)
        ticks.push_back({(axis.values[i] - lo) / (hi - lo), axis.labels[i]});
    return ticks;
}

bool PlotAxis::canBeLog(const QList<run::RunValue> &values)
{
    return !values.isEmpty() && std::all_of(values.cbegin(), values.cend(),
                                            [](const run::RunValue &v) { return v.number && *v.number > 0; });
}

PlotAxis PlotAxis::fit(const QString &name, const QList<run::RunValue> &values, bool log)
{
    PlotAxis axis;
    axis.name = name;
    const bool numbers =
        std::all_of(values.cbegin(), values.cend(), [](const run::RunValue &v) { return v.number.has_value(); });
    if (!numbers) {
        // Text order, but numbers by value and before the words ("2" before "10" before "adam").
        QList<const run::RunValue *> sorted;
        for (const run::RunValue &v : values)
            sorted << &v;
        std::sort(sorted.begin(), sorted.end(), [](const run::RunValue *a, const run::RunValue *b) {
            if (a->number.has_value() != b->number.has_value())
                return a->number.has_value();
            if (a->number && *a->number != *b->number)
                return *a->number < *b->number;
            return a->text < b->text;
        });
        for (const run::RunValue *v : std::as_const(sorted)) {
            if (axis.categories.isEmpty() || axis.categories.last() != v->text)
                axis.categories << v->text;
        }
        axis.categories.removeDuplicates();
        return axis;
    }
    axis.log = log && canBeLog(values);
    bool any = false;
    for (const run::RunValue &v : values) {
        const double x = axis.log ? std::log10(*v.number) : *v.number;
        axis.lo = any ? std::min(axis.lo, x) : x;
        axis.hi = any ? std::max(axis.hi, x) : x;
        any = true;
    }
    if (!any) {
        axis.lo = 0;
        axis.hi = 1;
    }
    // A few whole numbers: marked where they are.
    std::vector<double> distinct;
    for (const run::RunValue &v : values) {
        if (*v.number != std::round(*v.number) || std::abs(*v.number) >= 1e15)
            return axis;
        if (std::find(distinct.cbegin(), distinct.cend(), *v.number) == distinct.cend())
            distinct.push_back(*v.number);
        if (distinct.size() > std::size_t(kMostMarks))
            return axis;
    }
    std::sort(distinct.begin(), distinct.end());
    if (distinct.size() > 1)
        axis.marks = std::move(distinct);
    return axis;
}

} // namespace ferry::ui
