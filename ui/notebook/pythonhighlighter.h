// Python as notebooks show it: keywords, builtins, strings (triple-quoted ones across lines),
// comments, numbers, decorators, and IPython's magics and shell escapes.
#pragma once

#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace ferry::ui {

class PythonHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit PythonHighlighter(QTextDocument *document);

protected:
    void highlightBlock(const QString &text) override;

private:
    // From `start` in a block, inside a string opened by `quote` (''' or """, or ' or " when
    // single-line): where it closes (after the quote), or -1 when it runs to the end of the line.
    static qsizetype stringEnd(const QString &text, qsizetype start, const QString &quote);

    QTextCharFormat m_keyword, m_builtin, m_string, m_comment, m_number, m_decorator, m_magic, m_self;
    QRegularExpression m_words, m_numbers;
};

} // namespace ferry::ui
