#include "store/seriesblock.h"

#include "common/crc32c.h"
#include "store/columncodec.h"

#include <QtEndian>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <string>

using namespace Qt::StringLiterals;

namespace ferry::run::seriesblock {

using columncodec::Bytes;
using columncodec::Reader;

namespace {

constexpr quint8 kFormat = 1;
constexpr int kColumns = 4;
constexpr qsizetype kCrcBytes = 4;

Error damaged(const QString &what)
{
    return Error{u"damaged metric block: %1"_s.arg(what),
                 {},
                 0,
                 0,
                 u"run 'ferry doctor --store'; restore the workspace's .ferry/runs.sqlite from a backup"_s};
}

struct Layout {
    qsizetype count = 0;
    std::array<std::pair<Codec, Reader>, kColumns> columns{{{Codec::Raw, {nullptr, nullptr}},
                                                            {Codec::Raw, {nullptr, nullptr}},
                                                            {Codec::Raw, {nullptr, nullptr}},
                                                            {Codec::Raw, {nullptr, nullptr}}}};
};

Expected<Layout> layout(QByteArrayView block)
{
    if (block.size() < 2 + kCrcBytes)
        return damaged(u"%1 bytes is too short"_s.arg(block.size()));
    const auto *bytes = reinterpret_cast<const uchar *>(block.data());
    const qsizetype body = block.size() - kCrcBytes;
    if (crc32c(block.first(body)) != qFromLittleEndian<quint32>(bytes + body))
        return damaged(u"its checksum does not match its bytes"_s);
    Reader in(bytes, bytes + body);
    quint8 format;
    quint64 count;
    if (!in.byte(format) || format != kFormat)
        return damaged(u"unknown format %1"_s.arg(format));
    if (!in.varint(count) || count > (1u << 30))
        return damaged(u"bad point count"_s);
    Layout l;
    l.count = static_cast<qsizetype>(count);
    for (auto &[codec, part] : l.columns) {
        quint8 c;
        quint64 length;
        if (!in.byte(c) || c > static_cast<quint8>(Codec::Gorilla) || !in.varint(length) ||
            !in.take(static_cast<qsizetype>(std::min<quint64>(length, quint64{1} << 40)), part))
            return damaged(u"a column runs past the block's end"_s);
        codec = static_cast<Codec>(c);
    }
    if (!in.atEnd())
        return damaged(u"bytes after the last column"_s);
    return l;
}

} // namespace

QByteArray encode(std::span<const SeriesPoint> points)
{
    const size_t n = points.size();
    std::vector<double> doubles(n);
    std::vector<qint64> walls(n);
    Bytes block, column;
    block.byte(kFormat);
    block.varint(n);
    const auto putColumn = [&](Codec codec) {
        block.byte(static_cast<quint8>(codec));
        block.varint(static_cast<quint64>(column.size()));
        block.append(column);
        column.clear();
    };
    const auto doublesOf = [&](double SeriesPoint::*field) {
        for (size_t i = 0; i < n; ++i)
            doubles[i] = points[i].*field;
        return n == 0 ? Codec::Raw : columncodec::putDoubles(column, doubles);
    };
    putColumn(doublesOf(&SeriesPoint::step));
    for (size_t i = 0; i < n; ++i)
        walls[i] = points[i].wallMs;
    putColumn(columncodec::putWallTimes(column, walls));
    putColumn(doublesOf(&SeriesPoint::value));
    putColumn(doublesOf(&SeriesPoint::epoch));
    const std::string &bytes = block.data();
    QByteArray result(static_cast<qsizetype>(bytes.size()) + kCrcBytes, Qt::Uninitialized);
    std::memcpy(result.data(), bytes.data(), bytes.size());
    qToLittleEndian(crc32c(QByteArrayView(bytes.data(), static_cast<qsizetype>(bytes.size()))),
                    result.data() + bytes.size());
    return result;
}

Expected<Header> header(QByteArrayView block)
{
    const auto l = layout(block);
    if (!l)
        return l.error();
    return Header{l->count};
}

Expected<void> decode(QByteArrayView block, std::vector<SeriesPoint> &out)
{
    auto l = layout(block);
    if (!l)
        return l.error();
    const qsizetype n = l->count;
    const size_t base = out.size();
    out.resize(base + static_cast<size_t>(n));
    // An empty block's columns still decode (and must end); with no point to write, they are
    // pointed at one of their own (out.data() may be null, and a member of null is no address).
    SeriesPoint none;
    SeriesPoint *p = n > 0 ? out.data() + base : &none;
    auto &[stepCodec, steps] = l->columns[0];
    auto &[wallCodec, walls] = l->columns[1];
    auto &[valueCodec, values] = l->columns[2];
    auto &[epochCodec, epochs] = l->columns[3];
    constexpr std::ptrdiff_t stride = sizeof(SeriesPoint) / sizeof(double);
    static_assert(sizeof(SeriesPoint) == 4 * sizeof(double));
    const bool ok = columncodec::getDoubles(steps, stepCodec, n, &p->step, stride) && steps.atEnd() &&
                    columncodec::getWallTimes(walls, wallCodec, n, &p->wallMs, stride) && walls.atEnd() &&
                    columncodec::getDoubles(values, valueCodec, n, &p->value, stride) && values.atEnd() &&
                    columncodec::getDoubles(epochs, epochCodec, n, &p->epoch, stride) && epochs.atEnd();
    if (!ok) {
        out.resize(base);
        return damaged(u"a column does not decode to its %1 points"_s.arg(n));
    }
    return {};
}

Expected<void> decode(QByteArrayView block, SeriesColumns &out)
{
    auto l = layout(block);
    if (!l)
        return l.error();
    const qsizetype n = l->count;
    const size_t base = out.steps.size(), total = base + static_cast<size_t>(n);
    // The epochs first, where they cost no memory yet: a block without any leaves them empty.
    thread_local std::vector<double> blockEpochs;
    blockEpochs.resize(static_cast<size_t>(n));
    auto &[epochCodec, epochs] = l->columns[3];
    if (!columncodec::getDoubles(epochs, epochCodec, n, blockEpochs.data(), 1) || !epochs.atEnd())
        return damaged(u"the epoch column does not decode to its %1 points"_s.arg(n));
    const bool anyEpoch = std::any_of(blockEpochs.begin(), blockEpochs.end(), [](double e) { return !std::isnan(e); });
    if (anyEpoch)
        out.keepEpochs();
    for (auto *column : {&out.steps, &out.wallMs, &out.values})
        column->resize(total);
    auto &[stepCodec, steps] = l->columns[0];
    auto &[wallCodec, walls] = l->columns[1];
    auto &[valueCodec, values] = l->columns[2];
    const bool ok = columncodec::getDoubles(steps, stepCodec, n, out.steps.data() + base, 1) && steps.atEnd() &&
                    columncodec::getWallTimes(walls, wallCodec, n, out.wallMs.data() + base, 1) && walls.atEnd() &&
                    columncodec::getDoubles(values, valueCodec, n, out.values.data() + base, 1) && values.atEnd();
    if (!ok) {
        for (auto *column : {&out.steps, &out.wallMs, &out.values})
            column->resize(base);
        if (out.epochs.size() > base)
            out.epochs.resize(base);
        return damaged(u"a column does not decode to its %1 points"_s.arg(n));
    }
    if (anyEpoch || !out.epochs.empty())
        out.epochs.insert(out.epochs.end(), blockEpochs.begin(), blockEpochs.end());
    return {};
}

Expected<std::array<ColumnStats, 4>> columnStats(QByteArrayView block)
{
    const auto l = layout(block);
    if (!l)
        return l.error();
    std::array<ColumnStats, 4> stats;
    for (size_t c = 0; c < stats.size(); ++c) {
        Reader part = l->columns[c].second;
        qsizetype bytes = 0;
        quint8 b;
        while (part.byte(b))
            ++bytes;
        stats[c] = ColumnStats{l->columns[c].first, bytes};
    }
    return stats;
}

} // namespace ferry::run::seriesblock
