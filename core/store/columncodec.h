// The column codecs that compress the metric store's blocks: varint deltas for integers, and
// constants, scaled decimals, Gorilla XOR or raw bits for doubles.
#pragma once

#include "store/seriesblock.h"

#include <QtEndian>

#include <cstddef>
#include <span>
#include <string>

// The column codecs of the metric store's blocks (store/seriesblock.h): integers as zigzag varint
// deltas or delta-of-deltas with runs of zeros, doubles as a constant, as integers, as scaled
// decimals (double or float32), as Gorilla XOR or raw. docs/metric-store.md measures them.
namespace ferry::run::columncodec {

using seriesblock::Codec;

class Bytes {
public:
    void byte(quint8 b) { m_data.push_back(static_cast<char>(b)); }
    void varint(quint64 v)
    {
        while (v >= 0x80) {
            byte(static_cast<quint8>(v | 0x80));
            v >>= 7;
        }
        byte(static_cast<quint8>(v));
    }
    void raw64(quint64 v)
    {
        char le[8];
        qToLittleEndian(v, le);
        m_data.append(le, sizeof le);
    }
    void append(const Bytes &other) { m_data += other.m_data; }
    qsizetype size() const { return static_cast<qsizetype>(m_data.size()); }
    const std::string &data() const { return m_data; }
    void clear() { m_data.clear(); }

private:
    std::string m_data;
};

class Reader {
public:
    Reader(const uchar *p, const uchar *end) : m_p(p), m_end(end) {}
    bool varint(quint64 &v)
    {
        v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            if (m_p == m_end)
                return false;
            const uchar b = *m_p++;
            v |= static_cast<quint64>(b & 0x7f) << shift;
            if (!(b & 0x80))
                return true;
        }
        return false;
    }
    bool byte(quint8 &b)
    {
        if (m_p == m_end)
            return false;
        b = *m_p++;
        return true;
    }
    bool raw64(quint64 &v)
    {
        if (m_end - m_p < 8)
            return false;
        v = qFromLittleEndian<quint64>(m_p);
        m_p += 8;
        return true;
    }
    bool take(qsizetype bytes, Reader &part)
    {
        if (bytes < 0 || m_end - m_p < bytes)
            return false;
        part = Reader(m_p, m_p + bytes);
        m_p += bytes;
        return true;
    }
    bool atEnd() const { return m_p == m_end; }

private:
    const uchar *m_p;
    const uchar *m_end;
};

// Writes a column into `out` with the codec that makes it smallest (of those worth trying), and
// says which. Wall times: Delta or DeltaOfDelta, Raw beyond 2^53 ms.
Codec putDoubles(Bytes &out, std::span<const double> values);
Codec putWallTimes(Bytes &out, std::span<const qint64> walls);

// Reads `n` values of a column written with `codec` into out[0], out[stride], ...; false when
// the bytes do not decode to exactly n values (the caller says the block is damaged).
bool getDoubles(Reader &in, Codec codec, qsizetype n, double *out, std::ptrdiff_t stride);
bool getWallTimes(Reader &in, Codec codec, qsizetype n, qint64 *out, std::ptrdiff_t stride);
bool getWallTimes(Reader &in, Codec codec, qsizetype n, double *out, std::ptrdiff_t stride); // as a chart keeps them

} // namespace ferry::run::columncodec
