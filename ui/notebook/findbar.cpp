#include "ui/notebook/findbar.h"

#include <QCheckBox>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>

using namespace Qt::StringLiterals;

namespace ferry::ui {

FindBar::FindBar(QWidget *parent)
    : QWidget(parent), m_find(new QLineEdit(this)), m_replace(new QLineEdit(this)),
      m_case(new QCheckBox(tr("Match case"), this)), m_status(new QLabel(this))
{
    setObjectName(u"notebookFindBar"_s);
    auto *row = new QHBoxLayout(this);
    row->setContentsMargins(6, 2, 6, 2);
    m_find->setObjectName(u"findText"_s);
    m_find->setPlaceholderText(tr("Find in the notebook"));
    m_replace->setObjectName(u"replaceText"_s);
    m_replace->setPlaceholderText(tr("Replace with"));
    row->addWidget(m_find, 2);
    auto *previous = new QPushButton(tr("Previous"), this);
    auto *next = new QPushButton(tr("Next"), this);
    row->addWidget(previous);
    row->addWidget(next);
    row->addWidget(m_case);
    row->addWidget(m_replace, 2);
    auto *one = new QPushButton(tr("Replace"), this);
    auto *all = new QPushButton(tr("Replace All"), this);
    auto *close = new QPushButton(tr("Close"), this);
    row->addWidget(one);
    row->addWidget(all);
    row->addWidget(m_status);
    row->addWidget(close);
    connect(previous, &QPushButton::clicked, this, [this] { Q_EMIT findNext(true); });
    connect(next, &QPushButton::clicked, this, [this] { Q_EMIT findNext(false); });
    connect(one, &QPushButton::clicked, this, &FindBar::replaceOne);
    connect(all, &QPushButton::clicked, this, &FindBar::replaceAll);
    connect(close, &QPushButton::clicked, this, [this] {
        hide();
        Q_EMIT closed();
    });
    for (QLineEdit *edit : {m_find, m_replace})
        edit->installEventFilter(this);
    hide();
}

QString FindBar::findText() const
{
    return m_find->text();
}

QString FindBar::replaceText() const
{
    return m_replace->text();
}

bool FindBar::caseSensitive() const
{
    return m_case->isChecked();
}

void FindBar::open(const QString &text)
{
    show();
    if (!text.isEmpty())
        m_find->setText(text);
    m_find->setFocus();
    m_find->selectAll();
}

void FindBar::setStatus(const QString &text)
{
    m_status->setText(text);
}

bool FindBar::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::KeyPress)
        return QWidget::eventFilter(watched, event);
    auto *key = static_cast<QKeyEvent *>(event);
    if (key->key() == Qt::Key_Escape) {
        hide();
        Q_EMIT closed();
        return true;
    }
    if (key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) {
        if (watched == m_replace)
            Q_EMIT replaceOne();
        else
            Q_EMIT findNext(key->modifiers() & Qt::ShiftModifier);
        return true;
    }
    return QWidget::eventFilter(watched, event);
}

} // namespace ferry::ui
