// Text helpers and the version-expression reader behind MatchSpec parsing; internal to
// matchspec.cpp.
#pragma once

// Internal to matchspec.cpp: the text helpers and the reader of a MatchSpec's version
// expression (`>=1.17,<2`, `1.17|1.18`, in brackets `(a|b),c` and `^regex$`), kept apart so
// that the spec reader stays readable. Not for other files.
#include "common/error.h"

#include <QString>
#include <QStringList>
#include <QStringView>

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

namespace ferry::env::matchspec_detail {

using namespace Qt::StringLiterals;

inline constexpr int maxNesting = 32;
inline constexpr QStringView buildChars = u"_.+*";
inline constexpr QStringView operatorChars = u"=<>!~";

inline bool isSpace(QChar c)
{
    return c == u' ' || c == u'\t';
}
inline bool isAsciiAlnum(QChar c)
{
    return (c >= u'a' && c <= u'z') || (c >= u'A' && c <= u'Z') || (c >= u'0' && c <= u'9');
}
// Letters, digits and the characters in `extra`.
inline bool isWordChar(QChar c, QStringView extra)
{
    return isAsciiAlnum(c) || extra.contains(c);
}
inline int column(qsizetype index)
{
    return static_cast<int>(index) + 1;
}

// `'x'` for messages; invisible characters by code point.
inline QString quoted(QChar c)
{
    if (c == u' ')
        return u"a space"_s;
    if (c.unicode() < 0x20 || c.unicode() == 0x7f || c.isSpace())
        return u"U+%1"_s.arg(static_cast<uint>(c.unicode()), 4, 16, QChar(u'0')).toUpper();
    return u'\'' + QString(c) + u'\'';
}

inline QString collapseStars(QString s)
{
    while (s.contains(u"**"_s))
        s.replace(u"**"_s, u"*"_s);
    return s;
}

// A version constraint tree, kept normalised: children flattened, sorted and unique.
struct VersionExpr {
    enum class Kind { Atom, All, Any };
    Kind kind = Kind::Atom;
    QString atom;
    std::vector<VersionExpr> items;
};

inline QString render(const VersionExpr &e)
{
    if (e.kind == VersionExpr::Kind::Atom)
        return e.atom;
    QStringList parts;
    for (const VersionExpr &item : e.items) {
        const bool wrap = e.kind == VersionExpr::Kind::All && item.kind == VersionExpr::Kind::Any;
        parts << (wrap ? u'(' + render(item) + u')' : render(item));
    }
    return parts.join(e.kind == VersionExpr::Kind::All ? u',' : u'|');
}

inline VersionExpr makeAtom(QString text)
{
    return VersionExpr{VersionExpr::Kind::Atom, std::move(text), {}};
}

inline bool isAnyVersion(const VersionExpr &e)
{
    return e.kind == VersionExpr::Kind::Atom && e.atom == u"*"_s;
}

inline VersionExpr combine(VersionExpr::Kind kind, std::vector<VersionExpr> items)
{
    std::vector<std::pair<QString, VersionExpr>> keyed;
    for (VersionExpr &item : items) {
        if (isAnyVersion(item)) {
            if (kind == VersionExpr::Kind::Any)
                return item; // `*|x` allows everything
            continue;        // `*,x` is x
        }
        if (item.kind == kind) {
            for (VersionExpr &inner : item.items)
                keyed.emplace_back(render(inner), std::move(inner));
        } else {
            keyed.emplace_back(render(item), std::move(item));
        }
    }
    std::sort(keyed.begin(), keyed.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    keyed.erase(
        std::unique(keyed.begin(), keyed.end(), [](const auto &a, const auto &b) { return a.first == b.first; }),
        keyed.end());
    if (keyed.empty())
        return makeAtom(u"*"_s);
    if (keyed.size() == 1)
        return std::move(keyed.front().second);
    VersionExpr result{kind, {}, {}};
    for (auto &entry : keyed)
        result.items.push_back(std::move(entry.second));
    return result;
}

// Reads a version expression: `>=1.17,<2`, `1.17|1.18`, and inside brackets also `(a|b),c`
// and `^regex$`. `,` binds tighter than `|`, as in conda's treeify().
class VersionParser {
public:
    VersionParser(const QString &text, qsizetype begin, qsizetype end, bool inBrackets, bool bareFirstOperator)
        : m_text(text), m_pos(begin), m_end(end), m_inBrackets(inBrackets), m_bareFirstOperator(bareFirstOperator)
    {
    }

    VersionExpr parse()
    {
        if (m_inBrackets)
            skipSpaces();
        VersionExpr e = parseAny(0);
        if (!m_error && m_inBrackets) {
            skipSpaces();
            if (m_pos < m_end)
                fail(m_pos, u"expected ',' or '|' between version constraints, found "_s + quoted(m_text[m_pos]));
        }
        return e;
    }

    qsizetype pos() const { return m_pos; }
    const std::optional<Error> &error() const { return m_error; }
    int atomCount() const { return m_atoms; }
    const QString &firstOperator() const { return m_firstOperator; }

private:
    VersionExpr fail(qsizetype at, const QString &message)
    {
        if (!m_error)
            m_error = Error{message, {}, 0, column(at), {}};
        return {};
    }
    bool reject(qsizetype at, const QString &message)
    {
        fail(at, message);
        return false;
    }
    void skipSpaces()
    {
        while (m_pos < m_end && isSpace(m_text[m_pos]))
            ++m_pos;
    }
    QString found() const { return m_pos < m_end ? quoted(m_text[m_pos]) : u"the end"_s; }

    VersionExpr parseList(int depth, QChar separator)
    {
        const auto kind = separator == u'|' ? VersionExpr::Kind::Any : VersionExpr::Kind::All;
        std::vector<VersionExpr> items;
        items.push_back(separator == u'|' ? parseList(depth, u',') : parseTerm(depth));
        while (!m_error) {
            const qsizetype save = m_pos;
            skipSpaces();
            if (m_pos >= m_end || m_text[m_pos] != separator) {
                m_pos = save; // the space may separate the build string
                break;
            }
            ++m_pos;
            skipSpaces();
            items.push_back(separator == u'|' ? parseList(depth, u',') : parseTerm(depth));
        }
        if (m_error)
            return {};
        return combine(kind, std::move(items));
    }
    VersionExpr parseAny(int depth) { return parseList(depth, u'|'); }

    VersionExpr parseTerm(int depth)
    {
        if (m_pos < m_end && m_text[m_pos] == u'(') {
            if (!m_inBrackets)
                return fail(m_pos, u"expected a version; parentheses are only understood inside brackets, "
                                   "e.g. [version='(1.17|1.18),<2']"_s);
            if (depth >= maxNesting)
                return fail(m_pos, u"expected at most %1 nested parentheses"_s.arg(maxNesting));
            const qsizetype open = m_pos++;
            skipSpaces();
            VersionExpr e = parseAny(depth + 1);
            if (m_error)
                return {};
            skipSpaces();
            if (m_pos >= m_end || m_text[m_pos] != u')')
                return fail(m_pos,
                            u"expected ')' to close the '(' at column %1, found %2"_s.arg(column(open)).arg(found()));
            ++m_pos;
            return e;
        }
        return parseAtom();
    }

    VersionExpr parseAtom()
    {
        if (m_pos >= m_end)
            return fail(m_pos, u"expected a version, found the end"_s);
        if (m_text[m_pos] == u'^')
            return parseRegex();
        const qsizetype start = m_pos;
        while (m_pos < m_end && operatorChars.contains(m_text[m_pos]))
            ++m_pos;
        QString op = m_text.mid(start, m_pos - start);
        static const QStringList operators = {u"=="_s, u"!="_s, u"<="_s, u">="_s, u"~="_s, u"<"_s, u">"_s, u"="_s};
        if (!op.isEmpty() && !operators.contains(op))
            return fail(start, u"unknown operator '%1'; expected one of ==, !=, <, <=, >, >=, ~= or ="_s.arg(op));
        if (!op.isEmpty())
            skipSpaces(); // conda drops the spaces in `>= 1.17`
        if (++m_atoms == 1) {
            m_firstOperator = op;
            if (m_bareFirstOperator)
                op.clear();
        }
        const qsizetype vstart = m_pos;
        while (m_pos < m_end && isWordChar(m_text[m_pos], u"._+!*-")) {
            if (m_text[m_pos] == u'!' && m_pos + 1 < m_end && m_text[m_pos + 1] == u'=')
                break;
            ++m_pos;
        }
        if (m_pos == vstart) {
            const QString after = op.isEmpty() ? QString() : u" after '%1'"_s.arg(op);
            return fail(m_pos, u"expected a version%1, found %2"_s.arg(after, found()));
        }
        return normaliseAtom(op, vstart, m_pos);
    }

    VersionExpr parseRegex()
    {
        if (!m_inBrackets)
            return fail(m_pos, u"expected a version; regular expressions are only understood inside brackets, "
                               "e.g. [version='^1\\.17\\..*$']"_s);
        const qsizetype dollar = m_text.indexOf(u'$', m_pos + 1);
        if (dollar < 0 || dollar >= m_end)
            return fail(m_pos, u"expected '$' to end the regular expression that starts here"_s);
        ++m_atoms;
        const qsizetype start = std::exchange(m_pos, dollar + 1);
        return makeAtom(m_text.mid(start, m_pos - start));
    }

    // One constraint in its canonical spelling: `==1.17`, `1.17.*`, `>=1.17`, `!=1.17.*`, a glob.
    VersionExpr normaliseAtom(const QString &op, qsizetype vstart, qsizetype vend)
    {
        const QString v = m_text.mid(vstart, vend - vstart);
        const bool fuzzy = v.endsWith(u'*');
        qsizetype coreLength = v.size();
        if (fuzzy) { // conda: rstrip('*').rstrip('.')
            while (coreLength > 0 && v[coreLength - 1] == u'*')
                --coreLength;
            while (coreLength > 0 && v[coreLength - 1] == u'.')
                --coreLength;
        }
        QString core = v.left(coreLength);
        if (const qsizetype star = core.indexOf(u'*'); star >= 0) {
            if (!op.isEmpty())
                return fail(vstart + star, u"expected '*' only at the end of a version that follows '%1'"_s.arg(op));
            return makeAtom(collapseStars(v)); // a glob such as 1.*.3, matched as written
        }
        if (core.isEmpty()) {
            if ((op.isEmpty() || op == u"="_s) && v.count(u'*') == v.size())
                return makeAtom(u"*"_s);
            return fail(vstart, u"expected a version number before '*'"_s);
        }
        if (!validateVersion(core, vstart))
            return {};
        core = core.toLower(); // conda compares versions case-insensitively
        if (op.isEmpty())
            return makeAtom(fuzzy ? QString(core + u".*"_s) : QString(u"=="_s + core));
        if (op == u"="_s)
            return makeAtom(core + u".*"_s);
        if (op == u"!="_s)
            return makeAtom(u"!="_s + core + (fuzzy ? u".*"_s : QString()));
        if (op == u"~="_s && fuzzy)
            return fail(vstart, u"expected a version without '*' after '~='"_s);
        return makeAtom(op + core); // conda ignores `.*` after ==, <, <=, >, >=
    }

    // conda's VersionOrder rules: [epoch!]version[+local], components split at . _ -
    bool validateVersion(const QString &v, qsizetype base)
    {
        const qsizetype dash = v.indexOf(u'-');
        if (dash >= 0 && v.contains(u'_'))
            return reject(base + dash, u"expected either '-' or '_' in a version, not both"_s);
        const qsizetype bang = v.indexOf(u'!');
        if (bang >= 0) {
            if (const qsizetype second = v.indexOf(u'!', bang + 1); second >= 0)
                return reject(base + second, u"expected at most one '!' (the epoch separator)"_s);
            const QString epoch = v.left(bang);
            if (epoch.isEmpty() || !std::all_of(epoch.begin(), epoch.end(), [](QChar c) { return c.isDigit(); }))
                return reject(base, u"expected a number before '!' (the epoch)"_s);
        }
        const qsizetype plus = v.indexOf(u'+');
        if (plus >= 0) {
            if (const qsizetype second = v.indexOf(u'+', plus + 1); second >= 0)
                return reject(base + second, u"expected at most one '+' (the local version separator)"_s);
        }
        bool expectComponent = true;
        for (qsizetype i = bang + 1; i < v.size(); ++i) {
            const bool separator = QStringView(u"._-+").contains(v[i]);
            if (separator && expectComponent)
                return reject(base + i, u"expected a version component (letters or digits) before "_s + quoted(v[i]));
            expectComponent = separator;
        }
        if (expectComponent)
            return reject(base + v.size(),
                          u"expected a version component (letters or digits) after "_s + quoted(v.back()));
        return true;
    }

    const QString &m_text;
    qsizetype m_pos;
    qsizetype m_end;
    bool m_inBrackets;
    bool m_bareFirstOperator;
    std::optional<Error> m_error;
    int m_atoms = 0;
    QString m_firstOperator;
};

} // namespace ferry::env::matchspec_detail
