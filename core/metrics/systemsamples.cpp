#include "metrics/systemsamples.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <cerrno>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include <csignal>
#include <fcntl.h>
#include <poll.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

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

QByteArray systemSampleBlock(qint64 n, qint64 ms, double cpuSeconds, qint64 rssBytes, const QByteArray &nvidiaSmiOutput)
{
    QByteArray block = "sample " + QByteArray::number(n) + ' ' + QByteArray::number(ms) + ' ' +
                       QByteArray::number(cpuSeconds, 'f', 3) + ' ' + QByteArray::number(rssBytes) + '\n';
    for (const QByteArray &line : nvidiaSmiOutput.split('\n')) {
        if (!line.trimmed().isEmpty() && line != "end")
            block += line + '\n';
    }
    return block + "end\n";
}

ProcessGroupUsage processGroupUsage(pid_t group)
{
    static const double ticks = double(::sysconf(_SC_CLK_TCK));
    static const qint64 page = ::sysconf(_SC_PAGESIZE);
    ProcessGroupUsage usage;
    const QStringList pids = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &pid : pids) {
        if (pid.isEmpty() || !pid.front().isDigit())
            continue;
        QFile stat(u"/proc/"_s + pid + u"/stat"_s);
        if (!stat.open(QIODevice::ReadOnly))
            continue;
        const QByteArray line = stat.readAll();
        // "pid (comm) state ppid pgrp ...": the name may hold spaces and parentheses, so the
        // fields are counted from its closing one.
        const qsizetype close = line.lastIndexOf(')');
        if (close < 0)
            continue;
        const QList<QByteArray> f = line.mid(close + 2).split(' ');
        // From the state (field 3): pgrp 5, utime 14, stime 15, cutime 16, cstime 17, rss 24.
        if (f.size() < 22 || f.at(2).toLongLong() != group)
            continue;
        usage.cpuSeconds +=
            double(f.at(11).toLongLong() + f.at(12).toLongLong() + f.at(13).toLongLong() + f.at(14).toLongLong()) /
            ticks;
        usage.rssBytes += f.at(21).toLongLong() * page;
        ++usage.processes;
    }
    return usage;
}

QByteArray sampleGpus(int timeoutMs)
{
    static const QByteArray program = QFile::encodeName(QStandardPaths::findExecutable(u"nvidia-smi"_s));
    if (program.isEmpty())
        return {};
    QList<QByteArray> args;
    for (const QString &arg : nvidiaSmiSampleQuery())
        args << arg.toUtf8();
    std::vector<char *> argv;
    for (QByteArray &a : args)
        argv.push_back(a.data());
    argv.push_back(nullptr);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0)
        return {};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, program.constData(), &actions, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    QByteArray out;
    if (spawned == 0) {
        const QDeadlineTimer deadline(timeoutMs);
        char buffer[4096];
        for (;;) {
            pollfd fd{fds[0], POLLIN, 0};
            const int ready = ::poll(&fd, 1, int(std::max<qint64>(0, deadline.remainingTime())));
            if (ready <= 0) {
                ::kill(pid, SIGKILL); // hung (a driver in trouble): no sample
                out.clear();
                break;
            }
            const ssize_t n = ::read(fds[0], buffer, sizeof buffer);
            if (n <= 0)
                break;
            out.append(buffer, n);
            if (out.size() > (1 << 20)) { // no sampling answer is this long
                ::kill(pid, SIGKILL);
                out.clear();
                break;
            }
        }
        int status = 0;
        while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
        }
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            out.clear();
    }
    ::close(fds[0]);
    return out;
}

QList<MetricPoint> SystemSamplesReader::feed(QByteArrayView bytes)
{
    QList<MetricPoint> points;
    qsizetype at = 0;
    for (;;) {
        const qsizetype end = bytes.indexOf(QByteArrayView("\nend\n"), at);
        if (end < 0)
            break;
        const QByteArray block = bytes.sliced(at, end + 1 - at).toByteArray();
        at = end + 5;
        const qsizetype firstNewline = block.indexOf('\n');
        const QList<QByteArray> head = block.left(firstNewline).split(' ');
        if (head.size() != 5 || head.at(0) != "sample")
            continue;
        bool ok[4] = {};
        const double n = head.at(1).toDouble(&ok[0]);
        const qint64 ms = head.at(2).toLongLong(&ok[1]);
        const double cpu = head.at(3).toDouble(&ok[2]);
        const double rss = head.at(4).toDouble(&ok[3]);
        if (!ok[0] || !ok[1] || !ok[2] || !ok[3])
            continue;
        if (m_last && ms > m_last->first)
            points.append({u"system/cpu_percent"_s, n,
                           std::max(0.0, (cpu - m_last->second) * 1e5 / double(ms - m_last->first)), ms});
        m_last = {ms, cpu};
        points.append({u"system/memory_rss_mib"_s, n, rss / (1024.0 * 1024.0), ms});
        const auto gpus = parseNvidiaSmiSamples(block.mid(firstNewline + 1));
        for (const GpuSample &g : gpus ? *gpus : QList<GpuSample>{}) {
            const QString prefix = u"system/gpu%1/"_s.arg(g.index);
            points.append({prefix + u"utilization_percent"_s, n, g.utilizationPercent, ms});
            points.append({prefix + u"memory_used_mib"_s, n, g.memoryUsedMiB, ms});
            points.append({prefix + u"power_watts"_s, n, g.powerWatts, ms});
        }
    }
    m_read += at;
    return points;
}

} // namespace ferry::run
