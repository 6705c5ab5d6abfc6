#include "run/metricparser.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Keys that say where on the x axis a record is, in order of preference.
constexpr std::array<QStringView, 5> kStepKeys{u"step", u"global_step", u"iteration", u"iter", u"epoch"};

int stepRank(QStringView key)
{
    for (size_t i = 0; i < kStepKeys.size(); ++i) {
        if (key.compare(kStepKeys[i], Qt::CaseInsensitive) == 0)
            return static_cast<int>(i);
    }
    return -1;
}

bool isKeyStart(QChar c)
{
    return c.isLetter() || c == u'_';
}

bool isKeyChar(QChar c)
{
    return c.isLetterOrNumber() || c == u'_' || c == u'.' || c == u'/' || c == u'-';
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
                          s[i] == u'}' || s[i] == u'|' || s[i] == u'/'))
        return 0;
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

} // namespace

MetricParser::MetricParser(const QList<MetricDefinition> &definitions)
{
    for (const MetricDefinition &d : definitions) {
        QRegularExpression regex(d.regex);
        if (!regex.isValid()) {
            m_definitionErrors << Error{u"metric '%1': bad regex at offset %2: %3"_s.arg(d.name)
                                            .arg(regex.patternErrorOffset())
                                            .arg(regex.errorString()),
                                        {},
                                        0,
                                        0,
                                        u"fix the Regex of this metric definition"_s};
            continue;
        }
        if (regex.captureCount() < 1) {
            m_definitionErrors << Error{u"metric '%1': the regex has no capture group"_s.arg(d.name),
                                        {},
                                        0,
                                        0,
                                        u"put the value in parentheses, e.g. loss=([0-9.]+)"_s};
            continue;
        }
        regex.optimize();
        m_definitions << Definition{d.name, regex};
    }
}

double MetricParser::nextCount(const QString &name)
{
    double &count = m_counts[name];
    return count++;
}

void MetricParser::emitPoints(QList<std::pair<QString, double>> &values, double x, bool hasX, qint64 wallMs,
                              QList<MetricPoint> &out)
{
    for (auto &[name, value] : values) {
        const double step = hasX ? x : nextCount(name);
        out.append(MetricPoint{std::move(name), step, value, wallMs});
    }
}

void MetricParser::parseLine(QStringView line, qint64 wallMs, QList<MetricPoint> &out)
{
    if (!m_definitions.isEmpty()) {
        for (const Definition &d : std::as_const(m_definitions)) {
            const QRegularExpressionMatch m = d.regex.match(line.toString());
            if (!m.hasMatch())
                continue;
            bool ok = false;
            const double value = m.capturedView(1).toDouble(&ok);
            if (ok)
                out.append(MetricPoint{d.name, nextCount(d.name), value, wallMs});
        }
        return;
    }
    const QStringView trimmed = line.trimmed();
    if (trimmed.startsWith(u'{') && trimmed.endsWith(u'}'))
        parseJson(trimmed, wallMs, out);
    else
        parseTokens(line, wallMs, out);
}

void MetricParser::parseJson(QStringView line, qint64 wallMs, QList<MetricPoint> &out)
{
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(line.toUtf8(), &error);
    if (error.error != QJsonParseError::NoError || !doc.isObject()) {
        parseTokens(line, wallMs, out); // not JSON after all: maybe "{epoch: 1, loss: 0.3}"
        return;
    }
    const QJsonObject object = doc.object();
    QList<std::pair<QString, double>> values;
    int bestRank = INT_MAX;
    double x = 0;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!it.value().isDouble())
            continue; // booleans, strings and nested objects are not metrics
        const int rank = stepRank(it.key());
        if (rank >= 0) {
            if (rank < bestRank) {
                bestRank = rank;
                x = it.value().toDouble();
            }
            continue;
        }
        values.append({it.key(), it.value().toDouble()});
    }
    emitPoints(values, x, bestRank != INT_MAX, wallMs, out);
}

void MetricParser::parseTokens(QStringView line, qint64 wallMs, QList<MetricPoint> &out)
{
    QList<std::pair<QString, double>> values;
    int bestRank = INT_MAX;
    double x = 0;
    const qsizetype n = line.size();
    qsizetype i = 0;
    while (i < n) {
        // A key starts at a word boundary.
        if (!isKeyStart(line[i]) || (i > 0 && isKeyChar(line[i - 1]))) {
            ++i;
            continue;
        }
        const qsizetype keyStart = i;
        while (i < n && isKeyChar(line[i]))
            ++i;
        QStringView key = line.sliced(keyStart, i - keyStart);
        while (!key.isEmpty() && (key.back() == u'.' || key.back() == u'-' || key.back() == u'/'))
            key.chop(1);
        qsizetype j = i;
        while (j < n && line[j] == u' ')
            ++j;
        const bool separator = j < n && (line[j] == u'=' || line[j] == u':');
        const int rank = stepRank(key);
        if (separator) {
            ++j;
            while (j < n && line[j] == u' ')
                ++j;
        } else if (rank < 0 || j == i) {
            continue; // "epoch 3" is a step; "loss 0.3" without '=' or ':' is prose
        }
        double value = 0;
        const qsizetype length = numberAt(line, j, value);
        if (length == 0)
            continue;
        i = j + length;
        if (rank >= 0) {
            if (rank < bestRank) {
                bestRank = rank;
                x = value;
            }
            continue;
        }
        values.append({key.toString(), value});
    }
    emitPoints(values, x, bestRank != INT_MAX, wallMs, out);
}

} // namespace ferry::run
