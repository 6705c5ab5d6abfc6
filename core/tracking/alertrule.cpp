#include "tracking/alertrule.h"

#include "metrics/metricnames.h"

#include <QLocale>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

const QString kRuleForms = u"METRIC > NUMBER, METRIC < NUMBER, METRIC:nan, stalled:DURATION or gpu_idle:DURATION"_s;

Error ruleError(int column, const QString &message)
{
    return Error{message, {}, 0, column, u"a rule is written as "_s + kRuleForms + u" (docs/metrics.md, Alerts)"_s};
}

bool isRuleSpace(QChar c)
{
    return c == u' ' || c == u'\t';
}

// What follows `at` up to the next space or comma, for a message: "not 'abc'".
QString wordAt(QStringView text, qsizetype at)
{
    qsizetype end = at;
    while (end < text.size() && !isRuleSpace(text[end]) && text[end] != u',' && end - at < 40)
        ++end;
    return text.mid(at, end - at).toString();
}

// A number at `at` (digits, a point, an exponent, a sign): its length, 0 when none. The value
// must be finite.
qsizetype scanNumber(QStringView text, qsizetype at, double &value)
{
    qsizetype end = at;
    while (end < text.size()) {
        const QChar c = text[end];
        const bool exponentSign =
            (c == u'+' || c == u'-') && end > at && (text[end - 1] == u'e' || text[end - 1] == u'E');
        if (!(c.isDigit() && c.unicode() < 128) && c != u'.' && c != u'e' && c != u'E' &&
            !((c == u'+' || c == u'-') && (end == at || exponentSign)))
            break;
        ++end;
    }
    bool ok = false;
    value = text.mid(at, end - at).toDouble(&ok);
    return ok && std::isfinite(value) ? end - at : 0;
}

struct Scan {
    QStringView text;
    qsizetype at = 0;
    int offset = 0;

    int column() const { return int(at) + offset + 1; }
    void skipSpaces()
    {
        while (at < text.size() && isRuleSpace(text[at]))
            ++at;
    }
    bool atEnd() const { return at >= text.size(); }
    // Only spaces are left; else the error for what is.
    Expected<void> expectEnd()
    {
        skipSpaces();
        if (atEnd())
            return {};
        return ruleError(column(),
                         u"unexpected '%1' after the rule; rules are separated by commas"_s.arg(wordAt(text, at)));
    }
};

// A metric's name, quoted or up to the first < > = or :. `quoted` says which.
Expected<QString> scanName(Scan &s, bool &quoted)
{
    quoted = s.text[s.at] == u'"' || s.text[s.at] == u'\'';
    if (quoted) {
        const QChar quote = s.text[s.at];
        const int opened = s.column();
        QString name;
        for (++s.at; s.at < s.text.size() && s.text[s.at] != quote; ++s.at) {
            if (s.text[s.at] == u'\\' && s.at + 1 < s.text.size())
                ++s.at;
            name += s.text[s.at];
        }
        if (s.atEnd())
            return ruleError(opened, u"the name quoted here has no closing %1"_s.arg(quote));
        ++s.at;
        return name;
    }
    const qsizetype start = s.at;
    while (s.at < s.text.size() && !QStringView(u"<>=:").contains(s.text[s.at]))
        ++s.at;
    return s.text.mid(start, s.at - start).trimmed().toString();
}

// The duration after "stalled:" or "gpu_idle:" (`keyword`), for a rule of `kind`.
Expected<AlertRule> scanStall(Scan &s, QLatin1StringView keyword, AlertRule::Kind kind)
{
    s.skipSpaces();
    const qsizetype start = s.at;
    const int at = s.column();
    double amount = 0;
    const qsizetype length = scanNumber(s.text, s.at, amount);
    if (length == 0)
        return ruleError(at, u"expected a duration after '%1:' such as 10m (s, m or h), not '%2'"_s.arg(
                                 keyword, wordAt(s.text, s.at)));
    s.at += length;
    const QChar unit = s.at < s.text.size() ? s.text[s.at].toLower() : QChar();
    const double scale = unit == u's' ? 1000.0 : unit == u'm' ? 60000.0 : unit == u'h' ? 3600000.0 : 0;
    if (scale == 0)
        return ruleError(s.column(),
                         u"expected the duration's unit after %1: s, m or h (%2:%1m)"_s.arg(amount).arg(keyword));
    ++s.at;
    const double ms = amount * scale;
    if (!(ms >= double(kLeastStallMs) && ms <= double(kMostStallMs)))
        return ruleError(at, u"a %1 lasts from 1s to 7 days, not %2"_s.arg(
                                 kind == AlertRule::Kind::Stalled ? u"stall"_s : u"GPU's idle time"_s,
                                 s.text.mid(start, s.at - start)));
    if (const auto end = s.expectEnd(); !end)
        return end.error();
    AlertRule rule;
    rule.kind = kind;
    rule.stallMs = qint64(std::llround(ms));
    return rule;
}

Expected<AlertRule> scanCondition(Scan &s, AlertRule rule)
{
    const qsizetype start = s.at;
    const int at = s.column();
    if (s.text[s.at] == u':') {
        ++s.at;
        s.skipSpaces();
        if (s.text.mid(s.at, 3).compare(u"nan"_s, Qt::CaseInsensitive) != 0)
            return ruleError(s.column(),
                             u"expected 'nan' after ':' (%1:nan), not '%2'"_s.arg(rule.metric, wordAt(s.text, s.at)));
        s.at += 3;
        rule.kind = AlertRule::Kind::NotFinite;
        if (const auto end = s.expectEnd(); !end)
            return end.error();
        return rule;
    }
    if (s.text[s.at] == u'=')
        return ruleError(at, u"'=' compares nothing here: use >, >=, < or <="_s);
    const bool above = s.text[s.at] == u'>';
    ++s.at;
    const bool orEqual = s.at < s.text.size() && s.text[s.at] == u'=';
    if (orEqual)
        ++s.at;
    rule.kind = above ? (orEqual ? AlertRule::Kind::AtLeast : AlertRule::Kind::Above)
                      : (orEqual ? AlertRule::Kind::AtMost : AlertRule::Kind::Below);
    const QString op = s.text.mid(start, s.at - start).toString();
    s.skipSpaces();
    const qsizetype length = scanNumber(s.text, s.at, rule.threshold);
    if (length == 0)
        return ruleError(s.column(), s.atEnd()
                                         ? u"expected a number after '%1'"_s.arg(op)
                                         : u"expected a number after '%1', not '%2'"_s.arg(op, wordAt(s.text, s.at)));
    s.at += length;
    if (const auto end = s.expectEnd(); !end)
        return end.error();
    return rule;
}

// The shortest text that reads back as the same double.
QString numberText(double value)
{
    return QString::number(value, 'g', QLocale::FloatingPointShortest);
}

// A name written as it is would not read back as itself: it is quoted.
bool needsQuotes(const QString &name)
{
    if (name == "stalled"_L1 || name == "gpu_idle"_L1 || name.trimmed() != name || name.isEmpty())
        return true;
    if (name.front() == u'"' || name.front() == u'\'')
        return true;
    return std::any_of(name.begin(), name.end(),
                       [](QChar c) { return QStringView(u"<>=:,").contains(c) || c == u'\n'; });
}

} // namespace

Expected<AlertRule> AlertRule::parse(QStringView text, int offset)
{
    Scan s{text, 0, offset};
    s.skipSpaces();
    if (s.atEnd())
        return ruleError(s.column(), u"expected a rule: "_s + kRuleForms);
    const int nameColumn = s.column();
    bool quoted = false;
    auto name = scanName(s, quoted);
    if (!name)
        return name.error();
    s.skipSpaces();
    if (!quoted && (*name == "stalled"_L1 || *name == "gpu_idle"_L1) && !s.atEnd() && s.text[s.at] == u':') {
        ++s.at;
        return *name == "stalled"_L1 ? scanStall(s, "stalled"_L1, AlertRule::Kind::Stalled)
                                     : scanStall(s, "gpu_idle"_L1, AlertRule::Kind::GpuIdle);
    }
    if (s.atEnd())
        return ruleError(s.column(), name->isEmpty() ? u"expected a rule: "_s + kRuleForms
                                                     : u"expected > NUMBER, < NUMBER or :nan after '%1'"_s.arg(*name));
    if (name->isEmpty())
        return ruleError(nameColumn, u"expected a metric's name (or *) before '%1'"_s.arg(s.text[s.at]));
    if (*name != "*"_L1) {
        if (const QString problem = metricNameProblem(*name); !problem.isEmpty())
            return ruleError(nameColumn, u"'%1' cannot name a metric: %2"_s.arg(quotedName(*name), problem));
    }
    AlertRule rule;
    rule.metric = *name;
    return scanCondition(s, rule);
}

QString AlertRule::text() const
{
    QString name = metric;
    if (metric != "*"_L1 && needsQuotes(metric))
        name = u'"' + QString(name).replace(u"\\"_s, u"\\\\"_s).replace(u"\""_s, u"\\\""_s) + u'"';
    switch (kind) {
    case Kind::Above:
        return name + u" > "_s + numberText(threshold);
    case Kind::AtLeast:
        return name + u" >= "_s + numberText(threshold);
    case Kind::Below:
        return name + u" < "_s + numberText(threshold);
    case Kind::AtMost:
        return name + u" <= "_s + numberText(threshold);
    case Kind::NotFinite:
        return name + u":nan"_s;
    case Kind::Stalled:
        return u"stalled:"_s + stallText(stallMs);
    case Kind::GpuIdle:
        return u"gpu_idle:"_s + stallText(stallMs);
    }
    return {};
}

bool AlertRule::holds(double value) const
{
    switch (kind) {
    case Kind::Above:
        return value > threshold;
    case Kind::AtLeast:
        return value >= threshold;
    case Kind::Below:
        return value < threshold;
    case Kind::AtMost:
        return value <= threshold;
    case Kind::NotFinite:
        return !std::isfinite(value);
    case Kind::Stalled:
    case Kind::GpuIdle:
        break;
    }
    return false;
}

Expected<QList<AlertRule>> parseAlertRules(const QString &text)
{
    QList<AlertRule> rules;
    qsizetype start = 0;
    const auto take = [&](qsizetype end) -> Expected<void> {
        const QStringView piece = QStringView(text).mid(start, end - start);
        if (piece.trimmed().isEmpty())
            return {};
        if (rules.size() == kMostAlertRules)
            return ruleError(int(start) + 1, u"more than %1 rules in one list"_s.arg(kMostAlertRules));
        auto rule = AlertRule::parse(piece, int(start));
        if (!rule)
            return rule.error();
        rules << *rule;
        return {};
    };
    QChar quote; // inside a quoted name (a quote opens one only where a rule begins)
    for (qsizetype i = 0; i < text.size(); ++i) {
        const QChar c = text[i];
        if (!quote.isNull()) {
            if (c == u'\\')
                ++i;
            else if (c == quote)
                quote = QChar();
            continue;
        }
        if ((c == u'"' || c == u'\'') && QStringView(text).mid(start, i - start).trimmed().isEmpty()) {
            quote = c;
            continue;
        }
        if (c != u',' && c != u'\n')
            continue;
        if (const auto taken = take(i); !taken)
            return taken.error();
        start = i + 1;
    }
    if (const auto taken = take(text.size()); !taken)
        return taken.error();
    return rules;
}

QString alertRulesText(const QList<AlertRule> &rules)
{
    QStringList texts;
    for (const AlertRule &rule : rules)
        texts << rule.text();
    return texts.join(u", "_s);
}

QString stallText(qint64 ms)
{
    if (ms % 3600000 == 0)
        return u"%1h"_s.arg(ms / 3600000);
    if (ms % 60000 == 0)
        return u"%1m"_s.arg(ms / 60000);
    if (ms % 1000 == 0)
        return u"%1s"_s.arg(ms / 1000);
    return u"%1s"_s.arg(double(ms) / 1000.0);
}

} // namespace ferry::run
