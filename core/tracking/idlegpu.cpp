#include "tracking/idlegpu.h"

#include "common/safefile.h"

#include <QFile>

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

std::optional<qint64> IdleGpuWatch::idleSince(int gpu) const
{
    const auto it = m_gpus.constFind(gpu);
    return it == m_gpus.constEnd() ? std::nullopt : it->idleSinceMs;
}

QList<IdleGpuWatch::Idle> IdleGpuFileWatch::poll(const QString &samplesFile)
{
    QList<IdleGpuWatch::Idle> fired;
    QFile file(samplesFile);
    if (entryKind(samplesFile) != EntryKind::RegularFile || !file.open(QIODevice::ReadOnly))
        return fired;
    if (file.size() < m_reader.bytesRead()) // written anew (a restarted kernel's run): read it again
        m_reader = SystemSamplesReader();
    constexpr qint64 kChunk = 1 << 20;
    while (m_reader.bytesRead() < file.size()) {
        const qint64 from = m_reader.bytesRead();
        if (!file.seek(from))
            break;
        const QByteArray bytes = file.read(kChunk);
        for (const MetricPoint &point : m_reader.feed(bytes)) {
            if (const auto gpu = gpuOfUtilizationMetric(point.name)) {
                if (const auto idle = m_rule.sample(*gpu, point.value, point.wallMs))
                    fired << *idle;
            }
        }
        if (m_reader.bytesRead() == from) // a block being written (or one longer than a read: never read)
            break;
    }
    fired.removeIf([this](const IdleGpuWatch::Idle &idle) { return m_rule.idleSince(idle.gpu) != idle.sinceMs; });
    return fired;
}

} // namespace ferry::run
