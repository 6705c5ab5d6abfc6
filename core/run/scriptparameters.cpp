#include "run/scriptparameters.h"

#include "common/textfile.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

bool isIdentifierChar(QChar c)
{
    return c.isLetterOrNumber() || c == u'_';
}

// The end (one past) of the string literal whose opening quote is at `quote`; text.size() when
// it never closes. Triple quotes and backslash escapes are understood.
qsizetype skipString(const QString &text, qsizetype quote)
{
    const QChar q = text.at(quote);
    const bool triple = text.mid(quote, 3) == QString(3, q);
    qsizetype i = quote + (triple ? 3 : 1);
    while (i < text.size()) {
        const QChar c = text.at(i);
        if (c == u'\\') {
            i += 2;
            continue;
        }
        if (triple) {
            if (text.mid(i, 3) == QString(3, q))
                return i + 3;
        } else if (c == q) {
            return i + 1;
        } else if (c == u'\n') {
            return i; // an unterminated one-line string ends at the line's end
        }
        ++i;
    }
    return text.size();
}

// Where a string literal starts at `i` (its prefix letters included), the index of its quote;
// -1 when none starts there.
qsizetype stringQuoteAt(const QString &text, qsizetype i)
{
    qsizetype j = i;
    while (j < text.size() && j - i < 2 && u"rRbBfFuU"_s.contains(text.at(j)))
        ++j;
    if (j < text.size() && (text.at(j) == u'"' || text.at(j) == u'\''))
        return j;
    return -1;
}

// The text inside one literal, escapes decoded unless it is raw.
QString decodeString(const QString &literal)
{
    qsizetype quote = 0;
    bool raw = false;
    while (quote < literal.size() && literal.at(quote) != u'"' && literal.at(quote) != u'\'') {
        raw = raw || literal.at(quote).toLower() == u'r';
        ++quote;
    }
    if (quote >= literal.size())
        return {};
    const QChar q = literal.at(quote);
    const qsizetype width = literal.mid(quote, 3) == QString(3, q) ? 3 : 1;
    QString body = literal.mid(quote + width);
    if (body.size() >= width && body.right(width) == QString(width, q))
        body.chop(width);
    if (raw)
        return body;
    QString out;
    for (qsizetype i = 0; i < body.size(); ++i) {
        if (body.at(i) != u'\\' || i + 1 >= body.size()) {
            out += body.at(i);
            continue;
        }
        const QChar e = body.at(++i);
        out += e == u'n' ? QChar(u'\n') : e == u't' ? QChar(u'\t') : e;
    }
    return out;
}

// One or more adjacent literals ("a" "b"): their text joined; nullopt when `expr` is not that.
std::optional<QString> stringValue(const QString &expr)
{
    QString value;
    qsizetype i = 0;
    bool any = false;
    while (i < expr.size()) {
        if (expr.at(i).isSpace()) {
            ++i;
            continue;
        }
        const qsizetype quote = stringQuoteAt(expr, i);
        if (quote < 0)
            return std::nullopt;
        const qsizetype end = skipString(expr, quote);
        value += decodeString(expr.mid(i, end - i));
        any = true;
        i = end;
    }
    return any ? std::optional<QString>(value) : std::nullopt;
}

// Where the text goes on after a string literal or a comment that starts at `i`; `i` itself
// when none starts there. A literal's prefix letters count only where no identifier precedes.
qsizetype skipStringOrComment(const QString &text, qsizetype i)
{
    if (const qsizetype quote = stringQuoteAt(text, i); quote >= 0 && (i == 0 || !isIdentifierChar(text.at(i - 1))))
        return skipString(text, quote);
    if (text.at(i) == u'#') {
        const qsizetype end = text.indexOf(u'\n', i);
        return end < 0 ? text.size() : end;
    }
    return i;
}

// Walks the code in `text` from `from`, past strings and comments: `visit(i, depth)` for each
// character outside them, with the bracket depth after it (an opening bracket counts itself, a
// closing one no longer); it stops when `visit` returns false.
template <typename Visit> void walkCode(const QString &text, qsizetype from, Visit visit)
{
    int depth = 0;
    for (qsizetype i = from; i < text.size(); ++i) {
        if (const qsizetype skipped = skipStringOrComment(text, i); skipped != i) {
            i = skipped - 1;
            continue;
        }
        const QChar c = text.at(i);
        if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if (c == u')' || c == u']' || c == u'}')
            --depth;
        if (!visit(i, depth))
            return;
    }
}

// Splits the arguments of a call (the text between its parentheses) at top-level commas.
QStringList splitTopLevel(const QString &text)
{
    QStringList parts;
    qsizetype start = 0;
    walkCode(text, 0, [&](qsizetype i, int depth) {
        if (text.at(i) == u',' && depth == 0) {
            parts << text.mid(start, i - start);
            start = i + 1;
        }
        return true;
    });
    parts << text.mid(start);
    QStringList cleaned;
    for (QString part : std::as_const(parts)) {
        // Comments inside the call go; what is left is one argument.
        static const QRegularExpression comment(u"(^|\\n)\\s*#[^\\n]*"_s);
        part.replace(comment, QString());
        part = part.trimmed();
        if (!part.isEmpty())
            cleaned << part;
    }
    return cleaned;
}

// The index just past the parenthesis closing the one at `open`; -1 when it never closes.
qsizetype matchParenthesis(const QString &text, qsizetype open)
{
    qsizetype closed = -1;
    walkCode(text, open, [&](qsizetype i, int depth) {
        const QChar c = text.at(i);
        if (depth == 0 && (c == u')' || c == u']' || c == u'}')) {
            closed = i + 1;
            return false;
        }
        return true;
    });
    return closed;
}

QString typeOf(const QString &expr)
{
    const QString e = expr.simplified();
    if (e == "int"_L1 || e == "float"_L1 || e == "str"_L1 || e == "bool"_L1)
        return e;
    if (e.endsWith(u"json.loads"_s) || e == "loads"_L1)
        return u"json"_s;
    if (e.startsWith(u"lambda"_s) && e.contains(u"true"_s, Qt::CaseInsensitive))
        return u"bool"_s;
    if (e.contains(u"str2bool"_s) || e.contains(u"strtobool"_s))
        return u"bool"_s;
    return {};
}

void readDefault(const QString &expr, ScriptParameter &p)
{
    // os.environ["X"], os.environ.get("X"[, d]), os.getenv("X"[, d]), environ[...] alike.
    static const QRegularExpression environ(uR"(^(?:os\.)?environ\s*\[\s*(['"])([^'"]+)\1\s*\]$)"_s);
    static const QRegularExpression get(
        uR"(^(?:os\.)?(?:environ\.get|getenv)\s*\(\s*(['"])([^'"]+)\1\s*(?:,\s*([\s\S]*))?\)$)"_s);
    const QString e = expr.trimmed();
    if (const auto m = environ.match(e); m.hasMatch()) {
        p.environmentVariable = m.captured(2);
        return;
    }
    if (const auto m = get.match(e); m.hasMatch()) {
        p.environmentVariable = m.captured(2);
        p.defaultValue = m.captured(3).trimmed();
        return;
    }
    p.defaultValue = e;
}

QStringList listItems(const QString &expr)
{
    const QString e = expr.trimmed();
    if (e.size() < 2 || !((e.startsWith(u'[') && e.endsWith(u']')) || (e.startsWith(u'(') && e.endsWith(u')')) ||
                          (e.startsWith(u'{') && e.endsWith(u'}'))))
        return {};
    return splitTopLevel(e.mid(1, e.size() - 2));
}

std::optional<ScriptParameter> readCall(const QString &arguments, int line)
{
    ScriptParameter p;
    p.line = line;
    QString action;
    static const QRegularExpression keyword(u"^([A-Za-z_][A-Za-z0-9_]*)\\s*=(?!=)\\s*([\\s\\S]*)$"_s);
    for (const QString &argument : splitTopLevel(arguments)) {
        const auto m = keyword.match(argument);
        if (!m.hasMatch()) {
            if (const auto flag = stringValue(argument))
                p.flags << *flag;
            continue;
        }
        const QString key = m.captured(1);
        const QString value = m.captured(2).trimmed();
        if (key == "type"_L1)
            p.type = typeOf(value);
        else if (key == "default"_L1)
            readDefault(value, p);
        else if (key == "help"_L1)
            p.help = stringValue(value).value_or(value).simplified();
        else if (key == "choices"_L1)
            p.choices = listItems(value);
        else if (key == "required"_L1)
            p.required = value == "True"_L1;
        else if (key == "action"_L1)
            action = stringValue(value).value_or(QString());
        // dest= is left alone: a run passes the option as it is written on the command line.
    }
    QString longFlag;
    QString shortFlag;
    for (const QString &flag : std::as_const(p.flags)) {
        if (flag.startsWith(u"--"_s) && longFlag.isEmpty())
            longFlag = flag;
        else if (flag.startsWith(u'-') && !flag.startsWith(u"--"_s) && shortFlag.isEmpty())
            shortFlag = flag;
    }
    if (longFlag.isEmpty() && shortFlag.isEmpty())
        return std::nullopt; // a positional argument, or not an argument at all
    p.name = longFlag.isEmpty() ? shortFlag.mid(1) : longFlag.mid(2);
    if (p.name.isEmpty())
        return std::nullopt;
    if (action == "store_true"_L1 || action == "store_false"_L1) {
        p.isFlag = true;
        p.type = u"bool"_s;
        if (p.defaultValue.isEmpty())
            p.defaultValue = action == "store_true"_L1 ? u"False"_s : u"True"_s;
    }
    return p;
}

} // namespace

QString ScriptParameter::defaultText() const
{
    if (const auto text = stringValue(defaultValue))
        return *text;
    return defaultValue;
}

QList<ScriptParameter> discoverScriptParameters(const QString &source)
{
    QList<ScriptParameter> parameters;
    static const QString call = u"add_argument"_s;
    int line = 1;
    qsizetype counted = 0; // newlines are counted up to here
    for (qsizetype i = 0; i < source.size(); ++i) {
        if (const qsizetype skipped = skipStringOrComment(source, i); skipped != i) {
            i = skipped - 1;
            continue;
        }
        if (source.at(i) != u'a' || (i > 0 && isIdentifierChar(source.at(i - 1))) || source.mid(i, call.size()) != call)
            continue;
        qsizetype open = i + call.size();
        if (open < source.size() && isIdentifierChar(source.at(open)))
            continue; // add_argument_group and the like
        while (open < source.size() && source.at(open).isSpace())
            ++open;
        if (open >= source.size() || source.at(open) != u'(')
            continue;
        const qsizetype close = matchParenthesis(source, open);
        if (close < 0)
            break; // the rest of the file is inside an unclosed call
        line += static_cast<int>(QStringView(source).mid(counted, i - counted).count(u'\n'));
        counted = i;
        if (auto p = readCall(source.mid(open + 1, close - open - 2), line))
            parameters << *p;
        i = close - 1;
    }
    return parameters;
}

Expected<QList<ScriptParameter>> discoverScriptParametersInFile(const QString &path)
{
    const auto text = readTextFile(path);
    if (!text)
        return text.error();
    return discoverScriptParameters(*text);
}

} // namespace ferry::run
