#include "env/pip/pep508tokenizer.h"

#include "env/pip/pep508.h"

#include <QStringView>

#include <array>
#include <initializer_list>

using namespace Qt::StringLiterals;

namespace ferry::env::pep508 {

namespace {

char32_t codePointAt(const QString &s, qsizetype pos)
{
    const QChar c = s.at(pos);
    if (c.isHighSurrogate() && pos + 1 < s.size() && s.at(pos + 1).isLowSurrogate())
        return QChar::surrogateToUcs4(c, s.at(pos + 1));
    return c.unicode();
}

char32_t codePointBefore(const QString &s, qsizetype pos)
{
    const QChar c = s.at(pos - 1);
    if (c.isLowSurrogate() && pos >= 2 && s.at(pos - 2).isHighSurrogate())
        return QChar::surrogateToUcs4(s.at(pos - 2), c);
    return c.unicode();
}

// Python's `\w` on str: alphanumeric (letters, digits, numerics) or underscore.
bool isWord(char32_t c)
{
    return c == U'_' || QChar::isLetterOrNumber(c);
}

// Python's `\b`: a word character on exactly one side.
bool wordBoundary(const QString &s, qsizetype pos)
{
    const bool before = pos > 0 && isWord(codePointBefore(s, pos));
    const bool after = pos < s.size() && isWord(codePointAt(s, pos));
    return before != after;
}

bool isAsciiAlnum(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
}

// `\bword\b` for each alternative in order; the first whose end is a boundary wins.
qsizetype matchWords(const QString &s, qsizetype pos, std::initializer_list<QStringView> words)
{
    if (!wordBoundary(s, pos))
        return -1;
    for (const QStringView word : words) {
        if (QStringView(s).sliced(pos).startsWith(word) && wordBoundary(s, pos + word.size()))
            return word.size();
    }
    return -1;
}

qsizetype matchIdentifier(const QString &s, qsizetype pos)
{
    // \b[a-zA-Z0-9][a-zA-Z0-9._-]*\b, backtracking to the last boundary.
    if (pos >= s.size() || !isAsciiAlnum(s.at(pos)) || !wordBoundary(s, pos))
        return -1;
    qsizetype end = pos + 1;
    while (end < s.size() && (isAsciiAlnum(s.at(end)) || s.at(end) == u'.' || s.at(end) == u'_' || s.at(end) == u'-'))
        ++end;
    for (; end > pos; --end) {
        if (wordBoundary(s, end))
            return end - pos;
    }
    return -1;
}

qsizetype matchRun(const QString &s, qsizetype pos, bool (*accept)(QChar))
{
    qsizetype end = pos;
    while (end < s.size() && accept(s.at(end)))
        ++end;
    return end > pos ? end - pos : -1;
}

} // namespace

bool isPythonSpace(char32_t c)
{
    return (c >= 0x09 && c <= 0x0d) || (c >= 0x1c && c <= 0x20) || c == 0x85 || c == 0xa0 || c == 0x1680 ||
           (c >= 0x2000 && c <= 0x200a) || c == 0x2028 || c == 0x2029 || c == 0x202f || c == 0x205f || c == 0x3000;
}

QString pythonStrip(const QString &text)
{
    qsizetype begin = 0;
    qsizetype end = text.size();
    while (begin < end && isPythonSpace(text.at(begin).unicode()))
        ++begin;
    while (end > begin && isPythonSpace(text.at(end - 1).unicode()))
        --end;
    return text.sliced(begin, end - begin);
}

int columnOf(const QString &source, qsizetype position)
{
    int column = 1;
    for (qsizetype i = 0; i < position && i < source.size(); ++i) {
        if (!(source.at(i).isLowSurrogate() && i > 0 && source.at(i - 1).isHighSurrogate()))
            ++column;
    }
    return column;
}

qsizetype matchRule(Rule rule, const QString &s, qsizetype pos, bool sourceIsValidUtf16)
{
    const qsizetype size = s.size();
    const auto single = [&](QChar c) -> qsizetype { return pos < size && s.at(pos) == c ? 1 : -1; };
    switch (rule) {
    case Rule::LeftParenthesis:
        return single(u'(');
    case Rule::RightParenthesis:
        return single(u')');
    case Rule::LeftBracket:
        return single(u'[');
    case Rule::RightBracket:
        return single(u']');
    case Rule::Semicolon:
        return single(u';');
    case Rule::Comma:
        return single(u',');
    case Rule::At:
        return single(u'@');
    case Rule::QuotedString: {
        if (pos >= size || (s.at(pos) != u'\'' && s.at(pos) != u'"'))
            return -1;
        const qsizetype close = s.indexOf(s.at(pos), pos + 1);
        return close < 0 ? -1 : close - pos + 1;
    }
    case Rule::Op: {
        static constexpr std::array<QStringView, 8> ops{u"===", u"==", u"~=", u"!=", u"<=", u">=", u"<", u">"};
        for (const QStringView op : ops) {
            if (QStringView(s).sliced(pos).startsWith(op))
                return op.size();
        }
        return -1;
    }
    case Rule::BoolOp:
        return matchWords(s, pos, {u"or", u"and"});
    case Rule::In:
        return matchWords(s, pos, {u"in"});
    case Rule::Not:
        return matchWords(s, pos, {u"not"});
    case Rule::Variable:
        return matchWords(s, pos,
                          {u"python_version", u"python_full_version", u"os.name", u"os_name", u"sys.platform",
                           u"sys_platform", u"platform_release", u"platform_system", u"platform.version",
                           u"platform_version", u"platform.machine", u"platform_machine",
                           u"platform.python_implementation", u"platform_python_implementation",
                           u"python_implementation", u"implementation_name", u"implementation_version", u"extra"});
    case Rule::Specifier:
        return matchSpecifierToken(s, pos, sourceIsValidUtf16);
    case Rule::Url:
        return matchRun(s, pos, [](QChar c) { return c != u' ' && c != u'\t'; });
    case Rule::Identifier:
        return matchIdentifier(s, pos);
    case Rule::Ws:
        return matchRun(s, pos, [](QChar c) { return c == u' ' || c == u'\t'; });
    case Rule::End:
        // Python's `$` also matches just before a newline that ends the string.
        return pos == size || (pos == size - 1 && s.at(pos) == u'\n') ? 0 : -1;
    }
    return -1;
}

QString ruleName(Rule rule)
{
    switch (rule) {
    case Rule::LeftParenthesis:
        return u"LEFT_PARENTHESIS"_s;
    case Rule::RightParenthesis:
        return u"RIGHT_PARENTHESIS"_s;
    case Rule::LeftBracket:
        return u"LEFT_BRACKET"_s;
    case Rule::RightBracket:
        return u"RIGHT_BRACKET"_s;
    case Rule::Semicolon:
        return u"SEMICOLON"_s;
    case Rule::Comma:
        return u"COMMA"_s;
    case Rule::QuotedString:
        return u"QUOTED_STRING"_s;
    case Rule::Op:
        return u"OP"_s;
    case Rule::BoolOp:
        return u"BOOLOP"_s;
    case Rule::In:
        return u"IN"_s;
    case Rule::Not:
        return u"NOT"_s;
    case Rule::Variable:
        return u"VARIABLE"_s;
    case Rule::Specifier:
        return u"SPECIFIER"_s;
    case Rule::At:
        return u"AT"_s;
    case Rule::Url:
        return u"URL"_s;
    case Rule::Identifier:
        return u"IDENTIFIER"_s;
    case Rule::Ws:
        return u"WS"_s;
    case Rule::End:
        return u"END"_s;
    }
    return {};
}

bool Tokenizer::check(Rule rule, bool peek)
{
    Q_ASSERT(!m_next);
    const qsizetype length = matchRule(rule, m_source, m_position, m_validUtf16);
    if (length < 0)
        return false;
    if (!peek)
        m_next = Token{rule, m_source.sliced(m_position, length), m_position};
    return true;
}

Token Tokenizer::read()
{
    Q_ASSERT(m_next);
    Token token = std::move(*m_next);
    m_next.reset();
    m_position += token.text.size();
    return token;
}

} // namespace ferry::env::pep508
