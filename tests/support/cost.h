// Measures a piece of work's wall time and peak resident memory, for the hostile-input tests'
// bounds.
#pragma once

// What a piece of work costs this process: its wall time and how far it raised the peak of the
// resident memory. The peak is reset first (Linux: "5" to /proc/self/clear_refs sets VmHWM to
// the current RSS), so work after a larger one is measured on its own. The hostile-input tests
// print both and assert a generous bound.
#include "support/cli.h"

#include <QElapsedTimer>
#include <QFile>
#include <QRegularExpression>
#include <QString>
#include <QtGlobal>

#include <cstdio>
#include <ctime>

namespace ferry::test {

// Whether this build runs under AddressSanitizer (the "asan" preset): its allocator keeps freed
// blocks in quarantine and pads every block, and it reserves terabytes of address space for its
// shadow, so a process's peak memory is not the program's own and an address-space limit
// (RLIMIT_AS) cannot be set. The memory bounds are the full build's checks.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAddressSanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAddressSanitizer = true;
#else
inline constexpr bool kAddressSanitizer = false;
#endif
#else
inline constexpr bool kAddressSanitizer = false;
#endif

// Whether `peakBytes` is under `bound`, or not measurable in this build (kAddressSanitizer).
inline bool peakWithin(qint64 peakBytes, qint64 bound)
{
    return kAddressSanitizer || peakBytes < bound;
}

// Whether `seconds` is under `bound`: the hostile-input tests' generous bounds (a quadratic walk
// would take hours), forty times as generous under the sanitizers: their build is unoptimised
// (-O0, CMakePresets.json) and runs at the lowest priority beside the full suite, where
// `ferry runs diff` of two 64 KB files took 30 s against 1 s (12-07).
inline bool secondsWithin(double seconds, double bound)
{
    return seconds < (kAddressSanitizer ? 40 * bound : bound);
}

struct Cost {
    double seconds = 0;   // CPU time of the process (measure())
    qint64 peakBytes = 0; // the peak's rise over the resident memory at the start
};

// VmHWM or VmRSS of /proc/self/status, in bytes; -1 when it cannot be read.
inline qint64 processMemory(const char *field)
{
    QFile status(QStringLiteral("/proc/self/status"));
    if (!status.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : status.readAll().split('\n')) {
        if (line.startsWith(field))
            return line.mid(qsizetype(qstrlen(field))).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return -1;
}

// Runs `work`, printing "WHAT: SIZE, S s, P MiB peak" (SIZE says how large the input was).
template <typename Work> Cost measure(const char *what, const QString &size, Work &&work)
{
    if (QFile clear(QStringLiteral("/proc/self/clear_refs")); clear.open(QIODevice::WriteOnly))
        clear.write("5");
    const qint64 start = processMemory("VmRSS:");
    // The process's CPU time, not the wall's: a bound on a hostile input's cost must not fail
    // because the machine is busy with other tests (a sanitizer lane beside the full one).
    const auto cpu = [] {
        timespec t{};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
        return double(t.tv_sec) + double(t.tv_nsec) / 1e9;
    };
    const double begin = cpu();
    work();
    Cost cost;
    cost.seconds = cpu() - begin;
    cost.peakBytes = processMemory("VmHWM:") - start;
    std::printf("COST   : %s: %s, %.3f s, %.1f MiB peak\n", what, qPrintable(size), cost.seconds,
                double(cost.peakBytes) / (1 << 20));
    std::fflush(stdout);
    return cost;
}

// What a command cost: `ferry ARGUMENTS` in `folder` under GNU time (its %e and %M), printed as
// "COST   : WHAT: S s, M MiB peak"; `result` is the command's, its error output without time's line.
struct CommandCost {
    CliResult result;
    double seconds = -1;
    double mib = -1;
};
inline CommandCost measureFerry(const QString &what, const QString &folder, const QStringList &arguments,
                                int timeoutMs = 240000)
{
    CommandCost cost;
    cost.result =
        runProgram(QStringLiteral("/usr/bin/time"),
                   QStringList{QStringLiteral("-f"), QStringLiteral("ferry-cost %e %M"), ferryBinary()} + arguments,
                   folder, timeoutMs);
    static const QRegularExpression line(QStringLiteral("ferry-cost ([0-9.]+) ([0-9]+)\\s*$"));
    if (const QRegularExpressionMatch match = line.match(cost.result.err); match.hasMatch()) {
        cost.seconds = match.captured(1).toDouble();
        cost.mib = match.captured(2).toDouble() / 1024;
        cost.result.err.truncate(match.capturedStart());
    }
    std::printf("COST   : %s: %.2f s, %.1f MiB peak\n", qPrintable(what), cost.seconds, cost.mib);
    std::fflush(stdout);
    return cost;
}
inline CommandCost measureFerry(const char *what, const QString &folder, const QStringList &arguments,
                                int timeoutMs = 240000)
{
    return measureFerry(QString::fromUtf8(what), folder, arguments, timeoutMs);
}

} // namespace ferry::test
