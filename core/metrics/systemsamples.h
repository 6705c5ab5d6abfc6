// A run's system metrics (system.samples): the blocks written, and their reader.
#pragma once

#include "common/error.h"
#include "metrics/metricparser.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

#include <sys/types.h>

namespace ferry::run {

// A run's system metrics: `system.samples` beside its log, a block every 5 s written by whatever
// watches the script (the local supervisor; the SSH and Slurm runners' shell), read by the
// follower into metrics under system/ (docs/metrics.md):
//   sample N MS CPU_SECONDS RSS_BYTES
//   <nvidia-smi's sampling query output, header first; nothing without nvidia-smi>
//   end
// N counts the samples from 0, MS is the wall clock (ms since the epoch), CPU_SECONDS the CPU
// time the run's processes have used so far (their own and their reaped children's), RSS_BYTES
// their resident memory now. The writers give raw numbers; this one reader turns them into
// metrics, so the rules (CPU % from two samples, nvidia-smi's columns by name) live here alone.

// One GPU's load at one moment, for a run's system metrics. NaN where nvidia-smi says
// "[N/A]" (power on many consumer cards, utilisation under some virtualisations) or "[Not
// Supported]".
struct GpuSample {
    int index = 0;
    double utilizationPercent = 0; // utilization.gpu
    double memoryUsedMiB = 0;      // memory.used
    double powerWatts = 0;         // power.draw
};

// The sampling query: `--format=csv,nounits` with its header, so that the columns are found by
// name whatever order or extra columns a driver gives.
QStringList nvidiaSmiSampleQuery();

// Parses that query's output: a header ("index, utilization.gpu [%], memory.used [MiB],
// power.draw [W]"), then a line per GPU. Empty output or "No devices were found": no GPU. A
// missing column or a line of another width is an error naming the line.
Expected<QList<GpuSample>> parseNvidiaSmiSamples(const QByteArray &output);

// One block of the file.
QByteArray systemSampleBlock(qint64 n, qint64 ms, double cpuSeconds, qint64 rssBytes,
                             const QByteArray &nvidiaSmiOutput);

// What the processes of one process group use now (Linux /proc): the supervisor's sample.
struct ProcessGroupUsage {
    double cpuSeconds = 0;
    qint64 rssBytes = 0;
    int processes = 0;
};
ProcessGroupUsage processGroupUsage(pid_t group);
// nvidia-smi's answer to the sampling query, run directly (no shell, no QProcess: the
// supervisor reaps its own children); empty without nvidia-smi, or when it fails or takes
// longer than `timeoutMs`.
QByteArray sampleGpus(int timeoutMs = 3000);

// Reads system.samples as it grows: complete blocks only (a block being written waits).
// Points: system/cpu_percent (100 = one core busy, from the second sample on),
// system/memory_rss_mib, and per GPU system/gpuI/utilization_percent, memory_used_mib and
// power_watts, each at step N and the sample's wall time. A malformed block is skipped.
class SystemSamplesReader {
public:
    QList<MetricPoint> feed(QByteArrayView bytes); // the file's bytes from bytesRead() on
    qint64 bytesRead() const { return m_read; }
    void resumeAt(qint64 offset) { m_read = offset; }

private:
    qint64 m_read = 0;
    std::optional<std::pair<qint64, double>> m_last; // the previous sample's (ms, CPU seconds)
};

} // namespace ferry::run
