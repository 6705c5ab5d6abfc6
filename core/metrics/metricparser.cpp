#include "metrics/metricparser.h"

#include "metrics/metricnames.h"
#include "metrics/metricsyntax.h"

#include <QJsonDocument>
#include <QJsonObject>

#include <algorithm>
#include <charconv>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

using namespace metricsyntax;

// The coordinates of one record: of its step keys, the most preferred one's value; its epoch.
struct StepChoice {
    static constexpr int kEpochRank = 100; // stepRank's rank of "epoch"
    int bestRank = INT_MAX;
    double x = 0;
    double epoch = std::numeric_limits<double>::quiet_NaN();

    // True when `rank` is a step key's or the epoch's (stepRank): the value is then no metric.
    bool take(int rank, double value)
    {
        if (rank < 0)
            return false;
        if (rank == kEpochRank) {
            if (std::isnan(epoch))
                epoch = value;
        } else if (rank < bestRank) {
            bestRank = rank;
            x = value;
        }
        return true;
    }
    bool found() const { return bestRank != INT_MAX; }
};

namespace {

// Keys that say where on the x axis a record is, in order of preference. "epoch" is no step:
// it is the record's second coordinate (MetricPoint::epoch).
constexpr std::array<QStringView, 5> kStepKeys{u"step", u"global_step", u"iteration", u"iter", u"batch"};

int stepRank(QStringView key)
{
    // Most keys are no step key at all: their length says so without comparing.
    const qsizetype n = key.size();
    if (n != 4 && n != 5 && n != 9 && n != 11)
        return -1;
    for (size_t i = 0; i < kStepKeys.size(); ++i) {
        if (n == kStepKeys[i].size() && key.compare(kStepKeys[i], Qt::CaseInsensitive) == 0)
            return static_cast<int>(i);
    }
    return n == 5 && key.compare(u"epoch", Qt::CaseInsensitive) == 0 ? StepChoice::kEpochRank : -1;
}

// What a key's characters are, for ASCII (1: may start a key, 2: may be in one); the rest is
// asked of QChar.
constexpr auto kKeyClass = [] {
    std::array<quint8, 128> c{};
    for (int i = 0; i < 128; ++i) {
        const bool letter = (i >= 'a' && i <= 'z') || (i >= 'A' && i <= 'Z');
        const bool digit = i >= '0' && i <= '9';
        c[static_cast<size_t>(i)] =
            static_cast<quint8>(((letter || i == '_') ? 1 : 0) |
                                ((letter || digit || i == '_' || i == '.' || i == '/' || i == '-') ? 2 : 0));
    }
    return c;
}();

inline bool isKeyStart(QChar c)
{
    const char16_t u = c.unicode();
    return u < 128 ? (kKeyClass[u] & 1) != 0 : c.isLetter();
}

inline bool isKeyChar(QChar c)
{
    const char16_t u = c.unicode();
    return u < 128 ? (kKeyClass[u] & 2) != 0 : c.isLetterOrNumber();
}

// Points of one log share a handful of names: each point gets a shared copy of one string
// rather than an allocation of its own. Per thread, so parsers need no lock.
class NameCache {
public:
    const QString &intern(QStringView name)
    {
        for (const QString &known : m_names) {
            if (known.size() == name.size() && QStringView(known) == name && !known.isNull())
                return known;
        }
        QString &slot = m_names[m_next];
        m_next = (m_next + 1) % m_names.size();
        slot = name.toString();
        return slot;
    }

private:
    std::array<QString, 32> m_names;
    size_t m_next = 0;
};
thread_local NameCache t_names;

// The (name, value) pairs of the line being parsed; reused so that a line costs no allocation.
thread_local QList<std::pair<QString, double>> t_values;

// One field of a flat JSON object, viewed in the line.
struct FlatField {
    QStringView key;
    double value;
    bool number;
};

// Reads a flat JSON object's fields in place, one token at a time; false for anything else.
class FlatJsonScanner {
public:
    explicit FlatJsonScanner(QStringView s) : m_s(s), m_n(s.size()) {}

    // The fields of the object `s` holds (its '{' first), in the line's order.
    bool scanObject(std::array<FlatField, 64> &fields, size_t &count)
    {
        skipSpace();
        if (m_i < m_n && m_s[m_i] == u'}') {
            ++m_i;
        } else {
            for (;;) {
                if (count == fields.size())
                    return false;
                if (!field(fields[count++]))
                    return false;
                skipSpace();
                if (m_i < m_n && m_s[m_i] == u',') {
                    ++m_i;
                    continue;
                }
                if (m_i < m_n && m_s[m_i] == u'}') {
                    ++m_i;
                    break;
                }
                return false;
            }
        }
        return m_i == m_n;
    }

private:
    // "key": value, the value a string, true, false, null or a number.
    bool field(FlatField &f)
    {
        skipSpace();
        if (!string(true, f.key))
            return false;
        skipSpace();
        if (m_i >= m_n || m_s[m_i] != u':')
            return false;
        ++m_i;
        skipSpace();
        if (m_i >= m_n)
            return false;
        QStringView ignored;
        f.number = false;
        f.value = 0;
        if (m_s[m_i] == u'"') {
            if (!string(false, ignored))
                return false;
        } else if (const char16_t c = m_s[m_i].unicode();
                   (c != u't' || !word(u"true")) && (c != u'f' || !word(u"false")) && (c != u'n' || !word(u"null"))) {
            if (!number(f.value))
                return false;
            f.number = true;
        }
        return true;
    }

    void skipSpace()
    {
        while (m_i < m_n && (m_s[m_i] == u' ' || m_s[m_i] == u'\t' || m_s[m_i] == u'\r' || m_s[m_i] == u'\n'))
            ++m_i;
    }

    // A string without escapes; ASCII only when it is a key.
    bool string(bool key, QStringView &text)
    {
        if (m_i >= m_n || m_s[m_i] != u'"')
            return false;
        const qsizetype start = ++m_i;
        for (; m_i < m_n && m_s[m_i] != u'"'; ++m_i) {
            const char16_t c = m_s[m_i].unicode();
            if (c < 0x20 || c == u'\\' || (key && c > 0x7e))
                return false;
        }
        if (m_i >= m_n)
            return false;
        text = m_s.sliced(start, m_i - start);
        ++m_i;
        return true;
    }

    qsizetype digits()
    {
        const qsizetype start = m_i;
        while (m_i < m_n && m_s[m_i] >= u'0' && m_s[m_i] <= u'9')
            ++m_i;
        return m_i - start;
    }

    // Strict JSON: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
    bool number(double &value)
    {
        const qsizetype start = m_i;
        const bool negative = m_i < m_n && m_s[m_i] == u'-';
        if (negative)
            ++m_i;
        const qsizetype intStart = m_i;
        const qsizetype intDigits = digits();
        if (intDigits == 0 || (intDigits > 1 && m_s[intStart] == u'0'))
            return false;
        bool integer = true;
        if (m_i < m_n && m_s[m_i] == u'.') {
            ++m_i;
            if (digits() == 0)
                return false;
            integer = false;
        }
        if (m_i < m_n && (m_s[m_i] == u'e' || m_s[m_i] == u'E')) {
            ++m_i;
            if (m_i < m_n && (m_s[m_i] == u'+' || m_s[m_i] == u'-'))
                ++m_i;
            if (digits() == 0)
                return false;
            integer = false;
        }
        if (integer && intDigits <= 18) {
            // QJsonValue keeps such a number as an integer: -0 is 0.
            qint64 v = 0;
            for (qsizetype d = intStart; d < m_i; ++d)
                v = v * 10 + (m_s[d].unicode() - u'0');
            value = static_cast<double>(negative ? -v : v);
            return true;
        }
        if (!plainNumber(m_s.sliced(start, m_i - start), value))
            return false;
        if (value == 0)
            value = 0; // QJsonValue stores a whole number as an integer, so -0.0 reads as 0
        return true;
    }

    bool word(QStringView w)
    {
        if (m_s.sliced(m_i).startsWith(w)) {
            m_i += w.size();
            return true;
        }
        return false;
    }

    QStringView m_s;
    qsizetype m_n;
    qsizetype m_i = 1; // past '{'
};

// The common JSON record, read without building a QJsonDocument: one flat object whose keys
// are plain ASCII and whose values are numbers, strings, true, false or null. Anything else
// (nesting, escapes, duplicate keys, numbers strict JSON does not allow, ...) returns false
// with `values` empty, and the caller takes QJsonDocument's path. The result is the same as
// that path's: numeric fields in QJsonObject's (sorted) key order, the step key taken out.
bool parseFlatJsonObject(QStringView s, QList<std::pair<QString, double>> &values, StepChoice &step)
{
    std::array<FlatField, 64> fields;
    size_t count = 0;
    if (!FlatJsonScanner(s).scanObject(fields, count))
        return false;

    std::sort(fields.begin(), fields.begin() + count,
              [](const FlatField &a, const FlatField &b) { return a.key.compare(b.key) < 0; });
    for (size_t f = 1; f < count; ++f) {
        if (fields[f].key == fields[f - 1].key)
            return false; // duplicate keys: the last one wins in QJsonObject
    }
    for (size_t f = 0; f < count; ++f) {
        if (fields[f].number && !step.take(stepRank(fields[f].key), fields[f].value))
            values.append({t_names.intern(fields[f].key), fields[f].value});
    }
    return true;
}

} // namespace

MetricParser::MetricParser(const QList<MetricDefinition> &definitions)
{
    for (qsizetype i = 0; i < definitions.size(); ++i) {
        const MetricDefinition &d = definitions.at(i);
        if (i == kMostMetricDefinitions) {
            m_definitionErrors << Error{
                u"more than %1 metric definitions: '%2' and those after it are not used"_s.arg(kMostMetricDefinitions)
                    .arg(d.name.left(40)),
                {},
                0,
                0,
                u"define at most %1 metrics"_s.arg(kMostMetricDefinitions)};
            break;
        }
        if (const QString problem = metricNameProblem(d.name); !problem.isEmpty()) {
            m_definitionErrors << Error{refusedMetricName(d.name, problem),
                                        {},
                                        0,
                                        0,
                                        u"name the metric with a few printable words, e.g. train:loss"_s};
            continue;
        }
        auto regex = MetricRegex::compile(d.regex);
        if (!regex) {
            m_definitionErrors << withContext(u"metric '%1'"_s.arg(d.name), regex.error());
            continue;
        }
        m_definitions << Definition{d.name, std::move(*regex)};
    }
}

double MetricParser::nextCount(const QString &name)
{
    double &count = m_counts[name];
    return count++;
}

// Whether a point of `name` is kept: a metric's name (metrics/metricnames.h), and one of the first
// kMostSeriesPerRun names of this parser. A name seen before costs one lookup.
bool MetricParser::takes(const QString &name)
{
    // The names of a log's points are the few strings of NameCache: one taken lately is known by
    // its address (kept here, so it is still that name), without hashing it.
    for (const QString &taken : m_taken) {
        if (sameNameString(taken, name))
            return true;
    }
    if (m_counts.contains(name)) {
        m_taken[m_nextTaken] = name;
        m_nextTaken = (m_nextTaken + 1) % m_taken.size();
        return true;
    }
    if (name.isEmpty())
        return false; // {"": 8}: a field without a name is no metric's, and not worth a word
    if (const QString problem = metricNameProblem(name); !problem.isEmpty()) {
        if (!std::exchange(m_saidName, true))
            m_warnings << refusedMetricName(name, problem);
        return false;
    }
    // Past the run's cap the parser stops growing; what the run keeps, and saying so, is the
    // follower's (MetricNames, which also counts the files' and the system's series).
    if (m_counts.size() >= kMostSeriesPerRun)
        return false;
    m_counts.insert(name, 0);
    return true;
}

void MetricParser::emitPoints(QList<std::pair<QString, double>> &values, const StepChoice &where, qint64 wallMs,
                              QList<MetricPoint> &out)
{
    for (auto &[name, value] : values) {
        if (!takes(name))
            continue;
        const double step = where.found() ? where.x : nextCount(name);
        out.append(MetricPoint{name, step, value, wallMs, where.epoch});
    }
    values.clear(); // keeps its capacity for the next line
}

void MetricParser::parseLine(QStringView line, qint64 wallMs, QList<MetricPoint> &out)
{
    if (!m_definitions.isEmpty()) {
        for (Definition &d : m_definitions) {
            QStringView captured;
            const MetricRegex::Match found = d.regex.match(line, captured);
            if (found == MetricRegex::Match::TooCostly && !std::exchange(d.saidCostly, true))
                m_warnings << u"metric '%1': its regex took too long on a line, which gave no point (said once)"_s.arg(
                    d.name);
            if (found != MetricRegex::Match::Found)
                continue;
            bool ok = false;
            const double value = captured.toDouble(&ok);
            if (ok)
                out.append(MetricPoint{d.name, nextCount(d.name), value, wallMs});
        }
        return;
    }
    const QStringView trimmed = line.trimmed();
    if (trimmed.startsWith(u'{') && trimmed.endsWith(u'}')) {
        StepChoice step;
        if (parseFlatJsonObject(trimmed, t_values, step))
            emitPoints(t_values, step, wallMs, out);
        else if (!parsePythonDict(trimmed, wallMs, out))
            parseJson(trimmed, wallMs, out);
    } else if (const qsizetype dict = pythonDictStart(trimmed); dict > 0) {
        // Hugging Face prints its dict right after tqdm's bar: the bar's counters are no metrics.
        if (!parsePythonDict(trimmed.sliced(dict), wallMs, out))
            parseTokens(line, wallMs, out);
    } else if (tqdmBar(trimmed)) {
        // Of a bar only its postfix's k=v pairs: its description ("Map (num_proc=4)"), counters,
        // times, rate and what was printed after it without a newline are no records.
        if (const QStringView postfix = tqdmPostfix(trimmed); !postfix.isEmpty())
            parseTokens(postfix, wallMs, out);
    } else if (trimmed.endsWith(u',')) {
        // "learning_rate=7e-05," on a line of its own: a field of a multi-line repr (Hugging
        // Face's TrainingArguments), a setting, no record.
    } else {
        parseTokens(line, wallMs, out);
    }
}

bool MetricParser::parsePythonDict(QStringView dict, qint64 wallMs, QList<MetricPoint> &out)
{
    thread_local QList<std::pair<QStringView, double>> fields;
    fields.clear();
    if (!pythonDict(dict, fields))
        return false;
    StepChoice step;
    for (const auto &[key, value] : std::as_const(fields)) {
        if (!neverMetric(key) && !step.take(stepRank(key), value))
            t_values.append({t_names.intern(key), value});
    }
    emitPoints(t_values, step, wallMs, out);
    return true;
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
    QList<std::pair<QString, double>> &values = t_values;
    StepChoice step;
    for (auto it = object.begin(); it != object.end(); ++it) {
        if (!it.value().isDouble())
            continue; // booleans, strings and nested objects are not metrics
        if (!step.take(stepRank(it.key()), it.value().toDouble()))
            values.append({it.key(), it.value().toDouble()});
    }
    emitPoints(values, step, wallMs, out);
}

void MetricParser::parseTokens(QStringView line, qint64 wallMs, QList<MetricPoint> &out)
{
    QList<std::pair<QString, double>> &values = t_values;
    StepChoice step;
    const qsizetype n = line.size();
    qsizetype i = 0;
    int callDepth = 0;       // inside "Namespace(lr=0.1, ...)": a call's keyword arguments, no record
    qsizetype firstKey = -1; // where the first pair taken starts
    bool firstByEquals = false;
    while (i < n) {
        // A key starts at a word boundary.
        if (!isKeyStart(line[i]) || (i > 0 && isKeyChar(line[i - 1]))) {
            if (line[i] == u'(' && i > 0 && isKeyChar(line[i - 1]))
                ++callDepth;
            else if (line[i] == u')' && callDepth > 0)
                --callDepth;
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
        const qsizetype j0 = j; // the separator, if any
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
        double denominator = 0;
        qsizetype ratioLength = 0;
        const Ratio ratio = ratioAfter(line, i, denominator, ratioLength);
        i += ratioLength;
        // "epoch: 3/10" is epoch 3; "Accuracy: 9801/10000 (98%)" is 0.9801; "batch_loss: 12/500" no metric.
        if (ratio == Ratio::Fraction && rank < 0)
            value /= denominator;
        else if (ratio == Ratio::Counter && rank < 0)
            continue;
        if (neverMetric(key) || callDepth > 0)
            continue;
        if (firstKey < 0) {
            firstKey = keyStart;
            firstByEquals = separator && line[j0] == u'=';
        }
        if (!step.take(rank, value))
            values.append({t_names.intern(key), value});
    }
    // "starting lr=0.01 seed=1": settings said once, no record (UX review 2026-12-06, finding 4).
    if (firstByEquals && !step.found() && bannerPrefix(line.first(firstKey)))
        values.clear();
    emitPoints(values, step, wallMs, out);
}

} // namespace ferry::run
