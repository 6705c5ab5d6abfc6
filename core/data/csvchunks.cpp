#include "data/csvchunks.h"

#include "common/memorybudget.h"
#include "data/csvsyntax.h"
#include "data/filebytes.h"

#include <QThread>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <limits>
#include <memory>
#include <thread>

using namespace Qt::StringLiterals;

namespace ferry::data::csv {

namespace {

constexpr qint64 minBytesPerThread = 1 << 20;
constexpr int maxThreads = 8;
constexpr int checkEveryRecords = 4096;
constexpr float missingValue = std::numeric_limits<float>::quiet_NaN();

// How many fields the record at p holds (for a ragged row's message).
int countFields(const char *p, const char *end, char delimiter)
{
    int count = 0;
    for (;;) {
        Field field;
        const char *q = scanField(p, end, delimiter, field);
        ++count;
        if (!q || q == end || *q != delimiter)
            return count;
        p = q + 1;
    }
}

template <typename Check> void parseChunk(const char *base, const Layout &layout, Chunk &chunk, Check &&check)
{
    const qint64 capacity = countNewlines(chunk.begin, chunk.end) + 1;
    chunk.features.resize(size_t(capacity) * size_t(layout.features));
    chunk.targets.resize(size_t(capacity));
    chunk.targetOffsets.resize(size_t(capacity));
    float *const features = chunk.features.data();
    float *const targets = chunk.targets.data();
    qint64 *const targetOffsets = chunk.targetOffsets.data();
    const char delimiter = layout.delimiter;
    const int columns = layout.columns;
    const int target = layout.target;
    const bool dropMissing = layout.missing == MissingPolicy::DropRow;
    const char *p = chunk.begin;
    const char *const end = chunk.end;
    qsizetype rows = 0;
    int untilCheck = checkEveryRecords;
    auto fail = [&](Problem::Kind kind, const char *at, int column) {
        chunk.problem.kind = kind;
        chunk.problem.offset = at - base;
        chunk.problem.column = column;
        chunk.rows = rows;
    };
    while (p < end) {
        if (*p == '\n' || (*p == '\r' && (p + 1 == end || p[1] == '\n'))) {
            ++p;
            continue;
        }
        if (--untilCheck == 0) {
            untilCheck = checkEveryRecords;
            if (!check(p))
                return fail(Problem::Cancelled, p, 0);
        }
        const char *const record = p;
        float *const out = features + rows * layout.features;
        bool rowMissing = false;
        bool targetMissing = false;
        bool textTarget = false;
        for (int c = 0; c < columns; ++c) {
            float value;
            const char *q = fastNumber(p, end, delimiter, value);
            bool text = false;
            if (!q) {
                Field field;
                q = scanField(p, end, delimiter, field);
                if (!q)
                    return fail(Problem::Unclosed, record, c);
                if (fieldMissing(field)) {
                    value = missingValue;
                    (c == target ? targetMissing : rowMissing) = true;
                } else if (field.quoted && fieldNumber(field, delimiter, value)) {
                } else if (c == target) {
                    value = missingValue;
                    text = true;
                } else {
                    fail(Problem::NotNumber, p, c);
                    chunk.problem.value = fieldBytes(field);
                    return;
                }
            }
            if (c == target) {
                targets[rows] = value;
                targetOffsets[rows] = p - base;
                textTarget = text;
            } else {
                out[c < target ? c : c - 1] = value;
            }
            if (c + 1 < columns) {
                if (q == end || *q != delimiter) {
                    fail(Problem::Ragged, record, 0);
                    chunk.problem.found = c + 1;
                    return;
                }
                p = q + 1;
            } else {
                if (q < end && *q == delimiter) {
                    fail(Problem::Ragged, record, 0);
                    chunk.problem.found = countFields(record, end, delimiter);
                    return;
                }
                p = q;
            }
        }
        if (p < end && *p == '\r')
            ++p;
        if (p < end && *p == '\n')
            ++p;
        if (targetMissing) {
            ++chunk.droppedTarget;
        } else if (rowMissing && dropMissing) {
            ++chunk.droppedMissing;
        } else {
            chunk.imputed += rowMissing ? 1 : 0;
            if (textTarget && chunk.firstTextTarget < 0)
                chunk.firstTextTarget = targetOffsets[rows];
            ++rows;
        }
    }
    chunk.rows = rows;
}

} // namespace

// The stretches of [dataBegin, end) the threads parse, each ending after a line break.
std::vector<Chunk> splitIntoChunks(const char *dataBegin, const char *end, int threads)
{
    const qint64 dataBytes = end - dataBegin;
    // Lines can be split among threads only when no quoted field can hold a line break.
    int chunkCount = 1;
    if (!std::memchr(dataBegin, '"', size_t(dataBytes))) {
        if (threads > 0)
            chunkCount = threads;
        else
            chunkCount = int(std::clamp<qint64>(std::min<qint64>(QThread::idealThreadCount(), maxThreads), 1,
                                                std::max<qint64>(1, dataBytes / minBytesPerThread)));
    }
    std::vector<Chunk> chunks(static_cast<size_t>(chunkCount));
    const char *from = dataBegin;
    for (int k = 0; k < chunkCount; ++k) {
        const char *to = end;
        if (k + 1 < chunkCount) {
            to = std::max(from, dataBegin + dataBytes * (k + 1) / chunkCount);
            const void *newline = std::memchr(to, '\n', size_t(end - to));
            to = newline ? static_cast<const char *>(newline) + 1 : end;
        }
        chunks[size_t(k)].begin = from;
        chunks[size_t(k)].end = to;
        from = to;
    }
    return chunks;
}

// Every line may be a row: the chunks' buffers hold that many rows of floats, the targets and
// their offsets, and several chunks are copied into one matrix at the end. A 10k-column header
// over a file of blank lines would ask for terabytes (security review L3).
Expected<void> checkChunkMemory(const char *dataBegin, const char *end, const Layout &layout, int chunkCount,
                                const QString &path)
{
    const qint64 lines = countNewlines(dataBegin, end) + 1;
    const qint64 rowBytes = qint64(layout.features) * qint64(sizeof(float)) + qint64(sizeof(float) + sizeof(qint64));
    return checkMemoryBudget(saturatingProduct({lines, rowBytes, chunkCount > 1 ? 2 : 1}), path,
                             u"up to %1 rows of %2 columns"_s.arg(lines).arg(layout.columns));
}

// Parses every chunk: the first on the calling thread, each other on a thread of its own. Only
// the calling thread calls the caller's functions (progress, cancelled); workers poll a flag, and
// stop once an earlier chunk has failed.
void parseChunks(const FileBytes &bytes, const char *dataBegin, const Layout &layout, std::vector<Chunk> &chunks,
                 const LoadOptions &options)
{
    const char *const base = bytes.data();
    const int chunkCount = int(chunks.size());
    std::atomic<bool> stop{false};
    std::atomic<int> firstFailed{chunkCount};
    std::unique_ptr<std::atomic<qint64>[]> done(new std::atomic<qint64>[size_t(chunkCount)]);
    for (int k = 0; k < chunkCount; ++k)
        done[size_t(k)] = 0;
    auto report = [&] {
        if (options.progress) {
            qint64 sum = dataBegin - base;
            for (int k = 0; k < chunkCount; ++k)
                sum += done[size_t(k)].load(std::memory_order_relaxed);
            options.progress(sum, bytes.size());
        }
        if (options.cancelled && options.cancelled())
            stop = true;
        return !stop.load();
    };
    auto parse = [&](int k, bool callerThread) {
        Chunk &chunk = chunks[size_t(k)];
        try { // a worker thread must not let an exception out (std::terminate)
            parseChunk(base, layout, chunk, [&](const char *p) {
                done[size_t(k)].store(p - chunk.begin, std::memory_order_relaxed);
                if (callerThread)
                    return report();
                return !stop.load(std::memory_order_relaxed) && firstFailed.load(std::memory_order_relaxed) > k;
            });
        } catch (const std::bad_alloc &) {
            chunk.features = {};
            chunk.targets = {};
            chunk.targetOffsets = {};
            chunk.problem.kind = Problem::OutOfMemory;
        }
        done[size_t(k)].store(chunk.end - chunk.begin, std::memory_order_relaxed);
        if (chunk.problem.kind != Problem::None) {
            int failed = firstFailed.load();
            while (k < failed && !firstFailed.compare_exchange_weak(failed, k)) {
            }
        }
    };
    std::atomic<int> finished{0};
    std::vector<std::thread> workers;
    for (int k = 1; k < chunkCount; ++k) {
        workers.emplace_back([&, k] {
            parse(k, false);
            ++finished;
        });
    }
    parse(0, true);
    if (options.progress || options.cancelled) {
        while (finished.load() < chunkCount - 1) {
            std::this_thread::sleep_for(std::chrono::milliseconds(2));
            report();
        }
    }
    for (std::thread &worker : workers)
        worker.join();
}

Rows joinChunks(std::vector<Chunk> &chunks, const Layout &layout)
{
    Rows rows;
    for (const Chunk &chunk : chunks) {
        rows.count += chunk.rows;
        rows.droppedMissing += chunk.droppedMissing;
        rows.droppedTarget += chunk.droppedTarget;
        rows.imputed += chunk.imputed;
        if (rows.firstTextTarget < 0)
            rows.firstTextTarget = chunk.firstTextTarget;
    }
    const size_t width = size_t(layout.features);
    const size_t count = size_t(rows.count);
    if (chunks.size() == 1) {
        Chunk &chunk = chunks.front();
        rows.features = std::move(chunk.features);
        rows.features.resize(count * width);
        rows.targets = std::move(chunk.targets);
        rows.targets.resize(count);
        rows.targetOffsets = std::move(chunk.targetOffsets);
        rows.targetOffsets.resize(count);
    } else {
        rows.features.resize(count * width);
        rows.targets.resize(count);
        rows.targetOffsets.resize(count);
        size_t at = 0;
        for (Chunk &chunk : chunks) {
            const size_t n = size_t(chunk.rows);
            std::copy_n(chunk.features.data(), n * width, rows.features.data() + at * width);
            std::copy_n(chunk.targets.data(), n, rows.targets.data() + at);
            std::copy_n(chunk.targetOffsets.data(), n, rows.targetOffsets.data() + at);
            chunk.features = {};
            at += n;
        }
    }
    return rows;
}

} // namespace ferry::data::csv
