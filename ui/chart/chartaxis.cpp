#include "ui/chart/chartaxis.h"

#include <QDateTime>
#include <QLocale>

#include <array>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// A tick's label: as many digits as the step needs for neighbours to read differently.
QString label(double value, double step)
{
    if (std::abs(value) < step * 1e-9)
        value = 0;
    const double magnitude = std::max(std::abs(value), step);
    if (magnitude >= 1e6 || magnitude < 1e-4) {
        // Exponent notation, with the significant digits from the value's order down to the step's.
        const int digits = int(std::floor(std::log10(magnitude))) - int(std::floor(std::log10(step) + 1e-9)) + 1;
        return QString::number(value, 'g', std::clamp(digits, 2, 15));
    }
    const int decimals = std::max(0, int(std::ceil(-std::log10(step) - 1e-9)));
    return QString::number(value, 'f', std::min(decimals, 15));
}

QString clock(double seconds)
{
    const qint64 s = qint64(std::llround(seconds));
    const qint64 h = s / 3600, m = (s / 60) % 60, sec = s % 60;
    if (h > 0)
        return u"%1:%2:%3"_s.arg(h).arg(m, 2, 10, QChar(u'0')).arg(sec, 2, 10, QChar(u'0'));
    return u"%1:%2"_s.arg(m).arg(sec, 2, 10, QChar(u'0'));
}

// Multiples of `step` inside [lo, hi]; two ticks at least (lo and hi rounded) when none or one
// falls inside, so that a small panel always has labels.
std::vector<double> multiples(double lo, double hi, double step)
{
    std::vector<double> values;
    for (double k = std::ceil(lo / step - 1e-9); k * step <= hi + step * 1e-9; k += 1)
        values.push_back(k * step);
    return values;
}

// Time steps in seconds: 1-2-5 s, then whole minutes and hours as clocks have them.
constexpr std::array<double, 16> kTimeSteps = {1,   2,   5,   10,   15,   30,   60,    120,
                                               300, 600, 900, 1800, 3600, 7200, 10800, 21600};

// How many multiples of step lie in [lo, hi].
double countOf(double lo, double hi, double step)
{
    return std::floor(hi / step + 1e-9) - std::ceil(lo / step - 1e-9) + 1;
}

// The time step for [lo, hi]: the finest that gives at most maxTicks ticks and two at least;
// else (a narrow axis) the coarsest that gives two. 0: none of a whole second does.
double timeStep(double lo, double hi, int maxTicks)
{
    double twoAtLeast = 0;
    for (const double s : kTimeSteps) {
        const double count = countOf(lo, hi, s);
        if (count >= 2 && count <= maxTicks)
            return s;
        if (count >= 2)
            twoAtLeast = s;
    }
    const double days = niceStep((hi - lo) / 86400, maxTicks) * 86400;
    if (countOf(lo, hi, kTimeSteps.back()) > maxTicks && countOf(lo, hi, days) >= 2)
        return days;
    return twoAtLeast;
}

// The next 1-2-5 step below `step`.
double finerStep(double step)
{
    const double power = std::pow(10.0, std::floor(std::log10(step) + 1e-9));
    const double m = step / power;
    return m > 5.5 ? 5 * power : m > 2.5 ? 2 * power : m > 1.5 ? power : 0.5 * power;
}

} // namespace

ValueUnit valueUnitOf(const QString &metric)
{
    const QString name = metric.toLower();
    if (name.endsWith(u"_mib"_s))
        return ValueUnit::MiB;
    if (name.endsWith(u"_percent"_s) || name.endsWith(u"_pct"_s))
        return ValueUnit::Percent;
    return ValueUnit::Plain;
}

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

AxisTicks linearTicks(double lo, double hi, int maxTicks, ValueUnit unit)
{
    AxisTicks ticks;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return ticks;
    // Memory: ticks are nice numbers of the unit the larger end reads best in.
    double scale = 1;
    QString suffix;
    if (unit == ValueUnit::MiB) {
        const double largest = std::max(std::abs(lo), std::abs(hi));
        scale = largest < 1 ? 1024 : largest >= 1024 ? 1.0 / 1024 : 1;
        suffix = largest < 1 ? u" KiB"_s : largest >= 1024 ? u" GiB"_s : u" MiB"_s;
    } else if (unit == ValueUnit::Percent) {
        suffix = u" %"_s;
    }
    double step = niceStep((hi - lo) * scale, maxTicks);
    // A narrow panel asks for few ticks: a finer step where the nice one leaves one tick only.
    for (int finer = 0; finer < 3 && countOf(lo * scale, hi * scale, step) < 2; ++finer)
        step = finerStep(step);
    for (const double v : multiples(lo * scale, hi * scale, step)) {
        ticks.values.push_back(v / scale);
        ticks.labels.push_back(label(v, step) + suffix);
    }
    return ticks;
}

AxisTicks logTicks(double lo, double hi, int maxTicks)
{
    AxisTicks ticks;
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return ticks;
    const double decades = hi - lo;
    // 5000, 0.002 near 1; 2e5, 5e-6 far from it: one form along the axis.
    auto decadeLabel = [](int e, double m = 1) {
        if (e >= -3 && e <= 4)
            return QString::number(m * std::pow(10.0, e), 'g', 7);
        return u"%1e%2"_s.arg(m).arg(e);
    };
    if (decades * 3 <= maxTicks) {
        // 1, 2 and 5 of every decade.
        for (int e = int(std::floor(lo)); e <= int(std::ceil(hi)); ++e) {
            for (const double m : {1.0, 2.0, 5.0}) {
                const double v = e + std::log10(m);
                if (v < lo - 1e-9 || v > hi + 1e-9)
                    continue;
                ticks.values.push_back(v);
                ticks.labels.push_back(decadeLabel(e, m));
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
    maxTicks = std::max(2, maxTicks);
    const double step = timeStep(lo, hi, maxTicks);
    if (step == 0) {
        // Under a few seconds: tenths and hundredths of a second, as numbers of seconds.
        AxisTicks ticks = linearTicks(lo, hi, maxTicks);
        for (auto &l : ticks.labels)
            l += u" s"_s;
        return ticks;
    }
    AxisTicks ticks;
    for (const double v : multiples(lo, hi, step)) {
        ticks.values.push_back(v);
        ticks.labels.push_back(hi >= 60 ? clock(v) : label(v, step) + u" s"_s);
    }
    return ticks;
}

AxisTicks clockTicks(double lo, double hi, int maxTicks)
{
    if (!(hi > lo) || !std::isfinite(lo) || !std::isfinite(hi))
        return {};
    maxTicks = std::max(2, maxTicks);
    // Steps are whole seconds, minutes and hours of local time: ticks are found in local seconds.
    const qint64 offset = QDateTime::fromSecsSinceEpoch(qint64(lo)).offsetFromUtc();
    const double localLo = lo + double(offset), localHi = hi + double(offset);
    const double step = timeStep(localLo, localHi, maxTicks);
    const QString format = hi - lo >= 86400 ? u"MMM d HH:mm"_s : step >= 60 ? u"HH:mm"_s : u"HH:mm:ss"_s;
    AxisTicks ticks;
    if (step == 0) {
        // Under a second apart: seconds with their fractions, after the clock of the first.
        const AxisTicks linear = linearTicks(lo, hi, maxTicks);
        for (std::size_t i = 0; i < linear.values.size(); ++i) {
            ticks.values.push_back(linear.values[i]);
            const QDateTime at = QDateTime::fromMSecsSinceEpoch(qint64(std::llround(linear.values[i] * 1000)));
            ticks.labels.push_back(at.toString(u"HH:mm:ss.zzz"_s));
        }
        return ticks;
    }
    for (const double v : multiples(localLo, localHi, step)) {
        const double utc = v - double(offset);
        ticks.values.push_back(utc);
        ticks.labels.push_back(QDateTime::fromSecsSinceEpoch(qint64(std::llround(utc))).toString(format));
    }
    return ticks;
}

QString formatDuration(double seconds)
{
    if (!std::isfinite(seconds) || std::abs(seconds) < 60)
        return formatValue(seconds) + u" s"_s;
    return seconds < 0 ? u"-"_s + clock(-seconds) : clock(seconds);
}

QString formatValue(double value, ValueUnit unit)
{
    if (!std::isfinite(value))
        return QString::number(value);
    if (unit == ValueUnit::MiB)
        return QLocale::c().formattedDataSize(qint64(std::llround(value * 1024 * 1024)), 2, QLocale::DataSizeIecFormat);
    const double a = std::abs(value);
    const QString number =
        a != 0 && (a >= 1e5 || a < 1e-3) ? QString::number(value, 'e', 3) : QString::number(value, 'g', 4);
    return unit == ValueUnit::Percent ? number + u" %"_s : number;
}

} // namespace ferry::ui
