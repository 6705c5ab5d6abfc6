// Chooses an axis's tick positions and labels: "nice" 1-2-5 steps on linear axes, decades on log
// axes, clock times on time axes, and a metric's unit (memory, percent) where its name says one.
#pragma once

#include <QString>

#include <vector>

namespace ferry::ui {

// Tick positions and their labels along one axis.
struct AxisTicks {
    std::vector<double> values; // in axis units (log10 of the value on a log axis)
    std::vector<QString> labels;
};

// What a metric's values are, from its name: memory in MiB (system/memory_rss_mib,
// system/gpu0/memory_used_mib), a percentage (…_percent), or a plain number.
enum class ValueUnit { Plain, MiB, Percent };
ValueUnit valueUnitOf(const QString &metric);

// "Nice" steps: 1, 2 or 5 times a power of ten, so that [lo, hi] gets at most maxTicks ticks.
double niceStep(double span, int maxTicks);
// Ticks at multiples of a 1-2-5 step inside [lo, hi], labelled with as many digits as tell
// neighbouring ticks apart (exponent notation for very large or small numbers). In MiB, the
// ticks are nice numbers of KiB, MiB or GiB, whichever the range reads best in, and say which.
AxisTicks linearTicks(double lo, double hi, int maxTicks, ValueUnit unit = ValueUnit::Plain);
// For a log axis, lo and hi in log10 units: ticks at powers of ten (every n-th decade when
// there are many), with 2 and 5 in between when the range spans few decades.
AxisTicks logTicks(double lo, double hi, int maxTicks);
// Seconds: steps of 1-2-5 s below a minute, then 1, 2, 5, 10, 15, 30 min, then hours; labels
// as 45 s, 12:30 (m:ss) or 1:05:00 (h:mm:ss). At least two ticks whenever lo < hi.
AxisTicks timeTicks(double lo, double hi, int maxTicks);
// Seconds since the Unix epoch, labelled as the local clock reads them (14:05, 14:05:30, or
// the date too when the range spans days). At least two ticks whenever lo < hi.
AxisTicks clockTicks(double lo, double hi, int maxTicks);
// A value as a tooltip shows it: 4 significant digits, exponent when far from 1; memory as
// KiB, MiB or GiB, percentages with their sign.
QString formatValue(double value, ValueUnit unit = ValueUnit::Plain);
// Seconds as a tooltip shows them: "4.25 s" under a minute, else "12:30" (m:ss) or "1:05:00".
QString formatDuration(double seconds);

} // namespace ferry::ui
