#include "notebook/pythonsource.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::notebook {

namespace {

int indentOf(const QString &line)
{
    int i = 0;
    while (i < line.size() && (line[i] == u' ' || line[i] == u'\t'))
        ++i;
    return i;
}

// IPython syntax at the start of a logical line (after the indentation).
LogicalLine::Kind ipythonKind(const QString &line)
{
    const QString stripped = line.trimmed();
    if (stripped.startsWith(u'%'))
        return LogicalLine::Kind::Magic;
    if (stripped.startsWith(u'!'))
        return LogicalLine::Kind::Shell;
    static const QRegularExpression assignedMagic(u"^[A-Za-z_][A-Za-z0-9_.]*\\s*=\\s*([%!])"_s);
    if (const auto m = assignedMagic.match(stripped); m.hasMatch())
        return m.captured(1) == u'!' ? LogicalLine::Kind::Shell : LogicalLine::Kind::Magic;
    static const QRegularExpression help(u"^(\\?{1,2}[A-Za-z_][A-Za-z0-9_.]*|[A-Za-z_][A-Za-z0-9_.]*\\?{1,2})$"_s);
    if (help.match(stripped).hasMatch())
        return LogicalLine::Kind::Help;
    return LogicalLine::Kind::Python;
}

// Scans Python source from `pos` to the end of the logical line that starts there; returns the
// index just past its final '\n' (or the end). Sets `commentAt` to the first comment of the
// first physical line (-1: none).
qsizetype scanLogicalLine(const QString &s, qsizetype pos, qsizetype &commentAt)
{
    int depth = 0;
    commentAt = -1;
    bool firstLine = true;
    qsizetype i = pos;
    while (i < s.size()) {
        const QChar c = s[i];
        if (c == u'#') {
            if (firstLine && commentAt < 0)
                commentAt = i;
            while (i < s.size() && s[i] != u'\n')
                ++i;
            continue;
        }
        if (c == u'\'' || c == u'"') {
            const bool triple = i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c;
            i += triple ? 3 : 1;
            while (i < s.size()) {
                if (s[i] == u'\\') {
                    i += 2;
                    continue;
                }
                if (!triple && s[i] == u'\n')
                    break; // unterminated: the line ends the string
                if (s[i] == c && (!triple || (i + 2 < s.size() && s[i + 1] == c && s[i + 2] == c))) {
                    i += triple ? 3 : 1;
                    break;
                }
                if (s[i] == u'\n')
                    firstLine = false;
                ++i;
            }
            continue;
        }
        if (c == u'\\' && i + 1 < s.size() && s[i + 1] == u'\n') {
            i += 2;
            firstLine = false;
            continue;
        }
        if (c == u'(' || c == u'[' || c == u'{')
            ++depth;
        else if ((c == u')' || c == u']' || c == u'}') && depth > 0)
            --depth;
        else if (c == u'\n') {
            if (depth == 0)
                return i + 1;
            firstLine = false;
        }
        ++i;
    }
    return s.size();
}

} // namespace

QList<LogicalLine> logicalLines(const QString &source)
{
    QList<LogicalLine> result;
    qsizetype pos = 0;
    int lineNumber = 0;
    while (pos < source.size()) {
        qsizetype lineEnd = source.indexOf(u'\n', pos);
        if (lineEnd < 0)
            lineEnd = source.size();
        const QString first = source.mid(pos, lineEnd - pos);
        LogicalLine line;
        line.firstLine = lineNumber;
        line.indent = indentOf(first);
        const QString trimmed = first.trimmed();
        qsizetype next = 0;
        if (trimmed.isEmpty() || trimmed.startsWith(u'#')) {
            line.kind = LogicalLine::Kind::Blank;
            next = lineEnd + 1;
        } else if (const auto kind = ipythonKind(first); kind != LogicalLine::Kind::Python) {
            line.kind = kind;
            // A backslash at the end continues IPython syntax too.
            next = lineEnd + 1;
            while (next <= source.size() && source.mid(pos, next - 1 - pos).endsWith(u'\\')) {
                const qsizetype more = source.indexOf(u'\n', next);
                next = (more < 0 ? source.size() : more) + 1;
            }
        } else {
            qsizetype commentAt = -1;
            next = scanLogicalLine(source, pos, commentAt);
            const qsizetype codeEnd = commentAt >= 0 ? commentAt : lineEnd;
            line.code = source.mid(pos, codeEnd - pos).trimmed();
            if (next <= lineEnd)
                next = lineEnd + 1;
        }
        const qsizetype textEnd = std::min(next, source.size());
        line.text = source.mid(pos, textEnd - pos);
        if (line.text.endsWith(u'\n'))
            line.text.chop(1);
        line.lastLine = lineNumber + static_cast<int>(line.text.count(u'\n'));
        lineNumber = line.lastLine + 1;
        result.append(std::move(line));
        pos = next;
    }
    return result;
}

QString cellMagic(const QString &source)
{
    for (const QString &line : source.split(u'\n')) {
        const QString trimmed = line.trimmed();
        if (trimmed.isEmpty())
            continue;
        if (!trimmed.startsWith("%%"_L1))
            return {};
        const QString rest = trimmed.mid(2);
        const qsizetype space = rest.indexOf(u' ');
        return space < 0 ? rest : rest.left(space);
    }
    return {};
}

std::optional<LiteralAssignment> literalAssignment(const LogicalLine &line)
{
    if (line.kind != LogicalLine::Kind::Python || line.indent != 0 || line.firstLine != line.lastLine)
        return std::nullopt;
    static const QRegularExpression assignment(
        u"^([A-Za-z_][A-Za-z0-9_]*)\\s*(?::\\s*[A-Za-z_][A-Za-z0-9_.]*\\s*)?=(?!=)\\s*(.+)$"_s);
    const auto m = assignment.match(line.code);
    if (!m.hasMatch())
        return std::nullopt;
    const QString value = m.captured(2).trimmed();
    static const QRegularExpression integer(u"^[+-]?(0|[1-9](_?[0-9])*)$"_s);
    static const QRegularExpression real(
        u"^[+-]?(([0-9](_?[0-9])*)?\\.[0-9](_?[0-9])*([eE][+-]?[0-9]+)?|[0-9](_?[0-9])*\\.([eE][+-]?[0-9]+)?|"
        u"[0-9](_?[0-9])*[eE][+-]?[0-9]+)$"_s);
    static const QRegularExpression string(u"^[rRuU]?('([^'\\\\\\n]|\\\\.)*'|\"([^\"\\\\\\n]|\\\\.)*\")$"_s);
    LiteralAssignment result{m.captured(1), {}, value};
    if (value == "True"_L1 || value == "False"_L1)
        result.type = u"bool"_s;
    else if (integer.match(value).hasMatch())
        result.type = u"int"_s;
    else if (real.match(value).hasMatch())
        result.type = u"float"_s;
    else if (string.match(value).hasMatch())
        result.type = u"str"_s;
    else
        return std::nullopt;
    return result;
}

QStringList assignedNames(const LogicalLine &line)
{
    if (line.kind != LogicalLine::Kind::Python)
        return {};
    static const QRegularExpression target(u"^\\s*([A-Za-z_][A-Za-z0-9_]*(\\s*,\\s*[A-Za-z_][A-Za-z0-9_]*)*)\\s*,?\\s*"
                                           u"(:[^=]*)?(\\+|-|\\*|/|//|%|\\*\\*|@|&|\\||\\^|>>|<<)?=(?!=)"_s);
    static const QRegularExpression loop(u"^\\s*(async\\s+)?for\\s+([A-Za-z_][A-Za-z0-9_,\\s]*)\\s+in\\b"_s);
    static const QRegularExpression withAs(u"\\bas\\s+([A-Za-z_][A-Za-z0-9_]*)"_s);
    QStringList names;
    const auto split = [&names](const QString &list) {
        for (const QString &name : list.split(u',')) {
            if (!name.trimmed().isEmpty())
                names << name.trimmed();
        }
    };
    const QString firstLine = line.text.section(u'\n', 0, 0);
    if (const auto m = target.match(firstLine); m.hasMatch())
        split(m.captured(1));
    if (const auto m = loop.match(firstLine); m.hasMatch())
        split(m.captured(2));
    if (firstLine.trimmed().startsWith("with "_L1)) {
        auto it = withAs.globalMatch(firstLine);
        while (it.hasNext())
            names << it.next().captured(1);
    }
    return names;
}

} // namespace ferry::notebook
