#include "ui/notebook/inspectpopup.h"

#include <QApplication>
#include <QFontDatabase>
#include <QKeyEvent>
#include <QPlainTextEdit>
#include <QScreen>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kMostWidth = 640;
constexpr int kMostHeight = 320;

} // namespace

InspectPopup::InspectPopup(QWidget *parent)
    : QFrame(parent, Qt::ToolTip | Qt::FramelessWindowHint), m_text(new QPlainTextEdit(this))
{
    setObjectName(u"inspectPopup"_s);
    setFrameShape(QFrame::Box);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(1, 1, 1, 1);
    m_text->setReadOnly(true);
    m_text->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_text->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_text->setFrameShape(QFrame::NoFrame);
    layout->addWidget(m_text);
}

void InspectPopup::showFor(QWidget *editor, const QRect &cursorRect, const QString &text)
{
    if (m_editor)
        m_editor->removeEventFilter(this);
    m_editor = editor;
    m_editor->installEventFilter(this);
    m_text->setPlainText(text);
    const QFontMetrics metrics(m_text->font());
    int widest = 0;
    for (const QString &line : text.split(u'\n'))
        widest = std::max(widest, metrics.horizontalAdvance(line));
    const int lines = int(text.count(u'\n')) + 1;
    resize(std::min(kMostWidth, widest + 24), std::min(kMostHeight, lines * metrics.lineSpacing() + 16));
    QPoint at = editor->mapToGlobal(cursorRect.bottomLeft() + QPoint(0, 2));
    if (const QScreen *screen = editor->screen()) { // kept on the screen
        const QRect room = screen->availableGeometry();
        at.setX(std::clamp(at.x(), room.left(), std::max(room.left(), room.right() - width())));
        if (at.y() + height() > room.bottom())
            at.setY(editor->mapToGlobal(cursorRect.topLeft()).y() - height() - 2);
    }
    move(at);
    show();
    raise();
}

QString InspectPopup::text() const
{
    return m_text->toPlainText();
}

bool InspectPopup::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_editor && isVisible()) {
        if (event->type() == QEvent::KeyPress) {
            hide();
            // Esc closes it and stays in edit mode; any other key goes on to the editor.
            return static_cast<QKeyEvent *>(event)->key() == Qt::Key_Escape;
        }
        if (event->type() == QEvent::FocusOut || event->type() == QEvent::MouseButtonPress ||
            event->type() == QEvent::Hide)
            hide();
    }
    return QFrame::eventFilter(watched, event);
}

void InspectPopup::hideEvent(QHideEvent *event)
{
    if (m_editor)
        m_editor->removeEventFilter(this);
    QFrame::hideEvent(event);
}

} // namespace ferry::ui
