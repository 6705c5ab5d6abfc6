// Ingestion benchmark, run by tests/bench/ingest.sh (not by CI): reads a training log as
// re-attach does, parses every line with MetricParser and stores the points with
// RunStore::appendMetrics, one batch (and its log offset) per BATCH_LINES lines.
//   ferry_ingestbench LOG WORKDIR [BATCH_LINES [all|pipeline|parse|store|csv]]
// stdout: "ferry POINTS SECONDS" for the whole pipeline (read + parse + store, flushed);
// phase csv: writes WORKDIR/points.csv, the parsed points for the peers (untimed);
// stderr: the same log parsed only, and its points stored only, to see where time goes.
#include "metrics/metricparser.h"
#include "store/runstore.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QStringDecoder>

#include <cmath>
#include <cstdio>
#include <utility>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QString kRun = u"bench"_s;

struct Batch {
    QList<MetricPoint> points;
    qint64 offset;
};

// Reads the log in blocks and hands each line, with the offset just past it, to `take`.
template <typename Take> bool forEachLine(const QString &path, Take take)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return false;
    QByteArray buffer;
    qint64 base = 0; // the log offset of buffer[0]
    // Lines are decoded into one reused buffer: a tailer need not allocate per line.
    QStringDecoder decoder(QStringDecoder::Utf8);
    QString line;
    for (;;) {
        const QByteArray block = file.read(1 << 20);
        if (block.isEmpty())
            break;
        buffer += block;
        const qint64 wallMs = QDateTime::currentMSecsSinceEpoch();
        qsizetype pos = 0;
        for (qsizetype nl; (nl = buffer.indexOf('\n', pos)) >= 0; pos = nl + 1) {
            const QByteArrayView bytes(buffer.constData() + pos, nl - pos);
            line.resize(decoder.requiredSpace(bytes.size()));
            const QChar *end = decoder.appendToBuffer(line.data(), bytes);
            take(QStringView(line.constData(), end), wallMs, base + nl + 1);
        }
        buffer.remove(0, pos);
        base += pos;
    }
    return true;
}

std::unique_ptr<RunStore> freshStore(const QString &dir)
{
    QDir(dir).removeRecursively();
    auto store = RunStore::open(RunStore::pathInWorkspace(dir));
    if (!store) {
        std::fprintf(stderr, "%s\n", qPrintable(store.error().toString()));
        return nullptr;
    }
    RunRecord run;
    run.id = kRun;
    run.status = RunStatus::Running;
    (*store)->createRun(run);
    (*store)->flush();
    return std::move(*store);
}

} // namespace

int main(int argc, char *argv[])
{
    QCoreApplication app(argc, argv);
    if (argc < 3) {
        std::fprintf(stderr, "usage: ferry_ingestbench LOG WORKDIR [BATCH_LINES [all|pipeline|parse|store|csv]]\n");
        return 1;
    }
    const QString log = QString::fromLocal8Bit(argv[1]);
    const QString work = QString::fromLocal8Bit(argv[2]);
    const int batchLines = argc > 3 ? std::atoi(argv[3]) : 4096;
    const QByteArray phase = argc > 4 ? QByteArray(argv[4]) : QByteArray("all"); // one phase alone: for perf

    // The whole pipeline, as re-attach runs it: the writer thread stores while this one parses.
    qsizetype points = 0;
    if (phase == "all" || phase == "pipeline") {
        auto store = freshStore(work + u"/pipeline"_s);
        if (!store)
            return 2;
        QElapsedTimer timer;
        timer.start();
        {
            MetricParser parser;
            QList<MetricPoint> batch;
            int lines = 0;
            qint64 last = 0;
            const bool ok = forEachLine(log, [&](QStringView line, qint64 wallMs, qint64 offset) {
                parser.parseLine(line, wallMs, batch);
                last = offset;
                if (++lines % batchLines == 0)
                    store->appendMetrics(kRun, std::exchange(batch, {}), offset);
            });
            if (!ok)
                return 2;
            store->appendMetrics(kRun, std::exchange(batch, {}), last);
            store->flush();
        }
        const double seconds = timer.nsecsElapsed() / 1e9;
        points = store->metrics(kRun).size();
        std::printf("ferry %lld %.3f\n", static_cast<long long>(points), seconds);
        std::fflush(stdout);
    }
    if (phase == "pipeline")
        return 0;
    if (phase == "csv") { // the points the peers load, as CSV (run,name,step,wall_ms,value,epoch), untimed
        auto store = freshStore(work + u"/pipeline"_s);
        MetricParser parser;
        QList<MetricPoint> all;
        forEachLine(log, [&](QStringView line, qint64 wallMs, qint64) { parser.parseLine(line, wallMs, all); });
        QFile csv(work + u"/points.csv"_s);
        if (!csv.open(QIODevice::WriteOnly))
            return 2;
        QByteArray text;
        for (const MetricPoint &p : std::as_const(all)) {
            text += kRun.toUtf8() + ',' + p.name.toUtf8() + ',' + QByteArray::number(p.step, 'g', 17) + ',' +
                    QByteArray::number(p.wallMs) + ',' + QByteArray::number(p.value, 'g', 17) + ',' +
                    (std::isnan(p.epoch) ? QByteArray() : QByteArray::number(p.epoch, 'g', 17)) + '\n';
            if (text.size() > (1 << 20))
                csv.write(std::exchange(text, {}));
        }
        csv.write(text);
        return 0;
    }

    // Where the time goes: parsing alone, then storing alone.
    QList<Batch> batches;
    QElapsedTimer timer;
    timer.start();
    {
        MetricParser parser;
        QList<MetricPoint> batch;
        int lines = 0;
        qint64 last = 0;
        forEachLine(log, [&](QStringView line, qint64 wallMs, qint64 offset) {
            parser.parseLine(line, wallMs, batch);
            last = offset;
            if (++lines % batchLines == 0)
                batches.append(Batch{std::exchange(batch, {}), offset});
        });
        batches.append(Batch{std::exchange(batch, {}), last});
    }
    const double parseSeconds = timer.nsecsElapsed() / 1e9;
    if (phase == "parse")
        return 0;
    points = 0;
    for (const Batch &b : batches)
        points += b.points.size();
    auto store = freshStore(work + u"/store-only"_s);
    if (!store)
        return 2;
    timer.restart();
    for (Batch &b : batches)
        store->appendMetrics(kRun, std::move(b.points), b.offset);
    store->flush();
    const double storeSeconds = timer.nsecsElapsed() / 1e9;
    std::fprintf(stderr, "  parse only: %.3f s (%.0f points/s); store only: %.3f s (%.0f points/s)\n", parseSeconds,
                 points / parseSeconds, storeSeconds, points / storeSeconds);
    return 0;
}
