#include "store/columncodec.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <vector>

namespace ferry::run::columncodec {

namespace {

constexpr int kMaxExponent = 22;          // 10^22 is the largest power of ten a double holds exactly
constexpr double kExactInts = 0x1p53;     // integers below this are exact in a double
constexpr double kGorillaWorthTrying = 5; // bytes per value above which Gorilla may do better

constexpr auto kPowersOfTen = [] {
    std::array<double, kMaxExponent + 1> p{};
    double v = 1;
    for (double &x : p) {
        x = v;
        v *= 10;
    }
    return p;
}();

quint64 bitsOf(double v)
{
    return std::bit_cast<quint64>(v);
}

quint64 zigzag(qint64 x)
{
    return (static_cast<quint64>(x) << 1) ^ static_cast<quint64>(x >> 63);
}

qint64 unzigzag(quint64 z)
{
    return static_cast<qint64>(z >> 1) ^ -static_cast<qint64>(z & 1);
}

// ---- writing

int varintSize(quint64 v)
{
    return v == 0 ? 1 : (70 - std::countl_zero(v)) / 7;
}

// A stream of integers (|x| < 2^62) as tokens: zigzag(x) << 1 for a non-zero one, (run - 1) << 1 | 1
// for a run of zeros. A constant step costs nothing under delta-of-delta.
template <typename Sink> void forEachToken(std::span<const qint64> xs, Sink sink)
{
    const size_t n = xs.size();
    for (size_t i = 0; i < n;) {
        if (xs[i] != 0) {
            sink(zigzag(xs[i]) << 1);
            ++i;
            continue;
        }
        size_t run = 1;
        while (i + run < n && xs[i + run] == 0)
            ++run;
        sink((static_cast<quint64>(run - 1) << 1) | 1);
        i += run;
    }
}

qsizetype tokensSize(std::span<const qint64> xs)
{
    qsizetype bytes = 0;
    forEachToken(xs, [&](quint64 t) { bytes += varintSize(t); });
    return bytes;
}

void putTokens(Bytes &out, std::span<const qint64> xs)
{
    forEachToken(xs, [&](quint64 t) { out.varint(t); });
}

// Deltas (order 1) or delta-of-deltas (order 2) of integers below 2^53 in magnitude.
std::vector<qint64> differences(std::span<const qint64> v, int order)
{
    std::vector<qint64> d(v.size());
    qint64 previous = 0, previousDelta = 0;
    for (size_t i = 0; i < v.size(); ++i) {
        const qint64 delta = v[i] - previous;
        d[i] = order == 1 ? delta : delta - previousDelta;
        previous = v[i];
        previousDelta = delta;
    }
    return d;
}

// The smaller of the two integer codecs, written into `out`: Delta or DeltaOfDelta.
Codec putIntegers(Bytes &out, std::span<const qint64> v)
{
    const std::vector<qint64> deltas = differences(v, 1);
    const std::vector<qint64> dods = differences(v, 2);
    if (tokensSize(dods) <= tokensSize(deltas)) {
        putTokens(out, dods);
        return Codec::DeltaOfDelta;
    }
    putTokens(out, deltas);
    return Codec::Delta;
}

bool smallInteger(double v, qint64 &as)
{
    if (!(std::fabs(v) < kExactInts) || v != std::trunc(v) || bitsOf(v) == bitsOf(-0.0))
        return false;
    as = static_cast<qint64>(v);
    return true;
}

// ---- decimal values

// The one decoding rule of the Decimal codecs: the double nearest to m / 10^e (IEEE division is
// correctly rounded, and both operands are exact), or for Decimal32 the float nearest to that.
double scaled(qint64 m, int e, bool float32)
{
    const double v = static_cast<double>(m) / kPowersOfTen[static_cast<size_t>(e)];
    return float32 ? static_cast<double>(static_cast<float>(v)) : v;
}

// Whether `v` decodes back from exponent `e`, and its scaled integer then.
bool scalesTo(double v, int e, bool float32, qint64 &m)
{
    const double s = v * kPowersOfTen[static_cast<size_t>(e)];
    if (!(std::fabs(s) < kExactInts))
        return false;
    m = static_cast<qint64>(std::nearbyint(s));
    return bitsOf(scaled(m, e, float32)) == bitsOf(v);
}

// The least exponent at which `v` decodes back, searched from `start` (a neighbour's: values of a
// series mostly share theirs); -1 when none does. Decoding back is monotonic in e: a value that
// scales at e scales at every larger e (10m / 10^(e+1) is the same number as m / 10^e).
int leastExponent(double v, int start, bool float32)
{
    qint64 m;
    int e = start;
    if (scalesTo(v, e, float32, m)) {
        while (e > 0 && scalesTo(v, e - 1, float32, m))
            --e;
        return e;
    }
    while (++e <= kMaxExponent) {
        if (scalesTo(v, e, float32, m))
            return e;
    }
    return -1;
}

// A Decimal column at exponent `e`: the values that do not scale there are exceptions, kept raw.
void putDecimal(Bytes &out, std::span<const double> values, int e, bool float32)
{
    std::vector<qint64> ints;
    ints.reserve(values.size());
    Bytes exceptions;
    qsizetype exceptionCount = 0;
    size_t lastException = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        qint64 m;
        if (scalesTo(values[i], e, float32, m)) {
            ints.push_back(m);
            continue;
        }
        exceptions.varint(i - lastException);
        exceptions.raw64(bitsOf(values[i]));
        lastException = i;
        ++exceptionCount;
    }
    out.byte(static_cast<quint8>(e));
    out.varint(static_cast<quint64>(exceptionCount));
    out.append(exceptions);
    Bytes body;
    out.byte(static_cast<quint8>(putIntegers(body, ints)));
    out.append(body);
}

// Candidate decimal encodings of `values`: the exponent that scales them all, and the one that
// scales 95% of them (the rest as exceptions); the smaller is kept.
bool bestDecimal(Bytes &out, std::span<const double> values, bool float32)
{
    std::array<qsizetype, kMaxExponent + 2> histogram{}; // [e + 1]; [0]: scales at no exponent
    int e = 0;
    for (double v : values) {
        const int least = leastExponent(v, e, float32);
        const int slot = least + 1;
        ++histogram[static_cast<size_t>(slot)];
        if (least >= 0)
            e = least;
    }
    const qsizetype n = static_cast<qsizetype>(values.size());
    if (histogram[0] * 4 > n) // mostly exceptions: not a decimal series
        return false;
    int all = -1, most = -1;
    qsizetype covered = 0;
    for (int x = 0; x <= kMaxExponent; ++x) {
        const qsizetype scaled = histogram[static_cast<size_t>(x) + 1];
        covered += scaled;
        if (scaled > 0)
            all = x;
        if (most < 0 && covered * 20 >= n * 19)
            most = x;
    }
    if (all < 0)
        return false;
    putDecimal(out, values, all, float32);
    if (most >= 0 && most != all) {
        Bytes other;
        putDecimal(other, values, most, float32);
        if (other.size() < out.size())
            out = std::move(other);
    }
    return true;
}

// ---- Gorilla XOR

class BitWriter {
public:
    explicit BitWriter(Bytes &out) : m_out(out) {}
    void put(quint64 bits, int count) // count 1..64, bits below 2^count
    {
        if (count > 32) { // the accumulator keeps up to 7 bits between calls
            put(bits >> 32, count - 32);
            put(bits & 0xffffffffu, 32);
            return;
        }
        m_acc = (m_acc << count) | bits;
        m_bits += count;
        while (m_bits >= 8) {
            m_bits -= 8;
            m_out.byte(static_cast<quint8>(m_acc >> m_bits));
        }
        m_acc &= (quint64{1} << m_bits) - 1;
    }
    void finish()
    {
        if (m_bits > 0)
            m_out.byte(static_cast<quint8>(m_acc << (8 - m_bits)));
        m_bits = 0;
    }

private:
    Bytes &m_out;
    quint64 m_acc = 0;
    int m_bits = 0;
};

void putGorilla(Bytes &out, std::span<const double> values)
{
    BitWriter w(out);
    quint64 previous = 0;
    int lead = -1, trail = 0;
    for (size_t i = 0; i < values.size(); ++i) {
        const quint64 bits = bitsOf(values[i]);
        if (i == 0) {
            w.put(bits, 64);
            previous = bits;
            continue;
        }
        const quint64 x = bits ^ previous;
        previous = bits;
        if (x == 0) {
            w.put(0, 1);
            continue;
        }
        const int l = std::countl_zero(x), t = std::countr_zero(x);
        if (lead >= 0 && l >= lead && t >= trail) {
            w.put(0b10, 2);
            w.put(x >> trail, 64 - lead - trail);
            continue;
        }
        lead = l;
        trail = t;
        const int length = 64 - l - t;
        w.put(0b11, 2);
        w.put(static_cast<quint64>(l), 6);
        w.put(static_cast<quint64>(length - 1), 6);
        w.put(x >> t, length);
    }
    w.finish();
}

// ---- reading

// Decodes `n` integers of a Delta or DeltaOfDelta token stream, handing each to `put`.
template <typename Put> bool getIntegers(Reader &in, Codec codec, qsizetype n, Put put)
{
    const bool twice = codec == Codec::DeltaOfDelta;
    qint64 value = 0, delta = 0;
    qsizetype i = 0;
    while (i < n) {
        quint64 token;
        if (!in.varint(token))
            return false;
        if (token & 1) {
            const quint64 run = (token >> 1) + 1;
            if (run > static_cast<quint64>(n - i))
                return false;
            for (quint64 r = 0; r < run; ++r, ++i) {
                if (twice)
                    value += delta;
                put(i, value);
            }
            continue;
        }
        const qint64 x = unzigzag(token >> 1);
        if (twice) {
            delta += x;
            value += delta;
        } else {
            value += x;
        }
        put(i++, value);
    }
    return true;
}

class BitReader {
public:
    explicit BitReader(Reader &in) : m_in(in) {}
    bool get(int count, quint64 &bits) // count 1..64
    {
        bits = 0;
        while (count > 0) {
            if (m_bits == 0) {
                quint8 b;
                if (!m_in.byte(b))
                    return false;
                m_acc = b;
                m_bits = 8;
            }
            const int take = std::min(count, m_bits);
            m_bits -= take;
            bits = (bits << take) | ((m_acc >> m_bits) & ((1u << take) - 1));
            count -= take;
        }
        return true;
    }

private:
    Reader &m_in;
    quint32 m_acc = 0;
    int m_bits = 0;
};

template <typename Put> bool getGorilla(Reader &in, qsizetype n, Put put)
{
    BitReader bits(in);
    quint64 previous = 0, b = 0;
    int lead = 0, trail = 0;
    for (qsizetype i = 0; i < n; ++i) {
        if (i == 0) {
            if (!bits.get(64, previous))
                return false;
            put(i, std::bit_cast<double>(previous));
            continue;
        }
        if (!bits.get(1, b))
            return false;
        if (b == 1) {
            if (!bits.get(1, b))
                return false;
            if (b == 1) {
                quint64 l, length;
                if (!bits.get(6, l) || !bits.get(6, length))
                    return false;
                lead = static_cast<int>(l);
                trail = 64 - lead - static_cast<int>(length + 1);
                if (trail < 0)
                    return false;
            }
            quint64 x;
            if (!bits.get(64 - lead - trail, x))
                return false;
            previous ^= x << trail;
        }
        put(i, std::bit_cast<double>(previous));
    }
    return true;
}

template <typename Put> bool getDecimal(Reader &in, Codec codec, qsizetype n, Put put)
{
    quint8 e, inner;
    quint64 exceptionCount;
    if (!in.byte(e) || e > kMaxExponent || !in.varint(exceptionCount) || exceptionCount > static_cast<quint64>(n))
        return false;
    const bool float32 = codec == Codec::Decimal32;
    std::vector<std::pair<qsizetype, quint64>> exceptions(exceptionCount);
    qsizetype position = 0;
    for (size_t k = 0; k < exceptions.size(); ++k) {
        quint64 gap;
        if (!in.varint(gap) || gap > static_cast<quint64>(n) || (k > 0 && gap == 0) || !in.raw64(exceptions[k].second))
            return false;
        position += static_cast<qsizetype>(gap);
        if (position >= n)
            return false;
        exceptions[k].first = position;
    }
    if (!in.byte(inner) ||
        (inner != static_cast<quint8>(Codec::Delta) && inner != static_cast<quint8>(Codec::DeltaOfDelta)))
        return false;
    // The scaled integers fill the positions between the exceptions.
    auto next = exceptions.cbegin();
    qsizetype at = 0;
    const auto skipExceptions = [&] {
        while (next != exceptions.cend() && next->first == at) {
            put(at++, std::bit_cast<double>(next->second));
            ++next;
        }
    };
    skipExceptions();
    const qsizetype count = n - static_cast<qsizetype>(exceptionCount);
    const bool ok = getIntegers(in, static_cast<Codec>(inner), count, [&](qsizetype, qint64 m) {
        put(at++, scaled(m, e, float32));
        skipExceptions();
    });
    return ok && at == n;
}

template <typename Put> bool getDoubleColumn(Reader &in, Codec codec, qsizetype n, Put put)
{
    switch (codec) {
    case Codec::Raw:
        for (qsizetype i = 0; i < n; ++i) {
            quint64 bits;
            if (!in.raw64(bits))
                return false;
            put(i, std::bit_cast<double>(bits));
        }
        return true;
    case Codec::Constant: {
        quint64 bits;
        if (!in.raw64(bits))
            return false;
        for (qsizetype i = 0; i < n; ++i)
            put(i, std::bit_cast<double>(bits));
        return true;
    }
    case Codec::Delta:
    case Codec::DeltaOfDelta:
        return getIntegers(in, codec, n, [&](qsizetype i, qint64 v) { put(i, static_cast<double>(v)); });
    case Codec::Decimal:
    case Codec::Decimal32:
        return getDecimal(in, codec, n, put);
    case Codec::Gorilla:
        return getGorilla(in, n, put);
    }
    return false;
}

} // namespace

Codec putDoubles(Bytes &out, std::span<const double> values)
{
    const quint64 first = bitsOf(values[0]);
    if (std::all_of(values.begin(), values.end(), [first](double v) { return bitsOf(v) == first; })) {
        out.raw64(first);
        return Codec::Constant;
    }
    const qsizetype n = static_cast<qsizetype>(values.size());
    std::vector<qint64> ints(values.size());
    bool integral = true;
    for (size_t i = 0; i < values.size() && integral; ++i)
        integral = smallInteger(values[i], ints[i]);
    if (integral)
        return putIntegers(out, ints);

    Bytes best;
    Codec codec = Codec::Raw;
    if (bestDecimal(best, values, false))
        codec = Codec::Decimal;
    // Widened float32s (TensorBoard's): their shortest float decimal is shorter than a double's.
    const size_t probe = std::min<size_t>(values.size(), 16);
    const auto isFloat = [](double v) { return bitsOf(static_cast<double>(static_cast<float>(v))) == bitsOf(v); };
    if (std::all_of(values.begin(), values.begin() + static_cast<qsizetype>(probe), isFloat)) {
        Bytes asFloats;
        if (bestDecimal(asFloats, values, true) && (codec == Codec::Raw || asFloats.size() < best.size())) {
            best = std::move(asFloats);
            codec = Codec::Decimal32;
        }
    }
    if (codec == Codec::Raw || static_cast<double>(best.size()) > kGorillaWorthTrying * static_cast<double>(n)) {
        Bytes gorilla;
        putGorilla(gorilla, values);
        if (codec == Codec::Raw || gorilla.size() < best.size()) {
            best = std::move(gorilla);
            codec = Codec::Gorilla;
        }
    }
    if (best.size() >= 8 * n) {
        for (double v : values)
            out.raw64(bitsOf(v));
        return Codec::Raw;
    }
    out.append(best);
    return codec;
}

Codec putWallTimes(Bytes &out, std::span<const qint64> walls)
{
    const bool small =
        std::all_of(walls.begin(), walls.end(), [](qint64 w) { return w > -(1ll << 53) && w < (1ll << 53); });
    if (small)
        return putIntegers(out, walls);
    for (qint64 w : walls)
        out.raw64(static_cast<quint64>(w));
    return Codec::Raw;
}

bool getDoubles(Reader &in, Codec codec, qsizetype n, double *out, std::ptrdiff_t stride)
{
    return getDoubleColumn(in, codec, n, [out, stride](qsizetype i, double v) { out[i * stride] = v; });
}

namespace {

template <typename T> bool getWallColumn(Reader &in, Codec codec, qsizetype n, T *out, std::ptrdiff_t stride)
{
    if (codec == Codec::Delta || codec == Codec::DeltaOfDelta)
        return getIntegers(in, codec, n, [out, stride](qsizetype i, qint64 v) { out[i * stride] = static_cast<T>(v); });
    if (codec != Codec::Raw)
        return false;
    for (qsizetype i = 0; i < n; ++i) {
        quint64 bits;
        if (!in.raw64(bits))
            return false;
        out[i * stride] = static_cast<T>(static_cast<qint64>(bits));
    }
    return true;
}

} // namespace

bool getWallTimes(Reader &in, Codec codec, qsizetype n, qint64 *out, std::ptrdiff_t stride)
{
    return getWallColumn(in, codec, n, out, stride);
}

bool getWallTimes(Reader &in, Codec codec, qsizetype n, double *out, std::ptrdiff_t stride)
{
    return getWallColumn(in, codec, n, out, stride);
}

} // namespace ferry::run::columncodec
