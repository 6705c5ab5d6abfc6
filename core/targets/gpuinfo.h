#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::targets {

struct GpuInfo {
    QString name;         // "NVIDIA A100-SXM4-80GB"
    qint64 memoryMiB = 0; // memory.total
    QString driverVersion;
    bool operator==(const GpuInfo &) const = default;
};

// The query nvidia-smi answers with one CSV line per GPU.
QStringList nvidiaSmiQuery();

// Parses `nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader`:
// "NVIDIA A100-SXM4-80GB, 81920 MiB, 535.104.05" per line. Empty output: no GPU. A line
// that is not three fields with a memory size is an error naming the line.
Expected<QList<GpuInfo>> parseNvidiaSmi(const QByteArray &output);

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

} // namespace ferry::targets
