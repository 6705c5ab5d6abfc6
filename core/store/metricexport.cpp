// A run's metric points as CSV or tab-separated text, written straight from the decoded series
// into a byte buffer (no QString, no QTextStream: tens of millions of points a run), and the
// command line's words for the run store's compaction, check and conversion.
#include "store/metricexport.h"

#include <QElapsedTimer>
#include <QFileDevice>
#include <QIODevice>
#include <QJsonArray>
#include <QMutex>

#include <charconv>
#include <cmath>
#include <cstring>
#include <memory>
#include <optional>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qsizetype kChunkBytes = qsizetype(1) << 20;
constexpr double kExactIntegers = 9007199254740992.0; // 2^53: every integer below it is a double

// The text under construction: points are written at `at`, and the chunk goes to the sink when
// the next line might not fit.
class Output {
public:
    explicit Output(const ByteSink &sink) : m_sink(sink), m_buffer(static_cast<size_t>(kChunkBytes)) {}

    // Room for `bytes` more at at(); false when the sink refused what was there.
    bool reserve(qsizetype bytes)
    {
        if (m_end - m_at >= bytes)
            return true;
        if (!flush())
            return false;
        if (static_cast<qsizetype>(m_buffer.size()) < bytes) { // a name longer than a chunk
            m_buffer.resize(static_cast<size_t>(bytes));
            m_at = m_buffer.data();
            m_end = m_at + bytes;
        }
        return true;
    }
    char *&at() { return m_at; }
    bool flush()
    {
        const auto size = static_cast<qsizetype>(m_at - m_buffer.data());
        m_at = m_buffer.data();
        if (size == 0 || m_failed)
            return !m_failed;
        if (auto taken = m_sink(QByteArrayView(m_buffer.data(), size)); !taken)
            m_failed = taken.error();
        return !m_failed;
    }
    const Error &failure() const { return *m_failed; }

private:
    const ByteSink &m_sink;
    std::vector<char> m_buffer;
    char *m_at = m_buffer.data();
    char *m_end = m_buffer.data() + m_buffer.size();
    std::optional<Error> m_failed;
};

char *put(char *at, QByteArrayView bytes)
{
    std::memcpy(at, bytes.data(), static_cast<size_t>(bytes.size()));
    return at + bytes.size();
}

// The lines of one series. Csv: name,step,wall_ms,value,epoch; else name<TAB>step<TAB>value.
template <bool kCsv> bool writeSeries(Output &out, QByteArrayView name, const std::vector<SeriesPoint> &points)
{
    const qsizetype line = name.size() + 4 * kNumberChars + 8;
    for (const SeriesPoint &p : points) {
        if (!out.reserve(line))
            return false;
        char *at = put(out.at(), name);
        *at++ = kCsv ? ',' : '\t';
        at = writeNumber(at, p.step);
        *at++ = kCsv ? ',' : '\t';
        if constexpr (kCsv) {
            at = std::to_chars(at, at + kNumberChars, p.wallMs).ptr;
            *at++ = ',';
            at = writeNumber(at, p.value);
            *at++ = ',';
            if (!std::isnan(p.epoch))
                at = writeNumber(at, p.epoch);
        } else {
            at = writeNumber(at, p.value);
        }
        *at++ = '\n';
        out.at() = at;
    }
    return true;
}

QString oneDecimal(double value, const char *unit)
{
    return QString::number(value, 'f', 1) + u' ' + QLatin1StringView(unit);
}

} // namespace

char *writeNumber(char *out, double value)
{
    if (std::isnan(value))
        return put(out, "nan");
    if (value == std::trunc(value) && std::abs(value) < kExactIntegers && !(value == 0 && std::signbit(value)))
        return std::to_chars(out, out + kNumberChars, static_cast<qint64>(value)).ptr;
    return std::to_chars(out, out + kNumberChars, value).ptr; // shortest round trip; "inf", "-inf"
}

QByteArray csvField(QStringView text)
{
    QByteArray utf8 = text.toUtf8();
    if (!utf8.contains(',') && !utf8.contains('"') && !utf8.contains('\n') && !utf8.contains('\r'))
        return utf8;
    utf8.replace("\"", "\"\"");
    return QByteArray('"' + utf8 + '"');
}

Expected<qint64> exportMetrics(const RunStore &store, const QString &runId, MetricTextFormat format,
                               const ByteSink &sink)
{
    const bool csv = format == MetricTextFormat::Csv;
    Output out(sink);
    qint64 written = 0;
    if (csv && out.reserve(64))
        out.at() = put(out.at(), "name,step,wall_ms,value,epoch\n");
    for (const QString &name : store.metricNames(runId)) {
        std::vector<SeriesPoint> points = store.series(runId, name);
        orderByStep(points);
        const QByteArray field = csv ? csvField(name) : name.toUtf8();
        if (!(csv ? writeSeries<true>(out, field, points) : writeSeries<false>(out, field, points)))
            break;
        written += static_cast<qint64>(points.size());
    }
    if (!out.flush())
        return withContext(u"cannot write the metrics of run %1"_s.arg(runId), out.failure());
    return written;
}

Expected<qint64> exportMetrics(const RunStore &store, const QString &runId, MetricTextFormat format, QIODevice &device)
{
    const auto failed = [&device] {
        return Error{
            device.errorString().isEmpty() ? u"the output does not take them"_s : device.errorString(), {}, 0, 0, {}};
    };
    const ByteSink sink = [&](QByteArrayView bytes) -> Expected<void> {
        for (qsizetype done = 0; done < bytes.size();) {
            const qint64 n = device.write(bytes.data() + done, bytes.size() - done);
            if (n <= 0)
                return failed();
            done += n;
        }
        return {};
    };
    auto written = exportMetrics(store, runId, format, sink);
    if (!written)
        return written;
    if (auto *file = qobject_cast<QFileDevice *>(&device); file && !file->flush())
        return withContext(u"cannot write the metrics of run %1"_s.arg(runId), failed());
    return written;
}

QString byteSizeText(qint64 bytes)
{
    const auto b = static_cast<double>(bytes);
    if (std::abs(b) < 1e3)
        return u"%1 bytes"_s.arg(bytes);
    if (std::abs(b) < 1e6)
        return oneDecimal(b / 1e3, "kB");
    if (std::abs(b) < 1e9)
        return oneDecimal(b / 1e6, "MB");
    return oneDecimal(b / 1e9, "GB");
}

QString groupedNumber(qint64 n)
{
    QString digits = QString::number(n < 0 ? -n : n);
    for (qsizetype i = digits.size() - 3; i > 0; i -= 3)
        digits.insert(i, u',');
    return n < 0 ? QString(u'-' + digits) : digits;
}

QString compactionText(const RunStore::Compaction &compaction)
{
    const qint64 freed = std::max<qint64>(0, compaction.bytesBefore - compaction.bytesAfter);
    return u"run store: %1 \u2192 %2 (%3 given back)"_s.arg(byteSizeText(compaction.bytesBefore),
                                                            byteSizeText(compaction.bytesAfter), byteSizeText(freed));
}

QString checkSummary(const RunStore::Check &check)
{
    const QString perPoint =
        check.points ? QString::number(static_cast<double>(check.bytes) / static_cast<double>(check.points), 'f', 2)
                     : u"-"_s;
    return u"runs: %1, series: %2, blocks: %3, points: %4, bytes a point: %5"_s.arg(
        groupedNumber(check.runs), groupedNumber(check.series), groupedNumber(check.blocks),
        groupedNumber(check.points), perPoint);
}

QJsonObject checkJson(const RunStore::Check &check)
{
    QJsonObject o{{u"runs"_s, check.runs},
                  {u"series"_s, check.series},
                  {u"blocks"_s, check.blocks},
                  {u"points"_s, check.points},
                  {u"bytes"_s, check.bytes},
                  {u"ok"_s, check.problems.isEmpty()},
                  {u"problems"_s, QJsonArray::fromStringList(check.problems)}};
    o[u"bytesPerPoint"_s] =
        check.points ? QJsonValue(static_cast<double>(check.bytes) / static_cast<double>(check.points)) : QJsonValue();
    return o;
}

QString conversionProgressText(qint64 done, qint64 total)
{
    if (done < 0)
        return u"compacting the run store"_s;
    const qint64 percent = total > 0 ? done * 100 / total : 100;
    return u"converting the run store to the block format: %1% (%2 of %3 points)"_s.arg(percent).arg(
        groupedNumber(done), groupedNumber(total));
}

RunStore::Progress conversionProgressPrinter(std::function<void(const QString &line)> print, int intervalMs)
{
    struct State {
        QMutex mutex;
        QElapsedTimer sincePrinted;
        qint64 lastDone = -2; // nothing printed yet
    };
    auto state = std::make_shared<State>();
    return [state, printLine = std::move(print), intervalMs](qint64 done, qint64 total) {
        QMutexLocker lock(&state->mutex);
        if (done == state->lastDone)
            return;
        const bool last = done < 0 || done >= total;
        if (!last && state->sincePrinted.isValid() && state->sincePrinted.elapsed() < intervalMs)
            return;
        state->lastDone = done;
        state->sincePrinted.start();
        printLine(conversionProgressText(done, total));
    };
}

} // namespace ferry::run
