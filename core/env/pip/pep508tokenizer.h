// The context-sensitive PEP 508 tokenizer of packaging 23.0, rule for rule; internal to the parser.
#pragma once

// Internal to the PEP 508 parser: the context-sensitive tokenizer of packaging 23.0
// (packaging/_tokenizer.py), rule for rule, with Python `re` semantics where they matter
// (Unicode word boundaries, `$` also before a final newline, IGNORECASE folding of
// K/k, S/s and I/i to the Kelvin sign, long s and dotted/dotless i).

#include <QString>

#include <optional>
#include <utility>

namespace ferry::env::pep508 {

enum class Rule {
    LeftParenthesis,
    RightParenthesis,
    LeftBracket,
    RightBracket,
    Semicolon,
    Comma,
    QuotedString,
    Op,
    BoolOp,
    In,
    Not,
    Variable,
    Specifier,
    At,
    Url,
    Identifier,
    Ws,
    End,
};

// Where and why parsing stopped: packaging's message ("Expected ..."), the offset of its
// caret, and a hint for the user.
struct ParseFailure {
    QString message;
    qsizetype position = 0;
    QString hint;
};

struct Token {
    Rule rule = Rule::End;
    QString text;
    qsizetype position = 0; // UTF-16 offset into the source
};

// Length (UTF-16 units) of `rule`'s match at `position`, or -1 when it does not match there.
// `sourceIsValidUtf16`: checked once by the caller (see matchSpecifierToken).
qsizetype matchRule(Rule rule, const QString &source, qsizetype position, bool sourceIsValidUtf16 = false);
// packaging's token name ("RIGHT_BRACKET"), used in its "Expected closing ..." messages.
QString ruleName(Rule rule);
// Python's str.isspace(), which is also what `\s` and str.strip() use.
bool isPythonSpace(char32_t c);
QString pythonStrip(const QString &text);
// 1-based column of a UTF-16 offset, counted in code points as Python counts them.
int columnOf(const QString &source, qsizetype position);

class Tokenizer {
public:
    explicit Tokenizer(QString source) : m_source(std::move(source)), m_validUtf16(QStringView(m_source).isValidUtf16())
    {
    }

    // Whether the next token is `rule`; unless `peek`, it is loaded and must be read next.
    bool check(Rule rule, bool peek = false);
    void consume(Rule rule)
    {
        if (check(rule))
            read();
    }
    Token read();

    qsizetype position() const { return m_position; }
    const QString &source() const { return m_source; }

private:
    QString m_source;
    bool m_validUtf16; // checked once, not by PCRE at every token
    qsizetype m_position = 0;
    std::optional<Token> m_next;
};

} // namespace ferry::env::pep508
