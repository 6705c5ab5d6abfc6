#include "ui/notebook/pythonhighlighter.h"

#include <QColor>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

const QSet<QString> kKeywords{
    u"False"_s,   u"None"_s,  u"True"_s,     u"and"_s,      u"as"_s,   u"assert"_s, u"async"_s, u"await"_s,
    u"break"_s,   u"class"_s, u"continue"_s, u"def"_s,      u"del"_s,  u"elif"_s,   u"else"_s,  u"except"_s,
    u"finally"_s, u"for"_s,   u"from"_s,     u"global"_s,   u"if"_s,   u"import"_s, u"in"_s,    u"is"_s,
    u"lambda"_s,  u"match"_s, u"case"_s,     u"nonlocal"_s, u"not"_s,  u"or"_s,     u"pass"_s,  u"raise"_s,
    u"return"_s,  u"try"_s,   u"while"_s,    u"with"_s,     u"yield"_s};
const QSet<QString> kBuiltins{u"print"_s, u"len"_s,  u"range"_s,      u"enumerate"_s, u"zip"_s,     u"list"_s,
                              u"dict"_s,  u"set"_s,  u"tuple"_s,      u"int"_s,       u"float"_s,   u"str"_s,
                              u"bool"_s,  u"open"_s, u"isinstance"_s, u"super"_s,     u"type"_s,    u"min"_s,
                              u"max"_s,   u"sum"_s,  u"abs"_s,        u"sorted"_s,    u"map"_s,     u"filter"_s,
                              u"any"_s,   u"all"_s,  u"getattr"_s,    u"setattr"_s,   u"hasattr"_s, u"repr"_s};

// Block states: 0 plain; 1 inside '''; 2 inside """.
constexpr int kInSingleTriple = 1;
constexpr int kInDoubleTriple = 2;

QTextCharFormat charFormat(const QColor &colour, bool bold = false, bool italic = false)
{
    QTextCharFormat f;
    f.setForeground(colour);
    if (bold)
        f.setFontWeight(QFont::Bold);
    f.setFontItalic(italic);
    return f;
}

} // namespace

PythonHighlighter::PythonHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document), m_keyword(charFormat(QColor(0x00, 0x80, 0x00), true)),
      m_builtin(charFormat(QColor(0x00, 0x80, 0x00))), m_string(charFormat(QColor(0xba, 0x21, 0x21))),
      m_comment(charFormat(QColor(0x3d, 0x7b, 0x7b), false, true)), m_number(charFormat(QColor(0x66, 0x66, 0x66))),
      m_decorator(charFormat(QColor(0xaa, 0x22, 0xff))), m_magic(charFormat(QColor(0xaa, 0x22, 0xff), true)),
      m_self(charFormat(QColor(0x00, 0x80, 0x00), false, true)), m_words(u"[A-Za-z_][A-Za-z0-9_]*"_s),
      m_numbers(u"\\b(0[xXoObB][0-9a-fA-F_]+|[0-9][0-9_]*(\\.[0-9_]*)?([eE][-+]?[0-9]+)?j?)\\b"_s)
{
}

qsizetype PythonHighlighter::stringEnd(const QString &text, qsizetype start, const QString &quote)
{
    for (qsizetype i = start; i < text.size(); ++i) {
        if (text.at(i) == u'\\') {
            ++i;
            continue;
        }
        if (text.mid(i, quote.size()) == quote)
            return i + quote.size();
    }
    return -1;
}

void PythonHighlighter::highlightBlock(const QString &text)
{
    setCurrentBlockState(0);
    qsizetype i = 0;
    // A triple-quoted string from an earlier line.
    if (const int previous = previousBlockState(); previous == kInSingleTriple || previous == kInDoubleTriple) {
        const QString quote = previous == kInSingleTriple ? u"'''"_s : u"\"\"\""_s;
        const qsizetype end = stringEnd(text, 0, quote);
        if (end < 0) {
            setFormat(0, int(text.size()), m_string);
            setCurrentBlockState(previous);
            return;
        }
        setFormat(0, int(end), m_string);
        i = end;
    }
    const QString trimmed = text.trimmed();
    if (i == 0 && (trimmed.startsWith(u'%') || trimmed.startsWith(u'!'))) { // IPython: %magic, !shell
        setFormat(0, int(text.size()), m_magic);
        return;
    }
    while (i < text.size()) {
        const QChar c = text.at(i);
        if (c == u'#') {
            setFormat(int(i), int(text.size() - i), m_comment);
            return;
        }
        if (c == u'\'' || c == u'"') {
            const bool triple = text.mid(i, 3) == QString(3, c);
            const QString quote = triple ? QString(3, c) : QString(c);
            const qsizetype end = stringEnd(text, i + quote.size(), quote);
            if (end < 0) {
                setFormat(int(i), int(text.size() - i), m_string);
                if (triple)
                    setCurrentBlockState(c == u'\'' ? kInSingleTriple : kInDoubleTriple);
                return;
            }
            setFormat(int(i), int(end - i), m_string);
            i = end;
            continue;
        }
        if (c == u'@' && text.left(i).trimmed().isEmpty()) {
            const auto word = m_words.match(text, i + 1, QRegularExpression::NormalMatch,
                                            QRegularExpression::AnchorAtOffsetMatchOption);
            const qsizetype length = word.hasMatch() ? word.capturedLength() + 1 : 1;
            setFormat(int(i), int(length), m_decorator);
            i += length;
            continue;
        }
        if (c.isLetter() || c == u'_') {
            const auto word =
                m_words.match(text, i, QRegularExpression::NormalMatch, QRegularExpression::AnchorAtOffsetMatchOption);
            const QString w = word.captured();
            if (kKeywords.contains(w))
                setFormat(int(i), int(w.size()), m_keyword);
            else if (kBuiltins.contains(w))
                setFormat(int(i), int(w.size()), m_builtin);
            else if (w == u"self"_s || w == u"cls"_s)
                setFormat(int(i), int(w.size()), m_self);
            // A string prefix (f, r, b, rb...) before a quote: part of the string.
            i += std::max<qsizetype>(1, w.size());
            continue;
        }
        if (c.isDigit()) {
            const auto number = m_numbers.match(text, i, QRegularExpression::NormalMatch,
                                                QRegularExpression::AnchorAtOffsetMatchOption);
            const qsizetype length = number.hasMatch() ? std::max<qsizetype>(1, number.capturedLength()) : 1;
            setFormat(int(i), int(length), m_number);
            i += length;
            continue;
        }
        ++i;
    }
}

} // namespace ferry::ui
