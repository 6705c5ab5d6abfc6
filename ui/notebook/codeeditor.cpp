#include "ui/notebook/codeeditor.h"

#include "ui/notebook/pythonhighlighter.h"

#include <QFontDatabase>
#include <QKeyEvent>
#include <QMimeData>
#include <QScrollBar>
#include <QTextBlock>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kIndent = 4;

int leadingSpaces(const QString &line)
{
    int n = 0;
    while (n < line.size() && line.at(n) == u' ')
        ++n;
    return n;
}

// The bracket matching `at` (an opening or closing bracket) in `text`, or -1; brackets in strings
// and comments are not told apart (enough for a cell).
int matchingBracket(const QString &text, int at)
{
    static const QString open = u"([{"_s;
    static const QString close = u")]}"_s;
    const QChar c = text.at(at);
    const qsizetype o = open.indexOf(c);
    const qsizetype k = close.indexOf(c);
    if (o < 0 && k < 0)
        return -1;
    const int step = o >= 0 ? 1 : -1;
    const QChar self = c;
    const QChar other = o >= 0 ? close.at(o) : open.at(k);
    int depth = 0;
    for (int i = at; i >= 0 && i < text.size(); i += step) {
        if (text.at(i) == self)
            ++depth;
        else if (text.at(i) == other && --depth == 0)
            return i;
    }
    return -1;
}

} // namespace

CodeEditor::CodeEditor(QWidget *parent) : QPlainTextEdit(parent)
{
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setLineWrapMode(QPlainTextEdit::NoWrap);
    setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    setTabChangesFocus(false);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    setFrameShape(QFrame::NoFrame);
    connect(document(), &QTextDocument::contentsChanged, this, &CodeEditor::fitHeight);
    connect(this, &QPlainTextEdit::cursorPositionChanged, this, &CodeEditor::showMatchingBracket);
    fitHeight();
}

void CodeEditor::setPythonHighlighting(bool on)
{
    delete m_highlighter;
    m_highlighter = on ? new PythonHighlighter(document()) : nullptr;
}

QSize CodeEditor::sizeHint() const
{
    const int lines = std::max(1, document()->blockCount());
    const int height = lines * fontMetrics().lineSpacing() + 2 * int(document()->documentMargin()) + 4 +
                       (horizontalScrollBar()->isVisible() ? horizontalScrollBar()->height() : 0);
    return {QPlainTextEdit::sizeHint().width(), height};
}

QSize CodeEditor::minimumSizeHint() const
{
    return {100, sizeHint().height()};
}

void CodeEditor::fitHeight()
{
    const int height = sizeHint().height();
    if (height != this->height()) {
        setFixedHeight(height);
        updateGeometry();
    }
}

void CodeEditor::showMatchingBracket()
{
    QList<QTextEdit::ExtraSelection> selections;
    const QString text = toPlainText();
    const int position = textCursor().position();
    for (const int at : {position, position - 1}) {
        if (at < 0 || at >= text.size())
            continue;
        const int match = matchingBracket(text, at);
        if (match < 0)
            continue;
        for (const int i : {at, match}) {
            QTextEdit::ExtraSelection s;
            s.format.setBackground(QColor(0xc8, 0xe6, 0xc9));
            s.cursor = QTextCursor(document());
            s.cursor.setPosition(i);
            s.cursor.setPosition(i + 1, QTextCursor::KeepAnchor);
            selections << s;
        }
        break;
    }
    setExtraSelections(selections);
}

void CodeEditor::newLineWithIndent()
{
    QTextCursor cursor = textCursor();
    const QString line = cursor.block().text().left(cursor.positionInBlock());
    int indent = leadingSpaces(cursor.block().text());
    if (line.trimmed().endsWith(u':'))
        indent += kIndent;
    cursor.insertText(u"\n"_s + QString(indent, u' '));
    setTextCursor(cursor);
}

void CodeEditor::keyPressEvent(QKeyEvent *event)
{
    const Qt::KeyboardModifiers mods = event->modifiers() & ~Qt::KeypadModifier;
    QTextCursor cursor = textCursor();
    if (event->key() == Qt::Key_Escape) {
        Q_EMIT escapePressed();
        return;
    }
    if ((event->key() == Qt::Key_Return || event->key() == Qt::Key_Enter) && mods == Qt::NoModifier) {
        newLineWithIndent();
        return;
    }
    if (event->key() == Qt::Key_Backtab || (event->key() == Qt::Key_Tab && mods == Qt::ShiftModifier)) {
        Q_EMIT inspectRequested(cursor.position());
        return;
    }
    if (event->key() == Qt::Key_Tab && mods == Qt::NoModifier) {
        const QString before = cursor.block().text().left(cursor.positionInBlock());
        if (!cursor.hasSelection() && !before.trimmed().isEmpty() && !before.endsWith(u' ')) {
            Q_EMIT completionRequested(cursor.position());
            return;
        }
        cursor.insertText(QString(kIndent - cursor.positionInBlock() % kIndent, u' '));
        return;
    }
    if (event->key() == Qt::Key_Backspace && mods == Qt::NoModifier && !cursor.hasSelection()) {
        const QString before = cursor.block().text().left(cursor.positionInBlock());
        if (!before.isEmpty() && before.trimmed().isEmpty()) { // in the indentation: back a level
            const int remove = before.size() % kIndent ? int(before.size() % kIndent) : kIndent;
            cursor.movePosition(QTextCursor::Left, QTextCursor::KeepAnchor, remove);
            cursor.removeSelectedText();
            return;
        }
    }
    QPlainTextEdit::keyPressEvent(event);
}

bool CodeEditor::canInsertFromMimeData(const QMimeData *source) const
{
    return source->hasUrls() || QPlainTextEdit::canInsertFromMimeData(source);
}

void CodeEditor::insertFromMimeData(const QMimeData *source)
{
    QStringList paths;
    for (const QUrl &url : source->urls())
        if (url.isLocalFile())
            paths << url.toLocalFile();
    if (!paths.isEmpty()) {
        Q_EMIT filesDropped(paths);
        return;
    }
    QPlainTextEdit::insertFromMimeData(source);
}

void CodeEditor::focusInEvent(QFocusEvent *event)
{
    QPlainTextEdit::focusInEvent(event);
    showMatchingBracket();
}

void CodeEditor::focusOutEvent(QFocusEvent *event)
{
    QPlainTextEdit::focusOutEvent(event);
    setExtraSelections({});
}

} // namespace ferry::ui
