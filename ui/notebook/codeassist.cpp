#include "ui/notebook/codeassist.h"

#include "ui/notebook/codeeditor.h"
#include "ui/notebook/inspectpopup.h"
#include "ui/notebook/outputarea.h"

#include <QAbstractItemView>
#include <QCompleter>
#include <QJsonArray>
#include <QKeyEvent>
#include <QScrollBar>
#include <QStringListModel>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kVisibleMatches = 12;

QString commonPrefix(const QStringList &words)
{
    QString prefix = words.value(0);
    for (const QString &word : words) {
        qsizetype n = 0;
        while (n < prefix.size() && n < word.size() && prefix.at(n) == word.at(n))
            ++n;
        prefix.truncate(n);
    }
    // Never half a surrogate pair.
    if (!prefix.isEmpty() && prefix.back().isHighSurrogate())
        prefix.chop(1);
    return prefix;
}

// Typing one of these ends the word being completed: the popup goes.
bool endsWord(const QString &word)
{
    for (const QChar c : word) {
        if (c.isSpace() || u"()[]{},;=:"_s.contains(c))
            return true;
    }
    return false;
}

} // namespace

CodeAssist::CodeAssist(kernels::NotebookKernel &kernel, QWidget *parent)
    : QObject(parent), m_kernel(kernel), m_completer(new QCompleter(this)), m_matches(new QStringListModel(this)),
      m_inspect(new InspectPopup(parent))
{
    m_completer->setModel(m_matches);
    m_completer->setCompletionMode(QCompleter::PopupCompletion);
    m_completer->setCaseSensitivity(Qt::CaseSensitive);
    m_completer->setModelSorting(QCompleter::UnsortedModel);
    m_completer->setMaxVisibleItems(kVisibleMatches);
    m_completer->popup()->setObjectName(u"completionPopup"_s);
    connect(m_completer, qOverload<const QString &>(&QCompleter::activated), this, &CodeAssist::choose);
    m_completer->popup()->installEventFilter(this); // after QCompleter's own: it runs first
    connect(&kernel, &kernels::NotebookKernel::replyReceived, this, &CodeAssist::replyReceived);
}

void CodeAssist::attach(CodeEditor *editor)
{
    connect(editor, &CodeEditor::completionRequested, this, [this, editor](int cursor) { complete(editor, cursor); });
    connect(editor, &CodeEditor::inspectRequested, this, [this, editor](int cursor) { inspect(editor, cursor); });
    connect(editor, &QPlainTextEdit::textChanged, this, [this, editor] {
        if (editor == m_shownIn && m_completer->popup()->isVisible()) // not once a click closed it
            followTyping();
    });
}

void CodeAssist::complete(CodeEditor *editor, int cursor)
{
    m_completer->popup()->hide();
    m_shownIn = nullptr;
    const QString code = editor->toPlainText();
    if (!m_completion.id.isEmpty())
        m_superseded.insert(m_completion.id);
    m_completion = {m_kernel.complete(code, kernels::codePointPosition(code, cursor)), editor, code, cursor};
}

void CodeAssist::inspect(CodeEditor *editor, int cursor)
{
    m_inspect->hide();
    const QString code = editor->toPlainText();
    if (!m_inspection.id.isEmpty())
        m_superseded.insert(m_inspection.id);
    m_inspection = {m_kernel.inspect(code, kernels::codePointPosition(code, cursor)), editor, code, cursor};
}

bool CodeAssist::current(const Request &request) const
{
    return request.editor && request.editor->toPlainText() == request.code &&
           request.editor->textCursor().position() == request.cursor;
}

void CodeAssist::replyReceived(const QString &requestId, const kernels::JupyterMessage &reply)
{
    if (requestId.isEmpty())
        return;
    if (m_superseded.remove(requestId)) {
        Q_EMIT replyDropped(requestId);
        return;
    }
    const bool completion = requestId == m_completion.id;
    if (!completion && requestId != m_inspection.id)
        return; // not ours
    const Request request = std::exchange(completion ? m_completion : m_inspection, {});
    if (!current(request) || reply.content.value(u"status"_s).toString() != "ok"_L1) {
        Q_EMIT replyDropped(requestId);
        return;
    }
    if (completion) {
        showCompletions(request, reply.content);
        return;
    }
    const QString text = reply.content.value(u"data"_s).toObject().value(u"text/plain"_s).toString();
    if (reply.content.value(u"found"_s).toBool() && !text.isEmpty())
        m_inspect->showFor(request.editor, request.editor->cursorRect(), OutputArea::plainText(text).trimmed());
}

void CodeAssist::showCompletions(const Request &request, const QJsonObject &reply)
{
    QStringList matches;
    for (const QJsonValue &m : reply.value(u"matches"_s).toArray()) {
        if (const QString match = m.toString(); !match.isEmpty() && !matches.contains(match))
            matches << match;
    }
    if (matches.isEmpty())
        return;
    const QString &code = request.code;
    const qsizetype start =
        std::min<qsizetype>(kernels::utf16Position(code, reply.value(u"cursor_start"_s).toInteger()), request.cursor);
    qsizetype end =
        std::max<qsizetype>(kernels::utf16Position(code, reply.value(u"cursor_end"_s).toInteger()), request.cursor);
    CodeEditor *editor = request.editor;
    if (matches.size() == 1) {
        replace(editor, start, end, matches.first());
        return;
    }
    // What every match starts with goes in at once (JupyterLab's way), when the word ends here.
    const QString typed = code.mid(start, request.cursor - start);
    if (const QString common = commonPrefix(matches);
        end == request.cursor && common.size() > typed.size() && common.startsWith(typed)) {
        replace(editor, start, end, common);
        end = start + common.size();
    }
    const QString text = editor->toPlainText();
    m_shownIn = editor;
    m_before = text.left(start);
    m_after = text.mid(end);
    m_matches->setStringList(matches);
    m_completer->setWidget(editor);
    m_completer->setCompletionPrefix(text.mid(start, end - start));
    if (m_completer->completionCount() == 0) // matches that do not start with the word: all shown
        m_completer->setCompletionPrefix(QString());
    showPopup(editor);
}

void CodeAssist::showPopup(CodeEditor *editor)
{
    QAbstractItemView *popup = m_completer->popup();
    QRect rect = editor->cursorRect();
    rect.setWidth(popup->sizeHintForColumn(0) + popup->verticalScrollBar()->sizeHint().width() + 8);
    m_completer->complete(rect);
    popup->setCurrentIndex(m_completer->completionModel()->index(0, 0));
}

// The popup follows the word as it is typed: narrowed to the matches that start with it, gone
// when none does, when the word ends, or when the text changed elsewhere.
void CodeAssist::followTyping()
{
    CodeEditor *editor = m_shownIn;
    if (!editor)
        return;
    QAbstractItemView *popup = m_completer->popup();
    const QString text = editor->toPlainText();
    const qsizetype wordEnd = text.size() - m_after.size();
    const int cursor = editor->textCursor().position();
    const bool valid = wordEnd >= m_before.size() && text.startsWith(m_before) && text.endsWith(m_after) &&
                       cursor >= m_before.size() && cursor <= wordEnd;
    const QString word = valid ? text.mid(m_before.size(), wordEnd - m_before.size()) : QString();
    if (!valid || endsWord(word)) {
        popup->hide();
        m_shownIn = nullptr;
        return;
    }
    m_completer->setCompletionPrefix(word);
    if (m_completer->completionCount() == 0) {
        popup->hide();
        m_shownIn = nullptr;
        return;
    }
    showPopup(editor);
}

bool CodeAssist::eventFilter(QObject *watched, QEvent *event)
{
    QAbstractItemView *popup = m_completer->popup();
    if (watched != popup || event->type() != QEvent::KeyPress || !popup->isVisible())
        return QObject::eventFilter(watched, event);
    const int key = static_cast<QKeyEvent *>(event)->key();
    if (key == Qt::Key_Return || key == Qt::Key_Enter || key == Qt::Key_Tab) {
        const QModelIndex chosen = popup->currentIndex();
        popup->hide();
        if (chosen.isValid())
            choose(chosen.data(Qt::EditRole).toString());
        return true;
    }
    if (key == Qt::Key_Escape) {
        popup->hide();
        m_shownIn = nullptr;
        return true;
    }
    return false; // navigation for the popup, the rest typed on in the editor (QCompleter's)
}

void CodeAssist::choose(const QString &completion)
{
    CodeEditor *editor = std::exchange(m_shownIn, nullptr);
    if (!editor)
        return;
    const QString text = editor->toPlainText();
    const qsizetype wordEnd = text.size() - m_after.size();
    if (wordEnd < m_before.size() || !text.startsWith(m_before) || !text.endsWith(m_after))
        return;
    replace(editor, m_before.size(), wordEnd, completion);
}

void CodeAssist::replace(CodeEditor *editor, qsizetype start, qsizetype end, const QString &text)
{
    QTextCursor cursor(editor->document());
    cursor.setPosition(int(start));
    cursor.setPosition(int(end), QTextCursor::KeepAnchor);
    cursor.insertText(text);
    editor->setTextCursor(cursor);
}

} // namespace ferry::ui
