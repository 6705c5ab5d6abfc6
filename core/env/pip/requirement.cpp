#include "env/pip/requirement.h"

#include "env/pip/marker.h"
#include "env/pip/pep508.h"
#include "env/pip/pep508tokenizer.h"

#include <QRegularExpression>

using namespace Qt::StringLiterals;
using namespace ferry::env::pep508;

// A recursive-descent parser that follows packaging 23.0's _parser.py production for
// production, so that it accepts, rejects and reports exactly where pip does.

namespace ferry::env {

namespace {

const QString specifierHint = u"a version specifier is an operator (==, !=, <, <=, >, >=, ~=, ===) and a PEP 440 "
                              "version such as 1.2, 1.2.3rc1, 1.2.post1, 1.2.dev3 or 1.2+local ('.*' and '+local' "
                              "only after == and !=); separate several with commas and put markers after ';'"_s;

class RequirementParser {
public:
    explicit RequirementParser(const QString &text) : m_tokenizer(text) {}

    // requirement = WS? IDENTIFIER WS? extras WS? requirement_details
    bool parse(Requirement &requirement)
    {
        m_tokenizer.consume(Rule::Ws);
        if (!m_tokenizer.check(Rule::Identifier)) {
            return fail(u"Expected package name at the start of dependency specifier"_s,
                        u"a requirement starts with a project name (letters, digits, '.', '-' and '_', beginning "
                        "and ending with a letter or digit), e.g. requests[socks]>=2.31"_s);
        }
        requirement.name = m_tokenizer.read().text;
        m_tokenizer.consume(Rule::Ws);
        if (!extras(requirement.extras))
            return false;
        m_tokenizer.consume(Rule::Ws);
        if (!details(requirement))
            return false;
        if (!m_tokenizer.check(Rule::End)) {
            return fail(u"Expected end of dependency specifier"_s,
                        u"join marker expressions with 'and' or 'or'; nothing may follow the marker"_s);
        }
        m_tokenizer.read();
        return true;
    }

    const ParseFailure &failure() const { return m_failure; }
    qsizetype specifierStart() const { return m_specifierStart; }
    qsizetype urlStart() const { return m_urlStart; }
    QString rawSpecifier() const { return m_rawSpecifier; }

private:
    bool fail(const QString &message, const QString &hint)
    {
        m_failure = ParseFailure{message, m_tokenizer.position(), hint};
        return false;
    }

    // extras = (LEFT_BRACKET WS? extras_list? WS? RIGHT_BRACKET)?
    // extras_list = IDENTIFIER (WS? COMMA WS? IDENTIFIER)*
    bool extras(QStringList &names)
    {
        if (!m_tokenizer.check(Rule::LeftBracket))
            return true;
        m_tokenizer.read();
        m_tokenizer.consume(Rule::Ws);
        if (m_tokenizer.check(Rule::Identifier)) {
            names << m_tokenizer.read().text;
            while (true) {
                m_tokenizer.consume(Rule::Ws);
                if (m_tokenizer.check(Rule::Identifier, true))
                    return fail(u"Expected comma between extra names"_s, u"write extras as name[extra1,extra2]"_s);
                if (!m_tokenizer.check(Rule::Comma))
                    break;
                m_tokenizer.read();
                m_tokenizer.consume(Rule::Ws);
                if (!m_tokenizer.check(Rule::Identifier)) {
                    return fail(u"Expected extra name after comma"_s,
                                u"extra names are letters, digits, '.', '-' and '_'; remove the trailing comma"_s);
                }
                names << m_tokenizer.read().text;
            }
        }
        m_tokenizer.consume(Rule::Ws);
        if (!m_tokenizer.check(Rule::RightBracket))
            return fail(u"Expected closing RIGHT_BRACKET"_s, u"close the extras with ']'"_s);
        m_tokenizer.read();
        names.removeDuplicates();
        return true;
    }

    // requirement_details = AT URL (WS requirement_marker?)? | specifier WS? requirement_marker?
    bool details(Requirement &requirement)
    {
        if (m_tokenizer.check(Rule::At)) {
            m_tokenizer.read();
            m_tokenizer.consume(Rule::Ws);
            m_urlStart = m_tokenizer.position();
            if (!m_tokenizer.check(Rule::Url))
                return fail(u"Expected URL after @"_s, u"write name @ https://host/path/to/package.whl"_s);
            requirement.url = m_tokenizer.read().text;
            if (m_tokenizer.check(Rule::End, true))
                return true;
            if (!m_tokenizer.check(Rule::Ws)) {
                return fail(u"Expected whitespace after URL"_s,
                            u"a URL ends at the first space; put a space before the ';' of a marker"_s);
            }
            m_tokenizer.read();
            if (m_tokenizer.check(Rule::End, true))
                return true;
            return marker(requirement, u"URL and whitespace"_s);
        }
        m_specifierStart = m_tokenizer.position();
        if (!specifier())
            return false;
        m_tokenizer.consume(Rule::Ws);
        if (m_tokenizer.check(Rule::End, true))
            return true;
        return marker(requirement,
                      m_rawSpecifier.isEmpty() ? u"name and no valid version specifier"_s : u"version specifier"_s);
    }

    // specifier = '(' WS? version_many WS? ')' | WS? version_many WS?
    // version_many = (SPECIFIER (WS? COMMA WS? SPECIFIER)*)?
    bool specifier()
    {
        const bool parenthesised = m_tokenizer.check(Rule::LeftParenthesis);
        if (parenthesised)
            m_tokenizer.read();
        m_tokenizer.consume(Rule::Ws);
        while (m_tokenizer.check(Rule::Specifier)) {
            m_rawSpecifier += m_tokenizer.read().text;
            m_tokenizer.consume(Rule::Ws);
            if (!m_tokenizer.check(Rule::Comma))
                break;
            m_rawSpecifier += m_tokenizer.read().text;
            m_tokenizer.consume(Rule::Ws);
        }
        m_tokenizer.consume(Rule::Ws);
        if (parenthesised) {
            if (!m_tokenizer.check(Rule::RightParenthesis))
                return fail(u"Expected closing RIGHT_PARENTHESIS"_s, specifierHint);
            m_tokenizer.read();
        }
        return true;
    }

    // requirement_marker = SEMICOLON marker WS?
    bool marker(Requirement &requirement, const QString &after)
    {
        if (!m_tokenizer.check(Rule::Semicolon))
            return fail(u"Expected end or semicolon (after %1)"_s.arg(after), detailsHint());
        m_tokenizer.read();
        std::optional<QString> marker = parseMarker(m_tokenizer, m_failure);
        if (!marker)
            return false;
        requirement.marker = *marker;
        m_tokenizer.consume(Rule::Ws);
        return true;
    }

    QString detailsHint() const
    {
        const QStringView rest = QStringView(m_tokenizer.source()).sliced(m_tokenizer.position());
        if (m_rawSpecifier.isEmpty() && m_urlStart < 0) {
            if (rest.startsWith(u'=') && !rest.startsWith(u"=="))
                return u"pin a version with '==' (a single '=' is conda's syntax, not PEP 508's)"_s;
            if (rest.startsWith(u"~="))
                return u"'~=' needs at least two release numbers, e.g. ~=1.4 or ~=1.4.2"_s;
            static const QRegularExpression version(u"^[0-9]"_s);
            if (version.match(rest).hasMatch())
                return u"put a comparison operator before the version, e.g. name==1.0 or name>=1.0"_s;
        }
        if (m_urlStart >= 0)
            return u"a URL ends at the first space; markers follow a ';'"_s;
        return specifierHint;
    }

    Tokenizer m_tokenizer;
    ParseFailure m_failure;
    QString m_rawSpecifier;
    qsizetype m_specifierStart = -1;
    qsizetype m_urlStart = -1;
};

} // namespace

QString normalizePackageName(const QString &name)
{
    static const QRegularExpression separators(u"[-_.]+"_s);
    return QString(name).replace(separators, u"-"_s).toLower();
}

QString Requirement::normalizedName() const
{
    return normalizePackageName(name);
}

QString Requirement::canonical() const
{
    QStringList normalizedExtras;
    for (const QString &extra : extras) {
        const QString normalized = normalizePackageName(extra);
        if (!normalizedExtras.contains(normalized))
            normalizedExtras << normalized;
    }
    normalizedExtras.sort();
    QString out = normalizedName();
    if (!normalizedExtras.isEmpty())
        out += u'[' + normalizedExtras.join(u',') + u']';
    out += canonicalSpecifierSet(specifier);
    if (!url.isEmpty())
        out += u" @ "_s + url;
    if (!marker.isEmpty())
        out += u" ; "_s + marker;
    return out;
}

Expected<Requirement> parseRequirement(const QString &text)
{
    RequirementParser parser(text);
    Requirement requirement;
    if (!parser.parse(requirement)) {
        const ParseFailure &failure = parser.failure();
        return Error{failure.message, {}, 0, columnOf(text, failure.position), failure.hint};
    }
    if (!requirement.url.isEmpty()) {
        const QString problem = urlProblem(requirement.url);
        if (!problem.isEmpty()) {
            return Error{problem,
                         {},
                         0,
                         columnOf(text, parser.urlStart()),
                         u"use an absolute URL with a scheme and a host (https://host/path/package.whl) or a "
                         "file URL with an absolute path (file:///path/to/package.whl)"_s};
        }
    }
    QString badPart;
    const std::optional<QString> specifier = specifierSetString(parser.rawSpecifier(), &badPart);
    if (!specifier) {
        const qsizetype at = text.indexOf(badPart, parser.specifierStart());
        return Error{u"Invalid specifier: '%1'"_s.arg(badPart),
                     {},
                     0,
                     columnOf(text, at >= 0 ? at : parser.specifierStart()),
                     u"'===' takes everything up to the next space, ';' or ')' as its version, commas included"_s};
    }
    requirement.specifier = *specifier;
    requirement.text = text.trimmed();
    return requirement;
}

} // namespace ferry::env
