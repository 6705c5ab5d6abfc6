#include "targets/gpuinfo.h"

#include <QRegularExpression>

#include <limits>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::targets {

QStringList nvidiaSmiQuery()
{
    return {u"nvidia-smi"_s, u"--query-gpu=name,memory.total,driver_version"_s, u"--format=csv,noheader"_s};
}

Expected<QList<GpuInfo>> parseNvidiaSmi(const QByteArray &output)
{
    static const QRegularExpression memory(u"^(\\d+)\\s*(MiB|GiB)?$"_s);
    QList<GpuInfo> gpus;
    const QList<QByteArray> lines = output.split('\n');
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = QString::fromUtf8(lines.at(i)).trimmed();
        if (line.isEmpty())
            continue;
        if (line.startsWith(u"No devices were found"_s)) // the driver is there, no GPU is
            return QList<GpuInfo>{};
        // A GPU name holds no comma; split from the right all the same, in case one does.
        const QStringList fields = line.split(u',');
        const auto bad = [&](const QString &why) {
            return Error{u"nvidia-smi output line %1 is not 'name, memory, driver': %2 ('%3')"_s.arg(i + 1).arg(
                             why, line.left(80)),
                         {},
                         0,
                         0,
                         u"check the NVIDIA driver on the host (run nvidia-smi there)"_s};
        };
        if (fields.size() < 3)
            return bad(u"%1 fields"_s.arg(fields.size()));
        GpuInfo gpu;
        gpu.driverVersion = fields.last().trimmed();
        const auto m = memory.match(fields.at(fields.size() - 2).trimmed());
        if (!m.hasMatch())
            return bad(u"no memory size"_s);
        gpu.memoryMiB = m.captured(1).toLongLong() * (m.captured(2) == u"GiB"_s ? 1024 : 1);
        gpu.name = fields.mid(0, fields.size() - 2).join(u',').trimmed();
        if (gpu.name.isEmpty() || gpu.driverVersion.isEmpty())
            return bad(u"an empty field"_s);
        gpus << gpu;
    }
    return gpus;
}

} // namespace ferry::targets
