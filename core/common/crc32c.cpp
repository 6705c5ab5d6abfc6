#include "common/crc32c.h"

#include <QtEndian>

#include <array>
#include <cstring>

#if defined(__x86_64__)
#include <nmmintrin.h>
#define FERRY_CRC32C_SSE42 1
#endif

namespace ferry {

namespace {

// CRC-32C with the reflected Castagnoli polynomial. kTables[0] is the byte-at-a-time table;
// kTables[k][b] is the CRC of byte b followed by k zero bytes, so that eight bytes are folded in
// with eight independent look-ups ("slicing by 8").
constexpr quint32 kCastagnoli = 0x82f63b78;
constexpr auto kTables = [] {
    std::array<std::array<quint32, 256>, 8> tables{};
    for (quint32 b = 0; b < 256; ++b) {
        quint32 crc = b;
        for (int bit = 0; bit < 8; ++bit)
            crc = (crc >> 1) ^ ((crc & 1) ? kCastagnoli : 0);
        tables[0][b] = crc;
    }
    for (std::size_t k = 1; k < 8; ++k) {
        for (std::size_t b = 0; b < 256; ++b)
            tables[k][b] = (tables[k - 1][b] >> 8) ^ tables[0][tables[k - 1][b] & 0xff];
    }
    return tables;
}();

// The CRC register (the inverted CRC) after `n` more bytes.
quint32 tableUpdate(quint32 state, const uchar *p, qsizetype n)
{
    for (; n >= 8; p += 8, n -= 8) {
        const quint32 low = state ^ qFromLittleEndian<quint32>(p);
        const quint32 high = qFromLittleEndian<quint32>(p + 4);
        state = kTables[7][low & 0xff] ^ kTables[6][(low >> 8) & 0xff] ^ kTables[5][(low >> 16) & 0xff] ^
                kTables[4][low >> 24] ^ kTables[3][high & 0xff] ^ kTables[2][(high >> 8) & 0xff] ^
                kTables[1][(high >> 16) & 0xff] ^ kTables[0][high >> 24];
    }
    for (; n > 0; ++p, --n)
        state = (state >> 8) ^ kTables[0][(state ^ *p) & 0xff];
    return state;
}

#ifdef FERRY_CRC32C_SSE42
// SSE 4.2's crc32 instruction computes exactly this CRC, eight bytes per instruction. Compiled for
// SSE 4.2 alone, called only when the CPU says it has it: the build stays for any x86-64.
__attribute__((target("sse4.2"))) quint32 hardwareUpdate(quint32 state, const uchar *p, qsizetype n)
{
    quint64 wide = state;
    for (; n >= 8; p += 8, n -= 8) {
        quint64 word;
        std::memcpy(&word, p, sizeof word);
        wide = _mm_crc32_u64(wide, word);
    }
    state = static_cast<quint32>(wide);
    for (; n > 0; ++p, --n)
        state = _mm_crc32_u8(state, *p);
    return state;
}

bool hasSse42()
{
    static const bool has = __builtin_cpu_supports("sse4.2");
    return has;
}
#endif

} // namespace

quint32 crc32cPortable(QByteArrayView bytes, quint32 crc)
{
    return ~tableUpdate(~crc, reinterpret_cast<const uchar *>(bytes.data()), bytes.size());
}

quint32 crc32c(QByteArrayView bytes, quint32 crc)
{
#ifdef FERRY_CRC32C_SSE42
    if (hasSse42())
        return ~hardwareUpdate(~crc, reinterpret_cast<const uchar *>(bytes.data()), bytes.size());
#endif
    return crc32cPortable(bytes, crc);
}

} // namespace ferry
