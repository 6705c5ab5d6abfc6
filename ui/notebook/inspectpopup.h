// What the kernel says of the name at the cursor (Shift+Tab): its inspect reply's text, ANSI
// colours dropped, in a tooltip-like frame under the cursor. It goes with the next key (Esc
// only closes it), a click elsewhere, or when its editor loses the focus.
#pragma once

#include <QFrame>
#include <QPointer>

class QPlainTextEdit;

namespace ferry::ui {

class InspectPopup : public QFrame {
    Q_OBJECT
public:
    explicit InspectPopup(QWidget *parent = nullptr);

    // Shows `text` (plain) under `editor`'s cursor, until `editor` is typed in.
    void showFor(QWidget *editor, const QRect &cursorRect, const QString &text);
    QString text() const;

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;
    void hideEvent(QHideEvent *event) override;

private:
    QPlainTextEdit *m_text = nullptr;
    QPointer<QWidget> m_editor;
};

} // namespace ferry::ui
