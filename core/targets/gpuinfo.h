// Queries nvidia-smi and parses its answer into each GPU's name, memory and driver version.
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

} // namespace ferry::targets
