// The editor of a notebook cell: as tall as its text (the notebook scrolls, not the cell), Python
// highlighting, the matching bracket shown, indentation kept and added after ':', Tab as four
// spaces (or completion after a word), Shift+Tab for the kernel's help on the name at the cursor.
#pragma once

#include <QPlainTextEdit>

namespace ferry::ui {

class CodeEditor : public QPlainTextEdit {
    Q_OBJECT
public:
    explicit CodeEditor(QWidget *parent = nullptr);

    void setPythonHighlighting(bool on);
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

Q_SIGNALS:
    // Tab after a word: the kernel is asked for completions of the text up to `cursor`.
    void completionRequested(int cursor);
    // Shift+Tab: the kernel is asked what the name at `cursor` is.
    void inspectRequested(int cursor);
    // Esc: the notebook goes to command mode.
    void escapePressed();
    // Files or folders of this machine dropped on the editor (not inserted as text).
    void filesDropped(const QStringList &paths);

protected:
    void keyPressEvent(QKeyEvent *event) override;
    bool canInsertFromMimeData(const QMimeData *source) const override;
    void insertFromMimeData(const QMimeData *source) override;
    void focusInEvent(QFocusEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;

private:
    void fitHeight();
    void showMatchingBracket();
    void newLineWithIndent();

    QObject *m_highlighter = nullptr;
};

} // namespace ferry::ui
