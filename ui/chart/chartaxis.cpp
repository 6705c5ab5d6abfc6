#include "ui/chart/chartaxis.h"

#include <QLocale>

#include <array>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString label(double value, double step)
{
    if (std::abs(value) < step * 1e-9)
        value = 0;
    const double magnitude = std::max(std::abs(value), step);
    if (magnitude >= 1e6 || magnitude < 1e-4)
        return QString::number(value, 'g', 3);
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    return QString::number(value, 'f', decimals);
}

QString clock(double seconds)
{
    const qint64 s = qint64(std::llround(seconds));
    const qint64 h = s / 3600, m = (s / 60) % 60, sec = s % 60;
    if (h > 0)
        return u"%1:%2:%3"_s.arg(h).arg(m, 2, 10, QChar(u'0')).arg(sec, 2, 10, QChar(u'0'));
    return u"%1:%2"_s.arg(m).arg(sec, 2, 10, QChar(u'0'));
}

} // namespace

double niceStep(double span, int maxTicks)
{
    if (!(span > 0) || !std::isfinite(span))
        return 1;
    const double raw = span / std::max(1, maxTicks);
    const double power = std::pow(10.0, std::floor(std::log10(raw)));
    for (const double m : {1.0, 2.0, 5.0, 10.0}) {
        if (m * power >= raw)
            return m * power;
    }
    return 10 * power;
}

AxisTicks linearTicks(double lo, double hi, int maxTicks)
{
    AxisTicks ticks;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return ticks;
    const double step = niceStep(hi - lo, maxTicks);
    for (double k = std::ceil(lo / step); k * step <= hi + step * 1e-9; k += 1) {
        const double v = k * step;
        ticks.values.push_back(v);
        ticks.labels.push_back(label(v, step));
    }
    return ticks;
}

AxisTicks logTicks(double lo, double hi, int maxTicks)
{
    AxisTicks ticks;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return ticks;
    const double decades = hi - lo;
    auto decadeLabel = [](int e) {
        if (e >= -3 && e <= 4)
            return QString::number(std::pow(10.0, e), 'g', 6);
        return u"1e%1"_s.arg(e);
    };
    if (decades * 3 <= maxTicks) {
        // 1, 2 and 5 of every decade.
        for (int e = int(std::floor(lo)); e <= int(std::ceil(hi)); ++e) {
            for (const double m : {1.0, 2.0, 5.0}) {
                const double v = e + std::log10(m);
                if (v < lo - 1e-9 || v > hi + 1e-9)
                    continue;
                ticks.values.push_back(v);
                ticks.labels.push_back(m == 1 ? decadeLabel(e) : QString::number(m * std::pow(10.0, e), 'g', 3));
            }
        }
        if (ticks.values.size() >= 2)
            return ticks;
        ticks = {};
        // Less than a decade: linear ticks of the values, placed on the log axis.
        const AxisTicks linear = linearTicks(std::pow(10.0, lo), std::pow(10.0, hi), maxTicks);
        for (std::size_t i = 0; i < linear.values.size(); ++i) {
            if (linear.values[i] > 0) {
                ticks.values.push_back(std::log10(linear.values[i]));
                ticks.labels.push_back(linear.labels[i]);
            }
        }
        return ticks;
    }
    const int every = std::max(1, int(std::ceil(decades / std::max(1, maxTicks))));
    for (int e = int(std::ceil(lo)); e <= int(std::floor(hi)); ++e) {
        if (e % every == 0) {
            ticks.values.push_back(e);
            ticks.labels.push_back(decadeLabel(e));
        }
    }
    return ticks;
}

AxisTicks timeTicks(double lo, double hi, int maxTicks)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return {};
    const double span = hi - lo;
    if (span / std::max(1, maxTicks) < 30) {
        AxisTicks ticks = linearTicks(lo, hi, maxTicks);
        if (hi >= 60) {
            for (std::size_t i = 0; i < ticks.values.size(); ++i)
                ticks.labels[i] = clock(ticks.values[i]);
        } else {
            for (auto &l : ticks.labels)
                l += u" s"_s;
        }
        return ticks;
    }
    static constexpr std::array<double, 12> steps = {60,   120,  300,   600,   900,   1800,
                                                     3600, 7200, 10800, 21600, 43200, 86400};
    double step = steps.back();
    for (const double s : steps) {
        if (span / s <= maxTicks) {
            step = s;
            break;
        }
    }
    if (span / step > maxTicks)
        step = niceStep(span / 86400, maxTicks) * 86400;
    AxisTicks ticks;
    for (double k = std::ceil(lo / step); k * step <= hi + 1e-9; k += 1) {
        ticks.values.push_back(k * step);
        ticks.labels.push_back(clock(k * step));
    }
    return ticks;
}

QString formatValue(double value)
{
    if (!std::isfinite(value))
        return QString::number(value);
    const double a = std::abs(value);
    if (a != 0 && (a >= 1e5 || a < 1e-3))
        return QString::number(value, 'e', 3);
    return QString::number(value, 'g', 4);
}

} // namespace ferry::ui
