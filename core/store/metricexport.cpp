// A run's metric points as CSV or tab-separated text, written straight from the decoded series
// into a byte buffer (no QString, no QTextStream: tens of millions of points a run), and the
// command line's words for the run store's compaction, check and conversion.
#include "store/metricexport.h"

#include <QElapsedTimer>
#include <QFileDevice>
#include <QIODevice>
#include <QJsonArray>
#include <QMutex>
#include <QThread>

#include <charconv>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
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

// Writes the lines of points one after the other. Csv: name,step,wall_ms,value,epoch; else
// name<TAB>step<TAB>value. A wall time equal to the line before's (the metrics of one log line,
// the lines of one log.times sample) is that line's text again.
template <bool kCsv> class LineWriter {
public:
    explicit LineWriter(QByteArrayView name) : m_name(name) {}
    // The most one line takes.
    qsizetype lineBytes() const { return m_name.size() + 4 * kNumberChars + 8; }
    char *write(char *at, const SeriesPoint &p)
    {
        at = put(at, m_name);
        *at++ = kCsv ? ',' : '\t';
        at = writeNumber(at, p.step);
        *at++ = kCsv ? ',' : '\t';
        if constexpr (kCsv) {
            if (p.wallMs != m_wall || m_wallLength == 0) {
                m_wall = p.wallMs;
                m_wallLength =
                    static_cast<int>(std::to_chars(m_wallText, m_wallText + kNumberChars, p.wallMs).ptr - m_wallText);
            }
            at = put(at, QByteArrayView(m_wallText, m_wallLength));
            *at++ = ',';
            at = writeNumber(at, p.value);
            *at++ = ',';
            if (!std::isnan(p.epoch))
                at = writeNumber(at, p.epoch);
        } else {
            at = writeNumber(at, p.value);
        }
        *at++ = '\n';
        return at;
    }

private:
    QByteArrayView m_name;
    qint64 m_wall = 0;
    char m_wallText[kNumberChars];
    int m_wallLength = 0;
};

// The lines of one series, into `out` (one thread).
template <bool kCsv> bool writeSeries(Output &out, QByteArrayView name, std::span<const SeriesPoint> points)
{
    LineWriter<kCsv> lines(name);
    for (const SeriesPoint &p : points) {
        if (!out.reserve(lines.lineBytes()))
            return false;
        out.at() = lines.write(out.at(), p);
    }
    return true;
}

// The text of a run's series made on several threads: each series is cut into slices of
// `slicePoints` points, which worker threads turn into text while the caller hands the finished
// ones to the sink in order. At most a few slices per thread wait, made or being made: memory
// stays bounded whatever the run holds.
class ParallelText {
public:
    ParallelText(bool csv, int threads, qsizetype slicePoints)
        : m_csv(csv), m_slicePoints(std::max<qsizetype>(1, slicePoints)), m_window(3 * static_cast<size_t>(threads))
    {
        for (int i = 0; i < threads; ++i)
            m_workers.emplace_back([this] { work(); });
    }
    ~ParallelText()
    {
        {
            std::lock_guard lock(m_mutex);
            m_stopping = true;
        }
        m_work.notify_all();
        for (std::thread &t : m_workers)
            t.join();
    }

    // Queues the series' slices (handing finished ones to `sink` to make room); false once the
    // sink refused one.
    bool add(const std::shared_ptr<const std::vector<SeriesPoint>> &points, const QByteArray &name,
             const ByteSink &sink)
    {
        const auto n = static_cast<qsizetype>(points->size());
        for (qsizetype first = 0; first < n; first += m_slicePoints) {
            while (m_order.size() >= m_window) {
                if (!writeFirst(sink))
                    return false;
            }
            auto slice = std::make_shared<Slice>();
            if (!m_spare.empty()) { // the memory of a slice written: no fresh pages
                slice->text = std::move(m_spare.back());
                m_spare.pop_back();
            }
            slice->points = points;
            slice->name = name;
            slice->span = std::span(*points).subspan(static_cast<size_t>(first),
                                                     static_cast<size_t>(std::min(m_slicePoints, n - first)));
            m_order.push_back(slice);
            {
                std::lock_guard lock(m_mutex);
                m_queue.push_back(std::move(slice));
            }
            m_work.notify_one();
        }
        return true;
    }
    // Hands the rest to `sink`; false once it refused some.
    bool finish(const ByteSink &sink)
    {
        while (!m_order.empty()) {
            if (!writeFirst(sink))
                return false;
        }
        return true;
    }
    const Error &failure() const { return *m_failed; }

private:
    struct Slice {
        std::shared_ptr<const std::vector<SeriesPoint>> points; // kept while the slice is made
        std::span<const SeriesPoint> span;
        QByteArray name; // the field as written
        std::vector<char> text;
        bool ready = false;
    };

    template <bool kCsv> static void make(Slice &slice)
    {
        LineWriter<kCsv> lines(slice.name);
        slice.text.resize(slice.span.size() * static_cast<size_t>(lines.lineBytes()));
        char *at = slice.text.data();
        for (const SeriesPoint &p : slice.span)
            at = lines.write(at, p);
        slice.text.resize(static_cast<size_t>(at - slice.text.data()));
    }

    void work()
    {
        for (;;) {
            std::shared_ptr<Slice> slice;
            {
                std::unique_lock lock(m_mutex);
                m_work.wait(lock, [this] { return m_stopping || !m_queue.empty(); });
                if (m_queue.empty())
                    return;
                slice = std::move(m_queue.front());
                m_queue.pop_front();
            }
            m_csv ? make<true>(*slice) : make<false>(*slice);
            slice->points.reset(); // made: a series' points go once its last slice is made
            {
                std::lock_guard lock(m_mutex);
                slice->ready = true;
            }
            m_made.notify_all();
        }
    }

    bool writeFirst(const ByteSink &sink)
    {
        std::shared_ptr<Slice> first = std::move(m_order.front());
        m_order.pop_front();
        {
            std::unique_lock lock(m_mutex);
            m_made.wait(lock, [&] { return first->ready; });
        }
        if (m_failed)
            return false;
        if (auto taken = sink(QByteArrayView(first->text.data(), static_cast<qsizetype>(first->text.size()))); !taken) {
            m_failed = taken.error();
            return false;
        }
        m_spare.push_back(std::move(first->text));
        return true;
    }

    const bool m_csv;
    const qsizetype m_slicePoints;
    const size_t m_window;
    std::deque<std::shared_ptr<Slice>> m_order; // queued, in the text's order (the caller's alone)
    std::vector<std::vector<char>> m_spare;     // the text of slices written, for the next ones (the caller's)
    std::mutex m_mutex;
    std::condition_variable m_work, m_made;
    std::deque<std::shared_ptr<Slice>> m_queue; // to be made
    bool m_stopping = false;
    std::vector<std::thread> m_workers;
    std::optional<Error> m_failed;
};

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
                               const ByteSink &sink, const ExportThreads &threads)
{
    const bool csv = format == MetricTextFormat::Csv;
    const int workers = threads.workers > 0 ? threads.workers : std::min(8, QThread::idealThreadCount());
    const auto failed = [&runId](const Error &error) {
        return withContext(u"cannot write the metrics of run %1"_s.arg(runId), error);
    };
    qint64 written = 0;
    if (workers <= 1) { // one thread: the text made where it is written
        Output out(sink);
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
            return failed(out.failure());
        return written;
    }
    // Several: this thread reads the series and writes the text that workers make of them.
    if (csv) {
        if (auto taken = sink("name,step,wall_ms,value,epoch\n"); !taken)
            return failed(taken.error());
    }
    ParallelText text(csv, workers, threads.slicePoints);
    for (const QString &name : store.metricNames(runId)) {
        auto points = std::make_shared<std::vector<SeriesPoint>>(store.series(runId, name));
        orderByStep(*points);
        written += static_cast<qint64>(points->size());
        if (!text.add(std::move(points), csv ? csvField(name) : name.toUtf8(), sink))
            return failed(text.failure());
    }
    if (!text.finish(sink))
        return failed(text.failure());
    return written;
}

Expected<qint64> exportMetrics(const RunStore &store, const QString &runId, MetricTextFormat format, QIODevice &device,
                               const ExportThreads &threads)
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
    auto written = exportMetrics(store, runId, format, sink, threads);
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
