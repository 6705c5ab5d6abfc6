// Fuzz target for the metric parser on a run's log, read as a follower reads it: lines split at
// '\n', each line's records (metricRecords: carriage returns, escapes, backspaces) parsed by
// MetricParser (tests/fuzz/run.sh; replayed by fuzz_metric_lines_replay). The log is whatever
// the script printed: untrusted.
#include "metrics/metricparser.h"
#include "metrics/terminaltext.h"

#include <QByteArray>

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArray log = QByteArray::fromRawData(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    ferry::run::MetricParser parser;
    QList<ferry::run::MetricPoint> points;
    for (const QByteArray &line : log.split('\n')) {
        for (const QString &record : ferry::run::metricRecords(line))
            parser.parseLine(record, 0, points);
    }
    for (const ferry::run::MetricPoint &p : points) {
        if (p.name.isEmpty())
            __builtin_trap(); // every point is some metric's
    }
    return 0;
}
