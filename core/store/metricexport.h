// The run store as the command line reports it: metric points as text, compaction, checks and
// converting an older store.
#pragma once

// The run store as the command line tells of it: a run's metric points as text (ferry runs metrics),
// a compaction (ferry runs gc), a check (ferry doctor --store) and the conversion of an older store.
#include "common/error.h"
#include "store/runstore.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QJsonObject>
#include <QString>

#include <functional>

class QIODevice;

namespace ferry::run {

enum class MetricTextFormat {
    Csv,  // RFC 4180: the line "name,step,wall_ms,value,epoch", then one per point
    Tabs, // "name<TAB>step<TAB>value", one line per point, no header
};

// Takes the next bytes of the text (UTF-8; a chunk may end inside a character); an error stops
// the export.
using ByteSink = std::function<Expected<void>(QByteArrayView bytes)>;

// Writes every point of the run: one series at a time in metricNames() order, each series'
// points in the order RunStore::metrics gives them (orderByStep). Numbers are exact: a double is
// written as the shortest text that reads back as the same double (std::to_chars), an integral one
// below 2^53 in full digits (a step of 1000000 is "1000000", not "1e+06"); NaN is "nan" (its sign
// and payload are not kept), the infinities "inf" and "-inf", -0.0 "-0". A point without an epoch
// (NaN) has an empty epoch field. A name holding a comma, quote or line break is quoted. The text
// goes to `sink` in chunks of about 1 MiB. Returns how many points were written.
// The text is made on `threads.workers` threads (0: one a core, at most 8), slices of
// `threads.slicePoints` points of a series each, while the calling thread reads the series and
// hands the text to `sink` in order; with 1 it is made on the calling thread alone, as it is
// written. Either way the same bytes.
struct ExportThreads {
    int workers = 0;
    qsizetype slicePoints = 32768;
};
Expected<qint64> exportMetrics(const RunStore &store, const QString &runId, MetricTextFormat format,
                               const ByteSink &sink, const ExportThreads &threads = {});
// The same into a device (stdout, a file), flushed at the end when it is a file.
Expected<qint64> exportMetrics(const RunStore &store, const QString &runId, MetricTextFormat format, QIODevice &device,
                               const ExportThreads &threads = {});

// One double as exportMetrics writes it, at `out`, which has room for kNumberChars; returns the
// end of what was written.
constexpr int kNumberChars = 32;
char *writeNumber(char *out, double value);
// A CSV field of `text` (UTF-8): as is, or quoted with its quotes doubled when it holds a comma,
// a quote or a line break (RFC 4180).
QByteArray csvField(QStringView text);

// "512 bytes", "4.1 kB", "116.2 MB", "2.3 GB" (powers of 1000).
QString byteSizeText(qint64 bytes);
// "1,800,000".
QString groupedNumber(qint64 n);

// "run store: 116.2 MB → 3.1 MB (113.1 MB given back)".
QString compactionText(const RunStore::Compaction &compaction);

// "runs: 3, series: 9, blocks: 30, points: 30,000, bytes a point: 2.13".
QString checkSummary(const RunStore::Check &check);
// {"runs", "series", "blocks", "points", "bytes", "bytesPerPoint", "ok", "problems": [...]}.
QJsonObject checkJson(const RunStore::Check &check);

// What a RunStore::Progress hears, as a line: "converting the run store to the block format: 45%
// (810,000 of 1,800,000 points)", or for (-1, -1) "compacting the run store".
QString conversionProgressText(qint64 done, qint64 total);
// A RunStore::Progress that hands `print` those lines: the first, then at most one every
// `intervalMs`, the last (all points done) and the compaction's always, never the same twice.
RunStore::Progress conversionProgressPrinter(std::function<void(const QString &line)> print, int intervalMs = 100);

} // namespace ferry::run
