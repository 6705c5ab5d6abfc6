#pragma once

// A command's wall time and peak memory (GNU time's %e and %M), for the tests that hold hostile
// inputs to a bound: printed always, asserted only generously (these machines are noisy).
#include "support/cli.h"

#include <QRegularExpression>

namespace ferry::test {

struct Measured {
    CliResult result;  // stderr without time's own line
    double seconds = -1;
    qint64 peakKiB = -1;
};

// `ferry ARGUMENTS` in `workingDirectory` under /usr/bin/time; prints "WHAT: S s, K KiB".
inline Measured measureFerry(const QString &what, const QString &workingDirectory, const QStringList &arguments,
                             int timeoutMs = 240000)
{
    Measured m;
    m.result = runProgram(QStringLiteral("/usr/bin/time"),
                          QStringList{QStringLiteral("-f"), QStringLiteral("ferry-measured %e %M"), ferryBinary()} +
                              arguments,
                          workingDirectory, timeoutMs);
    static const QRegularExpression line(QStringLiteral("ferry-measured ([0-9.]+) ([0-9]+)\\s*$"));
    const QRegularExpressionMatch match = line.match(m.result.err);
    if (match.hasMatch()) {
        m.seconds = match.captured(1).toDouble();
        m.peakKiB = match.captured(2).toLongLong();
        m.result.err.truncate(match.capturedStart());
    }
    qInfo("%s: %.2f s, %lld KiB peak", qPrintable(what), m.seconds, m.peakKiB);
    return m;
}

} // namespace ferry::test
