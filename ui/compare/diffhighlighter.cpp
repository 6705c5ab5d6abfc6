#include "ui/compare/diffhighlighter.h"

#include <QFont>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QTextCharFormat formatOf(const QColor &foreground, const QColor &background, bool bold = false, bool italic = false)
{
    QTextCharFormat format;
    if (foreground.isValid())
        format.setForeground(foreground);
    if (background.isValid())
        format.setBackground(background);
    if (bold)
        format.setFontWeight(QFont::Bold);
    format.setFontItalic(italic);
    return format;
}

} // namespace

DiffHighlighter::DiffHighlighter(QTextDocument *document)
    : QSyntaxHighlighter(document),
      m_keywords(u"\\b(False|None|True|and|as|assert|async|await|break|class|continue|def|del|elif|else|except|"
                 "finally|for|from|global|if|import|in|is|lambda|nonlocal|not|or|pass|raise|return|try|while|with|"
                 "yield|self)\\b"_s),
      m_strings(u"[rbfRBF]{0,2}(\"\"\"|'''|\"([^\"\\\\]|\\\\.)*\"|'([^'\\\\]|\\\\.)*')"_s),
      m_numbers(u"\\b[0-9]+(\\.[0-9]*)?([eE][-+]?[0-9]+)?\\b"_s)
{
}

void DiffHighlighter::setPython(bool python)
{
    if (python == m_python)
        return;
    m_python = python;
    rehighlight();
}

DiffHighlighter::LineKind DiffHighlighter::lineKind(const QString &line)
{
    if (line.startsWith(u"+++ "_s) || line.startsWith(u"--- "_s))
        return LineKind::FileHeader;
    if (line.startsWith(u"@@"_s))
        return LineKind::Hunk;
    if (line.startsWith(u'+'))
        return LineKind::Added;
    if (line.startsWith(u'-'))
        return LineKind::Removed;
    return LineKind::Context;
}

QColor DiffHighlighter::background(LineKind kind)
{
    switch (kind) {
    case LineKind::Added:
        return QColor(0xd7, 0xf5, 0xdd);
    case LineKind::Removed:
        return QColor(0xfd, 0xdc, 0xdc);
    case LineKind::Hunk:
        return QColor(0xe4, 0xec, 0xf7);
    case LineKind::FileHeader:
    case LineKind::Context:
        break;
    }
    return {};
}

void DiffHighlighter::highlightBlock(const QString &text)
{
    const LineKind kind = lineKind(text);
    const QColor back = background(kind);
    switch (kind) {
    case LineKind::FileHeader:
        setFormat(0, int(text.size()), formatOf(QColor(0x55, 0x55, 0x55), back, true));
        return;
    case LineKind::Hunk:
        setFormat(0, int(text.size()), formatOf(QColor(0x3a, 0x5f, 0x9e), back));
        return;
    case LineKind::Added:
    case LineKind::Removed:
        setFormat(0, int(text.size()), formatOf(QColor(), back));
        setFormat(0, 1,
                  formatOf(kind == LineKind::Added ? QColor(0x1b, 0x7f, 0x37) : QColor(0xb3, 0x26, 0x1e), back, true));
        break;
    case LineKind::Context:
        break;
    }
    if (m_python)
        highlightPython(text, back);
}

// Line by line: a string spanning lines (a docstring) is coloured on its first line only.
void DiffHighlighter::highlightPython(const QString &text, const QColor &back)
{
    const auto apply = [&](const QRegularExpression &pattern, const QTextCharFormat &format) {
        for (auto it = pattern.globalMatch(text, 1); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            setFormat(int(m.capturedStart()), int(m.capturedLength()), format);
        }
    };
    apply(m_numbers, formatOf(QColor(0x09, 0x86, 0x58), back));
    apply(m_keywords, formatOf(QColor(0x00, 0x33, 0xb3), back, true));
    apply(m_strings, formatOf(QColor(0xa3, 0x15, 0x15), back));
    // A comment: from the first # that is not inside a string.
    const QColor stringColour = QColor(0xa3, 0x15, 0x15);
    for (qsizetype hash = text.indexOf(u'#', 1); hash >= 0; hash = text.indexOf(u'#', hash + 1)) {
        if (format(int(hash)).foreground().color() == stringColour)
            continue;
        setFormat(int(hash), int(text.size() - hash), formatOf(QColor(0x6a, 0x73, 0x7d), back, false, true));
        break;
    }
}

} // namespace ferry::ui
