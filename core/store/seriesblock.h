// The metric store's block format: one series' points as four compressed columns with a CRC-32C,
// decoded bit for bit.
#pragma once

#include "common/error.h"
#include "metrics/metricparser.h"

#include <QByteArray>
#include <QByteArrayView>

#include <array>
#include <span>
#include <vector>

// The metric store's block: points of one series (one metric of one run; as many as fill a
// database page, see store/serieswriter.h), in
// arrival order, as four compressed columns. The codecs and their measurements are in
// docs/metric-store.md; every block decodes to its points bit for bit (NaN payloads, -0.0,
// infinities, denormals and all), and carries a CRC-32C of its bytes.
namespace ferry::run {

namespace seriesblock {

constexpr int kBlockPoints = 1024; // a typical block (the format has no limit)

// The block of `points`.
QByteArray encode(std::span<const SeriesPoint> points);

// What a block holds without decoding it: its point count, and whether its bytes are intact.
struct Header {
    qsizetype count = 0;
};
Expected<Header> header(QByteArrayView block);

// Appends the block's points to `out`. Refuses a block whose checksum or structure is wrong
// (nothing appended then).
Expected<void> decode(QByteArrayView block, std::vector<SeriesPoint> &out);
// The same into columns (what a chart keeps).
Expected<void> decode(QByteArrayView block, SeriesColumns &out);

// The column codecs, exposed for tests and the study of docs/metric-store.md.
enum class Codec : quint8 {
    Raw = 0,          // 8 bytes each, little-endian
    Delta = 1,        // integers: zigzag varint deltas, runs of zero deltas as one varint
    DeltaOfDelta = 2, // integers: the same of delta-of-deltas
    Constant = 3,     // one value's 8 bytes for the whole column
    Decimal = 4,      // doubles: a common decimal exponent, the scaled integers as Delta or DeltaOfDelta
    Decimal32 = 5,    // the same for widened float32s (TensorBoard's simple_value)
    Gorilla = 6,      // doubles: Gorilla XOR (Pelkonen et al., VLDB 2015)
};
struct ColumnStats {
    Codec codec = Codec::Raw;
    qsizetype bytes = 0;
};
// Each column's codec and size in a block: [step, wall, value, epoch].
Expected<std::array<ColumnStats, 4>> columnStats(QByteArrayView block);

} // namespace seriesblock

} // namespace ferry::run
