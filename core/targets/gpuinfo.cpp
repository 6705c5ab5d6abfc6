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

QStringList nvidiaSmiSampleQuery()
{
    return {u"nvidia-smi"_s, u"--query-gpu=index,utilization.gpu,memory.used,power.draw"_s, u"--format=csv,nounits"_s};
}

Expected<QList<GpuSample>> parseNvidiaSmiSamples(const QByteArray &output)
{
    QList<GpuSample> samples;
    const QList<QByteArray> lines = output.split('\n');
    const auto bad = [](qsizetype line, const QString &why) {
        return Error{u"nvidia-smi output line %1: %2"_s.arg(line + 1).arg(why),
                     {},
                     0,
                     0,
                     u"check the NVIDIA driver on the host (run nvidia-smi there)"_s};
    };
    // The header's names without their units: "memory.used [MiB]" is memory.used.
    QStringList names;
    qsizetype headerLine = -1;
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = QString::fromUtf8(lines.at(i)).trimmed();
        if (line.isEmpty())
            continue;
        if (line.startsWith(u"No devices were found"_s))
            return samples;
        if (headerLine < 0) {
            headerLine = i;
            for (const QString &field : line.split(u','))
                names << field.section(u'[', 0, 0).trimmed();
            if (!names.contains(u"index"_s)) // "NVIDIA-SMI has failed because ...": no header
                return bad(i, u"not the query's header: '%1'"_s.arg(line.left(80)));
            continue;
        }
        const QStringList fields = line.split(u',');
        if (fields.size() != names.size())
            return bad(i, u"%1 fields under a header of %2"_s.arg(fields.size()).arg(names.size()));
        const auto column = [&](const QString &name, double &into) -> Expected<void> {
            const qsizetype at = names.indexOf(name);
            if (at < 0)
                return bad(headerLine, u"no column %1"_s.arg(name));
            const QString text = fields.at(at).trimmed();
            if (text.startsWith(u'[')) { // [N/A], [Not Supported], [Unknown Error]
                into = std::numeric_limits<double>::quiet_NaN();
                return {};
            }
            bool ok = false;
            into = text.toDouble(&ok);
            if (!ok)
                return bad(i, u"%1 is not a number: '%2'"_s.arg(name, text.left(40)));
            return {};
        };
        GpuSample sample;
        double index = 0;
        for (const auto &[name, into] : {std::pair<QString, double *>{u"index"_s, &index},
                                         {u"utilization.gpu"_s, &sample.utilizationPercent},
                                         {u"memory.used"_s, &sample.memoryUsedMiB},
                                         {u"power.draw"_s, &sample.powerWatts}}) {
            if (const auto read = column(name, *into); !read)
                return read.error();
        }
        if (!(index >= 0))
            return bad(i, u"no GPU index"_s);
        sample.index = static_cast<int>(index);
        samples << sample;
    }
    return samples;
}

} // namespace ferry::targets
