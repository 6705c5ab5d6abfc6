#include "tracking/idlegpu.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

std::optional<int> gpuOfUtilizationMetric(const QString &metric)
{
    const QLatin1StringView prefix("system/gpu"), suffix("/utilization_percent");
    if (!metric.startsWith(prefix) || !metric.endsWith(suffix))
        return std::nullopt;
    const QStringView index = QStringView(metric).sliced(prefix.size(), metric.size() - prefix.size() - suffix.size());
    bool ok = false;
    const int gpu = index.toInt(&ok);
    return ok && gpu >= 0 && !index.startsWith(u'+') ? std::optional<int>(gpu) : std::nullopt;
}

std::optional<IdleGpuWatch::Idle> IdleGpuWatch::sample(int gpu, double percent, qint64 wallMs)
{
    Stretch &s = m_gpus[gpu];
    if (s.lastMs > 0 && wallMs <= s.lastMs)
        return std::nullopt;
    const bool gap = s.lastMs > 0 && wallMs - s.lastMs > kIdleGpuGapMs;
    s.lastMs = wallMs;
    if (!(percent == 0)) { // busy, or not known (NaN): the stretch ends
        s.idleSinceMs.reset();
        s.said = false;
        return std::nullopt;
    }
    if (!s.idleSinceMs || gap) {
        s.idleSinceMs = wallMs;
        s.said = false;
    }
    if (s.said || wallMs - *s.idleSinceMs < m_idleMs)
        return std::nullopt;
    s.said = true;
    return Idle{gpu, *s.idleSinceMs};
}

} // namespace ferry::run
