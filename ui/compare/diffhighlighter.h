// DiffHighlighter: colours a unified diff's added, removed and header lines, and Python code within
// them.
#pragma once

// Colours a unified diff in a text document (the compare view's code diff): added lines green,
// removed lines red, hunk headers and file headers set apart; in a Python file also the
// keywords, strings, comments and numbers of each line's code.
#include <QRegularExpression>
#include <QSyntaxHighlighter>
#include <QTextCharFormat>

namespace ferry::ui {

class DiffHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    explicit DiffHighlighter(QTextDocument *document);

    // Whether the lines are Python (the file's name ends in .py): the code is highlighted too.
    void setPython(bool python);

    // What a line of a diff is, by its first characters.
    enum class LineKind { FileHeader, Hunk, Added, Removed, Context };
    static LineKind lineKind(const QString &line);
    static QColor background(LineKind kind); // invalid: the line keeps the document's

protected:
    void highlightBlock(const QString &text) override;

private:
    void highlightPython(const QString &text, const QColor &background);

    bool m_python = false;
    QRegularExpression m_keywords, m_strings, m_numbers;
};

} // namespace ferry::ui
