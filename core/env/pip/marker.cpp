#include "env/pip/marker.h"

#include "env/pip/requirement.h"

#include <QStringList>

#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::env::pep508 {

namespace {

// packaging keeps a marker as a list alternating atoms and "and"/"or"; an atom is either one
// comparison or a parenthesised list. The printed form depends on that shape, so keep it.
struct Operand {
    bool isVariable = false;
    QString value;

    QString serialize() const { return isVariable ? value : u'"' + value + u'"'; }
};

struct Element;
using MarkerList = std::vector<Element>;

struct Element {
    enum class Kind { Comparison, Group, BoolOp };
    Kind kind = Kind::Comparison;
    Operand lhs;
    QString op; // comparison operator, or "and"/"or"
    Operand rhs;
    MarkerList group;
};

class MarkerParser {
public:
    MarkerParser(Tokenizer &tokenizer, ParseFailure &failure) : m_tokenizer(tokenizer), m_failure(failure) {}

    // marker = marker_atom (BOOLOP marker_atom)*
    std::optional<MarkerList> marker()
    {
        MarkerList expression;
        std::optional<Element> first = atom();
        if (!first)
            return std::nullopt;
        expression.push_back(std::move(*first));
        while (m_tokenizer.check(Rule::BoolOp)) {
            Element boolOp;
            boolOp.kind = Element::Kind::BoolOp;
            boolOp.op = m_tokenizer.read().text;
            std::optional<Element> right = atom();
            if (!right)
                return std::nullopt;
            expression.push_back(std::move(boolOp));
            expression.push_back(std::move(*right));
        }
        return expression;
    }

private:
    bool fail(const QString &message, const QString &hint)
    {
        m_failure = ParseFailure{message, m_tokenizer.position(), hint};
        return false;
    }

    // marker_atom = WS? '(' WS? marker WS? ')' WS? | WS? marker_item WS?
    std::optional<Element> atom()
    {
        m_tokenizer.consume(Rule::Ws);
        Element element;
        if (m_tokenizer.check(Rule::LeftParenthesis, true)) {
            // Python gives up near 500 levels (RecursionError); stop well before either stack.
            if (m_depth == maxDepth) {
                fail(u"Expected at most %1 nested parentheses in a marker"_s.arg(maxDepth), u"simplify the marker"_s);
                return std::nullopt;
            }
            m_tokenizer.check(Rule::LeftParenthesis);
            m_tokenizer.read();
            ++m_depth;
            m_tokenizer.consume(Rule::Ws);
            std::optional<MarkerList> inner = marker();
            if (!inner)
                return std::nullopt;
            m_tokenizer.consume(Rule::Ws);
            if (!m_tokenizer.check(Rule::RightParenthesis)) {
                fail(u"Expected closing RIGHT_PARENTHESIS"_s, u"close the group with ')'"_s);
                return std::nullopt;
            }
            m_tokenizer.read();
            --m_depth;
            element.kind = Element::Kind::Group;
            element.group = std::move(*inner);
        } else if (!item(element)) {
            return std::nullopt;
        }
        m_tokenizer.consume(Rule::Ws);
        return element;
    }

    // marker_item = WS? marker_var WS? marker_op WS? marker_var WS?
    bool item(Element &element)
    {
        m_tokenizer.consume(Rule::Ws);
        if (!operand(element.lhs))
            return false;
        m_tokenizer.consume(Rule::Ws);
        if (!comparison(element.op))
            return false;
        m_tokenizer.consume(Rule::Ws);
        if (!operand(element.rhs))
            return false;
        m_tokenizer.consume(Rule::Ws);
        return true;
    }

    // marker_var = VARIABLE | QUOTED_STRING
    bool operand(Operand &operand)
    {
        if (m_tokenizer.check(Rule::Variable)) {
            QString name = m_tokenizer.read().text.replace(u'.', u'_');
            if (name == u"python_implementation"_s)
                name = u"platform_python_implementation"_s;
            operand = Operand{true, name};
            return true;
        }
        if (m_tokenizer.check(Rule::QuotedString)) {
            const qsizetype start = m_tokenizer.position();
            const Token token = m_tokenizer.read();
            QString problem;
            std::optional<QString> value = evaluateStringLiteral(token.text, &problem);
            if (!value) {
                m_failure = ParseFailure{problem, start,
                                         u"marker values are Python string literals: check the quotes and "
                                         "backslash escapes"_s};
                return false;
            }
            operand = Operand{false, *value};
            return true;
        }
        return fail(u"Expected a marker variable or quoted string"_s,
                    u"compare a marker variable (python_version, sys_platform, platform_machine, os_name, "
                    "extra, ...) with a quoted string, e.g. python_version >= \"3.8\""_s);
    }

    // marker_op = IN | NOT IN | OP
    bool comparison(QString &op)
    {
        if (m_tokenizer.check(Rule::In)) {
            m_tokenizer.read();
            op = u"in"_s;
            return true;
        }
        if (m_tokenizer.check(Rule::Not)) {
            m_tokenizer.read();
            if (!m_tokenizer.check(Rule::Ws))
                return fail(u"Expected whitespace after 'not'"_s, u"write 'not in'"_s);
            m_tokenizer.read();
            if (!m_tokenizer.check(Rule::In))
                return fail(u"Expected 'in' after 'not'"_s, u"write 'not in'"_s);
            m_tokenizer.read();
            op = u"not in"_s;
            return true;
        }
        if (m_tokenizer.check(Rule::Op)) {
            op = m_tokenizer.read().text;
            return true;
        }
        return fail(u"Expected marker operator, one of <=, <, !=, ==, >=, >, ~=, ===, in, not in"_s,
                    u"markers compare with ==, !=, <, <=, >, >=, ~=, ===, in or not in"_s);
    }

    static constexpr int maxDepth = 400;
    Tokenizer &m_tokenizer;
    ParseFailure &m_failure;
    int m_depth = 0;
};

// packaging's _normalize_extra_values: only a comparison that comes first at the top level
// has its extra name normalised (a quirk of 23.0 that str(Marker) shows, so it is kept).
void normalizeLeadingExtra(MarkerList &markers)
{
    if (markers.empty() || markers.front().kind != Element::Kind::Comparison)
        return;
    Element &first = markers.front();
    if (first.lhs.isVariable && first.lhs.value == u"extra"_s)
        first.rhs = Operand{false, normalizePackageName(first.rhs.value)};
    else if (first.rhs.isVariable && first.rhs.value == u"extra"_s)
        first.lhs = Operand{false, normalizePackageName(first.lhs.value)};
}

QString format(const Element &element, bool first);

// packaging's _format_marker: a list holding a single atom prints as that atom (so doubled
// parentheses vanish), a nested list is parenthesised.
QString format(const MarkerList &markers, bool first)
{
    if (markers.size() == 1 && markers.front().kind != Element::Kind::BoolOp) {
        const Element &only = markers.front();
        return only.kind == Element::Kind::Group ? format(only.group, true) : format(only, true);
    }
    QStringList parts;
    for (const Element &element : markers)
        parts << format(element, false);
    const QString inner = parts.join(u' ');
    return first ? inner : u'(' + inner + u')';
}

QString format(const Element &element, bool first)
{
    switch (element.kind) {
    case Element::Kind::Comparison:
        return element.lhs.serialize() + u' ' + element.op + u' ' + element.rhs.serialize();
    case Element::Kind::Group:
        return format(element.group, first);
    case Element::Kind::BoolOp:
        return element.op;
    }
    return {};
}

} // namespace

std::optional<QString> parseMarker(Tokenizer &tokenizer, ParseFailure &failure)
{
    MarkerParser parser(tokenizer, failure);
    std::optional<MarkerList> markers = parser.marker();
    if (!markers)
        return std::nullopt;
    normalizeLeadingExtra(*markers);
    return format(*markers, true);
}

} // namespace ferry::env::pep508
