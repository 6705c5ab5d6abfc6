// Inline primitives that scan one CSV field and read the number in it, called once per field by the
// table parser.
#pragma once

#include <QByteArray>
#include <QByteArrayView>
#include <QString>

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>

// The bytes of a CSV/TSV field (RFC 4180 quoting) and the numbers in them, read in place:
// inline, because the table parser calls these once per field.

namespace ferry::data::csv {

// `text` as one field of a CSV line Ferry writes (predictions, chart exports): quoted, with its
// quotes doubled, when it holds a comma, a quote or a line end (RFC 4180).
inline QString quotedField(const QString &text)
{
    if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n') && !text.contains(u'\r'))
        return text;
    QString quoted = text;
    quoted.replace(QStringLiteral("\""), QStringLiteral("\"\""));
    return u'"' + quoted + u'"';
}

// The missing-value words (empty, NA, N/A, NaN, null, ?), case-insensitive, spaces ignored.
inline bool isMissingValue(QByteArrayView text)
{
    text = text.trimmed();
    if (text.isEmpty())
        return true;
    if (text.size() > 4)
        return false;
    char lower[4];
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char c = text[i];
        lower[i] = c >= 'A' && c <= 'Z' ? char(c - 'A' + 'a') : c;
    }
    const std::string_view word(lower, size_t(text.size()));
    return word == "na" || word == "n/a" || word == "nan" || word == "null" || word == "?";
}

inline bool isBlank(char c, char delimiter)
{
    return c == ' ' || (c == '\t' && delimiter != '\t');
}

inline bool endsField(char c, char delimiter)
{
    return c == delimiter || c == '\n' || c == '\r';
}

// One field as it lies in the file: its content without the quotes and surrounding spaces.
struct Field {
    const char *begin = nullptr;
    const char *end = nullptr;
    bool quoted = false;
    bool escaped = false; // holds "" (or text after the closing quote): never a number
    QByteArrayView view() const { return QByteArrayView(begin, end - begin); }
};

// Reads the field at p; returns where it ends (at the delimiter, '\r', '\n' or `end`), or
// nullptr when a quoted field is never closed.
inline const char *scanField(const char *p, const char *end, char delimiter, Field &field)
{
    while (p < end && isBlank(*p, delimiter))
        ++p;
    field = Field{};
    if (p < end && *p == '"') {
        field.quoted = true;
        field.begin = ++p;
        for (;;) {
            const char *q = static_cast<const char *>(std::memchr(p, '"', static_cast<size_t>(end - p)));
            if (!q)
                return nullptr;
            if (q + 1 < end && q[1] == '"') {
                field.escaped = true;
                p = q + 2;
                continue;
            }
            field.end = q;
            p = q + 1;
            break;
        }
        for (; p < end && !endsField(*p, delimiter); ++p) {
            if (!isBlank(*p, delimiter))
                field.escaped = true;
        }
        return p;
    }
    field.begin = p;
    while (p < end && !endsField(*p, delimiter))
        ++p;
    const char *e = p;
    while (e > field.begin && isBlank(e[-1], delimiter))
        --e;
    field.end = e;
    return p;
}

inline QByteArray fieldBytes(const Field &field)
{
    QByteArray bytes(field.begin, field.end - field.begin);
    if (field.escaped && field.quoted)
        bytes.replace("\"\"", "\"");
    return bytes;
}

inline QString fieldText(const Field &field)
{
    return QString::fromUtf8(fieldBytes(field));
}

// std::from_chars for float; a value beyond float's range goes through double, so that an
// underflow becomes 0 (or a subnormal) and an overflow is refused. nullptr: not a number.
inline const char *readFloatSlow(const char *begin, const char *end, float &value)
{
    const auto [ptr, ec] = std::from_chars(begin, end, value);
    if (ec == std::errc())
        return std::isfinite(value) ? ptr : nullptr;
    if (ec != std::errc::result_out_of_range)
        return nullptr;
    double wide = 0;
    const auto [widePtr, wideEc] = std::from_chars(begin, end, wide);
    if (wideEc == std::errc::result_out_of_range && widePtr == ptr && std::fabs(wide) < 1) {
        value = 0; // below double's range too
        return ptr;
    }
    if (wideEc != std::errc())
        return nullptr;
    value = static_cast<float>(wide);
    return std::isfinite(value) ? widePtr : nullptr;
}

inline constexpr float powersOf10[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

inline bool isDigit(char c)
{
    return static_cast<unsigned char>(c - '0') < 10;
}

// The number at `begin`, as std::from_chars reads it (the same syntax, the same correctly
// rounded float). Most table values have at most 7 significant digits and a small exponent:
// then the digits and the power of ten are both exact floats, and one IEEE multiplication or
// division rounds correctly (Clinger's fast path, as in fast_float). Anything else goes to
// std::from_chars. nullptr: not a number.
inline const char *readFloat(const char *begin, const char *end, float &value)
{
    const char *p = begin;
    const bool negative = p < end && *p == '-';
    p += negative ? 1 : 0;
    std::uint64_t mantissa = 0;
    const char *digits = p;
    while (p < end && isDigit(*p))
        mantissa = mantissa * 10 + std::uint64_t(*p++ - '0');
    qsizetype count = p - digits;
    int exponent = 0;
    if (p < end && *p == '.') {
        const char *fraction = ++p;
        while (p < end && isDigit(*p))
            mantissa = mantissa * 10 + std::uint64_t(*p++ - '0');
        count += p - fraction;
        exponent = -int(p - fraction);
    }
    if (count == 0 || count > 19) // inf, nan, no digits, or more than 64 bits of digits
        return readFloatSlow(begin, end, value);
    if (p < end && (*p == 'e' || *p == 'E')) {
        const char *q = p + 1;
        const bool negativeExponent = q < end && *q == '-';
        q += q < end && (*q == '-' || *q == '+') ? 1 : 0;
        if (q < end && isDigit(*q)) { // else the number ends before the 'e', as in from_chars
            int written = 0;
            while (q < end && isDigit(*q)) {
                written = written < 100000 ? written * 10 + (*q - '0') : written;
                ++q;
            }
            exponent += negativeExponent ? -written : written;
            p = q;
        }
    }
    if (mantissa <= (std::uint64_t(1) << 24) && exponent >= -10 && exponent <= 10) {
        const float digitsValue = float(mantissa);
        const float magnitude = exponent < 0 ? digitsValue / powersOf10[-exponent] : digitsValue * powersOf10[exponent];
        value = negative ? -magnitude : magnitude;
        return p;
    }
    if (mantissa == 0) {
        value = negative ? -0.0f : 0.0f;
        return p;
    }
    return readFloatSlow(begin, end, value);
}

// The number at p (spaces, an optional '+', the number, spaces) when the field ends after it;
// returns the position of the field's end, nullptr when the field is not a plain number.
inline const char *fastNumber(const char *p, const char *end, char delimiter, float &value)
{
    while (p < end && isBlank(*p, delimiter))
        ++p;
    if (p < end && *p == '+') {
        ++p;
        if (p < end && (*p == '-' || *p == '+'))
            return nullptr;
    }
    const char *q = readFloat(p, end, value);
    if (!q)
        return nullptr;
    while (q < end && isBlank(*q, delimiter))
        ++q;
    if (q < end && !endsField(*q, delimiter))
        return nullptr;
    return q;
}

// A whole field's content as a number (quoted numbers included).
inline bool fieldNumber(const Field &field, char delimiter, float &value)
{
    if (field.escaped || field.begin == field.end)
        return false;
    const char *end = field.end;
    const char *q = fastNumber(field.begin, end, delimiter, value);
    return q == end;
}

inline bool fieldMissing(const Field &field)
{
    return !field.escaped && isMissingValue(field.view());
}

} // namespace ferry::data::csv
