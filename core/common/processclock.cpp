#include "common/processclock.h"

#include <QFile>

#include <ctime>
#include <unistd.h>

namespace ferry {

std::optional<ProcessState> processState(qint64 pid)
{
    if (pid <= 0)
        return std::nullopt;
    QFile stat(QStringLiteral("/proc/%1/stat").arg(pid));
    if (!stat.open(QIODevice::ReadOnly))
        return std::nullopt;
    const QByteArray line = stat.read(4096);
    // The command name (field 2) may hold spaces and parentheses: count from the last ')'.
    // After it, field 3 (state) is index 0, pgrp (5) index 2, session (6) index 3 and
    // starttime (22) index 19.
    const qsizetype close = line.lastIndexOf(')');
    if (close < 0)
        return std::nullopt;
    const QList<QByteArray> fields = line.mid(close + 2).split(' ');
    if (fields.size() < 20)
        return std::nullopt;
    ProcessState state;
    bool ok1 = false, ok2 = false, ok3 = false;
    state.zombie = fields.at(0) == "Z" || fields.at(0) == "X";
    state.processGroup = fields.at(2).toLongLong(&ok1);
    state.session = fields.at(3).toLongLong(&ok2);
    state.startTicks = fields.at(19).toULongLong(&ok3);
    if (!ok1 || !ok2 || !ok3)
        return std::nullopt;
    return state;
}

std::optional<double> millisecondsSinceProcessStart()
{
    const auto self = processState(::getpid());
    const long ticksPerSecond = sysconf(_SC_CLK_TCK);
    timespec now{};
    if (!self || ticksPerSecond <= 0 || clock_gettime(CLOCK_BOOTTIME, &now) != 0)
        return std::nullopt;
    const double nowMs = static_cast<double>(now.tv_sec) * 1000.0 + static_cast<double>(now.tv_nsec) / 1e6;
    return nowMs - static_cast<double>(self->startTicks) * 1000.0 / static_cast<double>(ticksPerSecond);
}

} // namespace ferry
