// When a GPU a run holds has done nothing for a while: the rule over the utilisation samples Ferry
// already takes (system.samples, metrics/systemsamples.h), behind the `gpu_idle:DURATION` alert.
#pragma once

// A GPU is idle once its utilisation samples (system/gpuI/utilization_percent, one every 5 s)
// have all been 0 % for the rule's duration, without a gap: two samples further apart than
// kIdleGpuGapMs (Ferry's watcher stopped, the machine slept) start the count again at the later
// one, as does a sample above 0 % or one nvidia-smi could not read (NaN). It fires once per idle
// stretch, for each GPU; a sample above 0 % ends the stretch (docs/cost.md, *Idle hardware*).
#include "metrics/systemsamples.h"

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace ferry::run {

// Samples further apart than this are a gap: nothing is known of the time between them.
inline constexpr qint64 kIdleGpuGapMs = 60 * 1000;

// "system/gpu3/utilization_percent" → 3; nullopt for another metric.
std::optional<int> gpuOfUtilizationMetric(const QString &metric);

class IdleGpuWatch {
public:
    explicit IdleGpuWatch(qint64 idleMs) : m_idleMs(idleMs) {}

    struct Idle {
        int gpu = 0;
        qint64 sinceMs = 0; // the first sample of the stretch at 0 %
    };
    // One sample of `gpu` at `wallMs` (samples of one GPU in time order; an older one is ignored).
    // The GPU when this sample makes it idle for the rule's duration, once per stretch.
    std::optional<Idle> sample(int gpu, double percent, qint64 wallMs);
    // Since when `gpu` has been at 0 % (its current stretch), nullopt when it is not idle now.
    std::optional<qint64> idleSince(int gpu) const;

private:
    struct Stretch {
        qint64 lastMs = 0;
        std::optional<qint64> idleSinceMs;
        bool said = false;
    };
    qint64 m_idleMs;
    QHash<int, Stretch> m_gpus;
};

// The rule over a system.samples file read as it grows (a kernel's: nothing else follows its
// samples): each poll feeds the blocks written since the last one, in bounded reads. What it
// returns is idle now: a stretch found in the file's past that has since ended is not said.
class IdleGpuFileWatch {
public:
    explicit IdleGpuFileWatch(qint64 idleMs) : m_rule(idleMs) {}
    QList<IdleGpuWatch::Idle> poll(const QString &samplesFile);

private:
    IdleGpuWatch m_rule;
    SystemSamplesReader m_reader;
};

} // namespace ferry::run
