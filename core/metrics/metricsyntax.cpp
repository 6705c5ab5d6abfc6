#include "metrics/metricsyntax.h"

#include <QString>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run::metricsyntax {

namespace {

bool isDigit(QChar c)
{
    return c >= u'0' && c <= u'9';
}

qsizetype skipSpaces(QStringView s, qsizetype i)
{
    while (i < s.size() && (s[i] == u' ' || s[i] == u'\t'))
        ++i;
    return i;
}

// A quoted Python string at `i` ('...' or "...", backslash escapes skipped); its end past the
// closing quote, or -1. `text` is what it holds, escapes as written.
qsizetype quoted(QStringView s, qsizetype i, QStringView &text)
{
    if (i >= s.size() || (s[i] != u'\'' && s[i] != u'"'))
        return -1;
    const QChar quote = s[i];
    const qsizetype start = ++i;
    for (; i < s.size() && s[i] != quote; ++i) {
        if (s[i] == u'\\')
            ++i;
    }
    if (i >= s.size())
        return -1;
    text = s.sliced(start, i - start);
    return i + 1;
}

// A bare Python word at `i` (True, None, nan, ...): its end, or `i`.
qsizetype bareWord(QStringView s, qsizetype i)
{
    qsizetype j = i;
    while (j < s.size() && (s[j].isLetterOrNumber() || s[j] == u'_' || s[j] == u'.'))
        ++j;
    return j;
}

constexpr auto kExactPowersOfTen = [] {
    std::array<double, 23> p{};
    double v = 1;
    for (double &x : p) {
        x = v;
        v *= 10;
    }
    return p;
}();

// The common number ("0.031250", "-12", "5e-05") the fast way: digits m (below 2^53) and a power of
// ten 10^k (|k| <= 22), both exact as doubles, so m * 10^k or m / 10^-k is one correctly rounded
// operation: the double from_chars gives (Clinger's fast path). False for anything else, which
// from_chars then reads.
bool exactDecimal(QStringView text, double &value)
{
    const qsizetype n = text.size();
    qsizetype i = 0;
    bool negative = false;
    if (i < n && (text[i] == u'-' || text[i] == u'+')) {
        negative = text[i] == u'-';
        ++i;
    }
    quint64 m = 0;
    int digits = 0, scale = 0;
    const qsizetype intStart = i;
    for (; i < n && isDigit(text[i]); ++i) {
        if (++digits > 15)
            return false;
        m = m * 10 + (text[i].unicode() - u'0');
    }
    bool any = i > intStart;
    if (i < n && text[i] == u'.') {
        const qsizetype fraction = ++i;
        for (; i < n && isDigit(text[i]); ++i) {
            if (++digits > 15)
                return false;
            m = m * 10 + (text[i].unicode() - u'0');
            --scale;
        }
        any = any || i > fraction;
    }
    if (!any)
        return false;
    if (i < n && (text[i] == u'e' || text[i] == u'E')) {
        ++i;
        bool negativeExponent = false;
        if (i < n && (text[i] == u'-' || text[i] == u'+')) {
            negativeExponent = text[i] == u'-';
            ++i;
        }
        const qsizetype expStart = i;
        int exponent = 0;
        for (; i < n && isDigit(text[i]); ++i) {
            if (i - expStart >= 3)
                return false;
            exponent = exponent * 10 + (text[i].unicode() - u'0');
        }
        if (i == expStart)
            return false;
        scale += negativeExponent ? -exponent : exponent;
    }
    if (i != n || scale < -22 || scale > 22)
        return false;
    // At most 15 digits: m < 10^15 < 2^53 is exact, and so is 10^|scale|.
    double v = static_cast<double>(m);
    if (scale < 0)
        v /= kExactPowersOfTen[static_cast<size_t>(-scale)];
    else
        v *= kExactPowersOfTen[static_cast<size_t>(scale)];
    value = negative ? -v : v;
    return true;
}

} // namespace

// A plain decimal number (ASCII, no nan/inf) converted without going through QString; false
// when it is anything else, or out of range: the caller then takes the general path.
bool plainNumber(QStringView text, double &value)
{
    if (exactDecimal(text, value))
        return true;
    char buffer[64];
    qsizetype n = 0;
    qsizetype i = !text.isEmpty() && text[0] == u'+' ? 1 : 0;
    if (text.size() - i > static_cast<qsizetype>(sizeof buffer))
        return false;
    for (; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (c > 127 || c == u'n' || c == u'N' || c == u'i' || c == u'I')
            return false;
        buffer[n++] = static_cast<char>(c);
    }
    const auto [end, ec] = std::from_chars(buffer, buffer + n, value);
    return ec == std::errc() && end == buffer + n;
}

// A number at `pos` (strtod's syntax, plus nan/inf); returns its length, or 0.
qsizetype numberAt(QStringView s, qsizetype pos, double &value)
{
    qsizetype i = pos;
    if (i < s.size() && (s[i] == u'-' || s[i] == u'+'))
        ++i;
    const qsizetype digitsStart = i;
    while (i < s.size() && s[i].isDigit())
        ++i;
    qsizetype digits = i - digitsStart;
    // Thousands separators: "all params: 9,267,166,720" is one number, not 9.
    bool grouped = false;
    if (digits >= 1 && digits <= 3) {
        while (i + 3 < s.size() && s[i] == u',' && s[i + 1].isDigit() && s[i + 2].isDigit() && s[i + 3].isDigit() &&
               (i + 4 == s.size() || !s[i + 4].isDigit())) {
            i += 4;
            grouped = true;
        }
        if (grouped && i < s.size() && s[i] == u'.')
            return 0; // "1,234.5": a grouped number with a fraction is too rare to guess at
    }
    if (grouped) {
        QString plain = s.sliced(pos, i - pos).toString();
        plain.remove(u',');
        if (i < s.size() &&
            !(s[i].isSpace() || s[i] == u';' || s[i] == u')' || s[i] == u']' || s[i] == u'}' || s[i] == u'|'))
            return 0;
        bool ok = false;
        value = plain.toDouble(&ok);
        return ok ? i - pos : 0;
    }
    if (i < s.size() && s[i] == u'.') {
        ++i;
        const qsizetype fraction = i;
        while (i < s.size() && s[i].isDigit())
            ++i;
        digits += i - fraction;
    }
    if (digits == 0) {
        const QStringView rest = s.sliced(digitsStart);
        for (QStringView word : {u"nan"_s, u"inf"_s}) {
            if (rest.startsWith(word, Qt::CaseInsensitive)) {
                i = digitsStart + 3;
                digits = 3;
            }
        }
        if (digits == 0)
            return 0;
    } else if (i < s.size() && (s[i] == u'e' || s[i] == u'E')) {
        qsizetype e = i + 1;
        if (e < s.size() && (s[e] == u'-' || s[e] == u'+'))
            ++e;
        const qsizetype expDigits = e;
        while (e < s.size() && s[e].isDigit())
            ++e;
        if (e > expDigits)
            i = e;
    }
    // A number must end the token: "45%" or "3rd" or "1.2.3" are not metric values.
    if (i < s.size() && !(s[i].isSpace() || s[i] == u',' || s[i] == u';' || s[i] == u')' || s[i] == u']' ||
                          s[i] == u'}' || s[i] == u'|' || s[i] == u'/' || s[i] == u'\'' || s[i] == u'"'))
        return 0;
    if (plainNumber(s.sliced(pos, i - pos), value))
        return i - pos;
    bool ok = false;
    value = s.sliced(pos, i - pos).toDouble(&ok);
    if (!ok) {
        const QStringView word = s.sliced(pos, i - pos);
        if (word.endsWith(u"nan"_s, Qt::CaseInsensitive))
            value = std::numeric_limits<double>::quiet_NaN();
        else
            value = word.startsWith(u'-') ? -std::numeric_limits<double>::infinity()
                                          : std::numeric_limits<double>::infinity();
    }
    return i - pos;
}

qsizetype pythonDictStart(QStringView s)
{
    if (!s.endsWith(u'}'))
        return -1;
    for (qsizetype at = s.indexOf(u'{'); at >= 0; at = s.indexOf(u'{', at + 1)) {
        const qsizetype key = skipSpaces(s, at + 1);
        if (key < s.size() && (s[key] == u'\'' || s[key] == u'"' || s[key] == u'}'))
            return at;
    }
    return -1;
}

bool pythonDict(QStringView s, QList<std::pair<QStringView, double>> &fields)
{
    const qsizetype before = fields.size();
    const auto fail = [&] {
        fields.resize(before);
        return false;
    };
    if (!s.startsWith(u'{') || !s.endsWith(u'}'))
        return false;
    qsizetype i = skipSpaces(s, 1);
    if (i == s.size() - 1)
        return true; // {}
    for (;;) {
        QStringView key;
        i = quoted(s, skipSpaces(s, i), key);
        if (i < 0 || key.isEmpty())
            return fail();
        i = skipSpaces(s, i);
        if (i >= s.size() || s[i] != u':')
            return fail();
        i = skipSpaces(s, i + 1);
        double value = 0;
        QStringView text;
        if (const qsizetype end = quoted(s, i, text); end >= 0) {
            // Newer Hugging Face releases quote their numbers: {'loss': '2.897'}.
            if (numberAt(text, 0, value) == text.size() && !text.isEmpty())
                fields.append({key, value});
            i = end;
        } else if (const qsizetype length = numberAt(s, i, value); length > 0) {
            fields.append({key, value});
            i += length;
        } else {
            const qsizetype wordEnd = bareWord(s, i);
            const QStringView word = s.sliced(i, wordEnd - i);
            if (word != u"True" && word != u"False" && word != u"None")
                return fail(); // a list, a tensor(...), a nested dict: no record of ours
            i = wordEnd;
        }
        i = skipSpaces(s, i);
        if (i < s.size() && s[i] == u',') {
            i = skipSpaces(s, i + 1);
            if (i == s.size() - 1)
                return true; // a trailing comma
            continue;
        }
        return i == s.size() - 1 ? true : fail();
    }
}

bool tqdmBar(QStringView s)
{
    // Every marker holds one '|' or '/' (its pivot): those characters are found by a fast search
    // (most lines have none), and each is tried as the pivot of each marker, compared in place.
    struct Marker {
        const char *text;
        qsizetype length, pivot;
    };
    static const auto markers = [] {
        std::array<Marker, kTqdmBarMarkers.size()> m{};
        for (size_t i = 0; i < m.size(); ++i) {
            const char *text = kTqdmBarMarkers[i];
            m[i] = {text, static_cast<qsizetype>(std::strlen(text)), static_cast<qsizetype>(std::strcspn(text, "|/"))};
        }
        return m;
    }();
    for (const char16_t c : {u'|', u'/'}) {
        for (qsizetype i = s.indexOf(QChar(c)); i >= 0; i = s.indexOf(QChar(c), i + 1)) {
            for (const Marker &m : markers) {
                const qsizetype start = i - m.pivot;
                if (static_cast<uchar>(m.text[m.pivot]) != c || start < 0 || start + m.length > s.size())
                    continue;
                qsizetype k = 0;
                while (k < m.length && s[start + k].unicode() == static_cast<uchar>(m.text[k]))
                    ++k;
                if (k == m.length)
                    return true;
            }
        }
    }
    return false;
}

QStringView tqdmPostfix(QStringView s)
{
    // The bracket after the bar ("%|███▌ | 45/100 [...]"), or the only one ("45it [...]"); text
    // printed right after it (a warning without its newline) is no part of it.
    const qsizetype bar = s.indexOf(u"%|");
    const qsizetype open = s.indexOf(u'[', std::max<qsizetype>(bar, 0));
    const qsizetype close = open < 0 ? -1 : s.indexOf(u']', open);
    if (close < 0)
        return {};
    const QStringView inside = s.sliced(open + 1, close - open - 1);
    // "00:01<00:01, 30.12it/s, k=v, ...": the elapsed and remaining times, the rate, the postfix.
    const qsizetype rate = std::max(inside.indexOf(u"it/s"), inside.indexOf(u"s/it"));
    if (rate < 0)
        return {};
    const qsizetype comma = inside.indexOf(u',', rate);
    if (comma < 0)
        return {};
    return inside.sliced(comma + 1).trimmed();
}

Ratio ratioAfter(QStringView s, qsizetype end, double &denominator, qsizetype &length)
{
    if (end >= s.size() || s[end] != u'/')
        return Ratio::None;
    qsizetype i = end + 1;
    while (i < s.size() && isDigit(s[i]))
        ++i;
    if (i == end + 1)
        return Ratio::None;
    if (!plainNumber(s.sliced(end + 1, i - end - 1), denominator))
        return Ratio::None;
    length = i - end;
    // " (98%)" after it: a fraction the script also gave as a percentage.
    qsizetype p = skipSpaces(s, i);
    if (p < s.size() && s[p] == u'(') {
        ++p;
        while (p < s.size() && (isDigit(s[p]) || s[p] == u'.'))
            ++p;
        if (p + 1 < s.size() && s[p] == u'%' && s[p + 1] == u')' && denominator > 0) {
            length = p + 2 - end;
            return Ratio::Fraction;
        }
    }
    return Ratio::Counter;
}

bool neverMetric(QStringView key)
{
    if (key.size() != 5 && key.size() != 3) // most keys: told by their length
        return false;
    return key.compare(u"v_num", Qt::CaseInsensitive) == 0 || key.compare(u"eta", Qt::CaseInsensitive) == 0;
}

bool bannerPrefix(QStringView prefix)
{
    static constexpr std::array<const char16_t *, 16> qualifiers{
        u"train",   u"training", u"val",  u"valid",   u"validation", u"eval", u"evaluation", u"test",
        u"testing", u"final",    u"best", u"average", u"avg",        u"mean", u"total",      u"overall"};
    static constexpr std::array<const char16_t *, 11> settingsLabels{
        u"config", u"configuration", u"args",       u"arguments", u"hyperparameters", u"hparams",
        u"hp",     u"params",        u"parameters", u"settings",  u"options"};
    const auto isOneOf = [](QStringView word, const auto &words) {
        return std::any_of(words.begin(), words.end(), [word](const char16_t *w) {
            return word.compare(QStringView(w), Qt::CaseInsensitive) == 0;
        });
    };
    bool prose = false, settings = false, qualified = false;
    qsizetype i = 0;
    const qsizetype n = prefix.size();
    while (i < n) {
        const QChar c = prefix[i];
        if (c == u' ' || c == u'\t' || c == u',') {
            ++i;
            continue;
        }
        if (!c.isLetter())
            return false; // a number, a bracket, a call: no banner's words
        qsizetype end = i;
        while (end < n && (prefix[end].isLetter() || prefix[end] == u'-' || prefix[end] == u'\''))
            ++end;
        const QStringView word = prefix.sliced(i, end - i);
        const bool label = end < n && prefix[end] == u':';
        if (end < n && !label && prefix[end] != u' ' && prefix[end] != u'\t' && prefix[end] != u',')
            return false;
        // A qualifier right before the key names the metric ("train loss=", "final val acc=");
        // one with prose after it does not ("Total optimization steps = 200", Hugging Face's
        // banner before training).
        qualified = !label && isOneOf(word, qualifiers);
        settings = label && isOneOf(word, settingsLabels);
        prose = prose || (!label && !qualified);
        i = end + (label ? 1 : 0);
    }
    return !qualified && (prose || settings);
}

} // namespace ferry::run::metricsyntax
