// Fuzz target for TensorBoard's event file reader (metrics/eventfile.h), on whatever a script wrote:
// untrusted. The input is read twice over: as an event file itself, and as the payloads of records
// this target frames with valid CRCs (so that the fuzzer reaches the Event parsing beyond the
// checksums). Each file is read whole, then as a file growing in pieces (their size from the
// input's first byte), which must give the same points, offset and error; then with every record
// walked field by field as long ones are (EventFileLimits), which must not crash. The images,
// histograms and texts indexed must be the same whole and in pieces, their bytes within the file
// (tests/fuzz/run.sh; replayed by fuzz_event_file_replay).
#include "metrics/eventfile.h"

#include <QByteArray>
#include <QtEndian>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>

using namespace Qt::StringLiterals;
using ferry::run::EventFileLimits;
using ferry::run::EventFileReader;
using ferry::run::MetricPoint;

namespace {

struct Reading {
    QList<MetricPoint> points;
    QList<ferry::run::MediaItem> media;
    qsizetype refused = 0;
    qint64 offset = 0;
    bool failed = false;
};

// The file as a follower reads it, `piece` more bytes at a time (0: all at once).
Reading readGrowing(QByteArrayView file, qsizetype piece, EventFileLimits limits)
{
    EventFileReader reader(u"p/"_s, u"fuzz"_s, limits);
    Reading r;
    qsizetype available = 0;
    for (;;) {
        available = piece > 0 ? std::min(file.size(), available + piece) : file.size();
        if (reader.offset() < 0 || reader.offset() > available)
            __builtin_trap(); // consumed what it was not given
        const auto got = reader.read(file.sliced(reader.offset(), available - reader.offset()));
        if (!got) {
            r.failed = true;
            break;
        }
        for (const MetricPoint &p : *got) {
            if (!p.name.startsWith(u"p/"_s))
                __builtin_trap(); // every point is named after the prefix
        }
        r.points += *got;
        for (const ferry::run::MediaItem &item : reader.takeMedia()) {
            if (item.offset < 0 || item.length < 0 || item.offset + item.length > available)
                __builtin_trap(); // an item's bytes outside what was read
            r.media.append(item);
        }
        r.refused += reader.takeRefused().size();
        if (!reader.failed() && reader.bytesWanted() < 12)
            __builtin_trap(); // a record needs its header at least
        if (available == file.size() && !reader.failed())
            break;
    }
    r.offset = reader.offset();
    return r;
}

bool same(const Reading &a, const Reading &b)
{
    if (a.offset != b.offset || a.failed != b.failed || a.points.size() != b.points.size() || a.media != b.media ||
        a.refused != b.refused)
        return false;
    for (qsizetype i = 0; i < a.points.size(); ++i) {
        const MetricPoint &p = a.points.at(i);
        const MetricPoint &q = b.points.at(i);
        if (p.name != q.name || std::bit_cast<quint64>(p.step) != std::bit_cast<quint64>(q.step) ||
            std::bit_cast<quint64>(p.value) != std::bit_cast<quint64>(q.value) || p.wallMs != q.wallMs)
            return false;
    }
    return true;
}

// The input cut into payloads (a length byte, or two when the first has its high bit set, then as
// many bytes as there are up to it), each framed as TFRecord frames them.
QByteArray framed(QByteArrayView input)
{
    QByteArray file;
    qsizetype at = 0;
    while (at < input.size()) {
        qsizetype length = static_cast<uchar>(input.at(at++));
        if (length & 0x80) {
            length &= 0x7f;
            if (at < input.size())
                length = (length << 8) | static_cast<uchar>(input.at(at++));
        }
        const QByteArrayView data = input.sliced(at, std::min(length, input.size() - at));
        at += data.size();
        char header[12];
        qToLittleEndian<quint64>(static_cast<quint64>(data.size()), header);
        qToLittleEndian<quint32>(ferry::run::maskedCrc32c(QByteArrayView(header, 8)), header + 8);
        char footer[4];
        qToLittleEndian<quint32>(ferry::run::maskedCrc32c(data), footer);
        file.append(header, sizeof header).append(data).append(footer, sizeof footer);
    }
    return file;
}

void check(QByteArrayView file, qsizetype piece)
{
    const Reading whole = readGrowing(file, 0, {});
    if (!same(whole, readGrowing(file, piece, {})))
        __builtin_trap(); // the pieces of a growing file gave other points than the whole
    readGrowing(file, 0, EventFileLimits{1 << 20, 0, 64, {}});
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    const qsizetype piece = size > 0 ? 1 + data[0] % 64 : 1;
    check(input, piece);
    check(framed(input), piece);
    return 0;
}
