// CRC-32C checksums (hardware-accelerated where possible) for TFRecord files and the metric store's
// blocks.
#pragma once

#include <QByteArrayView>

namespace ferry {

// CRC-32C (Castagnoli) of `bytes`, continuing from `crc` (0 to start): the checksum of TFRecord
// (metrics/eventfile.h) and of the metric store's blocks (store/seriesblock.h). Uses the CPU's crc32
// instruction where there is one (SSE 4.2), else tables eight bytes at a time; crc32cPortable
// always uses the tables, so that tests can compare the two.
quint32 crc32c(QByteArrayView bytes, quint32 crc = 0);
quint32 crc32cPortable(QByteArrayView bytes, quint32 crc = 0);

} // namespace ferry
