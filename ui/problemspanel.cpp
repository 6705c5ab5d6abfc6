#include "ui/problemspanel.h"

#include <QDateTime>
#include <QHBoxLayout>
#include <QListWidget>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

ProblemsPanel::ProblemsPanel(QWidget *parent) : QWidget(parent), m_list(new QListWidget(this))
{
    setObjectName(u"problemsPanel"_s);
    m_list->setWordWrap(true);
    m_list->setAlternatingRowColors(true);
    auto *clearButton = new QPushButton(tr("Clear"), this);
    connect(clearButton, &QPushButton::clicked, this, &ProblemsPanel::clear);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(clearButton);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
}

int ProblemsPanel::count() const
{
    return m_list->count();
}

QString ProblemsPanel::text(int row) const
{
    const QListWidgetItem *item = m_list->item(row);
    return item ? item->data(Qt::UserRole).toString() : QString();
}

void ProblemsPanel::add(const QString &message)
{
    auto *item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxWarning),
                                     QDateTime::currentDateTime().toString(u"HH:mm:ss"_s) + u"  "_s + message);
    item->setData(Qt::UserRole, message);
    item->setToolTip(message);
    m_list->insertItem(0, item);
    Q_EMIT countChanged(count());
}

void ProblemsPanel::clear()
{
    m_list->clear();
    Q_EMIT countChanged(0);
}

} // namespace ferry::ui
