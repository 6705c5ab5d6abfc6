#include "store/metriccsv.h"

#include "metrics/metricnames.h"

#include <QIODevice>

#include <charconv>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qsizetype kBatch = 4096;
constexpr QByteArrayView kHeader = "name,step,wall_ms,value,epoch";
// A record is a name (at most kMostMetricNameBytes, quoted: twice that) and four numbers: one
// longer, or a quote left open over more lines than this, is refused where it starts (review
// M5: a quote, then 400,000 line breaks, took 30 s, each line counting the whole record again).
constexpr qsizetype kMostRecordBytes = 4096;
constexpr int kMostRecordLines = 4;

// One record's fields; a quoted field may hold commas, doubled quotes and line breaks.
std::optional<QList<QByteArray>> splitRecord(const QByteArray &record)
{
    QList<QByteArray> fields;
    QByteArray field;
    bool quoted = false, wasQuoted = false;
    for (qsizetype i = 0; i < record.size(); ++i) {
        const char c = record[i];
        if (quoted) {
            if (c == '"' && i + 1 < record.size() && record[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"' && field.isEmpty() && !wasQuoted) {
            quoted = wasQuoted = true;
        } else if (c == ',') {
            fields << field;
            field.clear();
            wasQuoted = false;
        } else if (wasQuoted) {
            return std::nullopt; // text after a closing quote
        } else {
            field += c;
        }
    }
    if (quoted)
        return std::nullopt;
    fields << field;
    return fields;
}

std::optional<double> number(const QByteArray &text)
{
    double value = 0;
    const char *end = text.constData() + text.size();
    const auto [ptr, ec] = std::from_chars(text.constData(), end, value);
    if (ec != std::errc() || ptr != end || text.isEmpty())
        return std::nullopt;
    return value;
}

std::optional<MetricPoint> pointOf(const QList<QByteArray> &fields)
{
    if (fields.size() != 5 || fields[0].isEmpty())
        return std::nullopt;
    MetricPoint p;
    p.name = QString::fromUtf8(fields[0]);
    const auto step = number(fields[1]);
    const auto value = number(fields[3]);
    qint64 wall = 0;
    const char *wallEnd = fields[2].constData() + fields[2].size();
    const auto [ptr, ec] = std::from_chars(fields[2].constData(), wallEnd, wall);
    if (!step || !value || ec != std::errc() || ptr != wallEnd || fields[2].isEmpty())
        return std::nullopt;
    p.step = *step;
    p.value = *value;
    p.wallMs = wall;
    if (!fields[4].isEmpty()) {
        const auto epoch = number(fields[4]);
        if (!epoch)
            return std::nullopt;
        p.epoch = *epoch;
    }
    return p;
}

} // namespace

Expected<qint64> readMetricsCsv(QIODevice &device, const QString &path, const MetricBatchSink &batch)
{
    const auto malformed = [&](int line, const QString &what) {
        return Error{what, path, line, 0, u"metrics.csv is what 'ferry runs metrics --csv' writes"_s};
    };
    int line = 1;
    QByteArray header = device.readLine();
    while (header.endsWith('\n') || header.endsWith('\r'))
        header.chop(1);
    if (header != kHeader)
        return malformed(1, u"the header is not \"%1\""_s.arg(QString::fromLatin1(kHeader)));
    QList<MetricPoint> points;
    MetricNames names;
    qint64 total = 0;
    const auto tooLong = [&](int at) {
        return malformed(at, u"a record longer than %1 bytes or %2 lines (a quote left open?)"_s.arg(kMostRecordBytes)
                                 .arg(kMostRecordLines));
    };
    while (!device.atEnd()) {
        const int first = ++line;
        QByteArray record = device.readLine(kMostRecordBytes + 2); // at most one byte too many
        qsizetype quotes = record.count('"');
        // A line break inside a quoted name: the record goes on on the next line. Only the new
        // line's quotes are counted: reading a record is linear in its length.
        for (int lines = 1; quotes % 2 == 1 && !device.atEnd(); ++lines) {
            if (lines == kMostRecordLines || record.size() > kMostRecordBytes)
                return tooLong(first);
            const QByteArray more = device.readLine(kMostRecordBytes + 2 - record.size());
            quotes += more.count('"');
            record += more;
            ++line;
        }
        if (record.size() > kMostRecordBytes)
            return tooLong(first);
        if (record.endsWith('\n'))
            record.chop(1);
        if (record.endsWith('\r'))
            record.chop(1);
        if (record.isEmpty())
            continue;
        const auto fields = splitRecord(record);
        const auto point = fields ? pointOf(*fields) : std::nullopt;
        if (!point)
            return malformed(first, u"not a point (name,step,wall_ms,value,epoch)"_s);
        if (const QString refused = names.admit(point->name); !refused.isEmpty())
            return malformed(first, refused);
        points << *point;
        if (points.size() >= kBatch) {
            total += points.size();
            if (auto taken = batch(std::exchange(points, {})); !taken)
                return taken.error();
        }
    }
    total += points.size();
    if (!points.isEmpty()) {
        if (auto taken = batch(std::move(points)); !taken)
            return taken.error();
    }
    return total;
}

} // namespace ferry::run
