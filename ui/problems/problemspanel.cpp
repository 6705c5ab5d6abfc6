#include "ui/problems/problemspanel.h"

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

void ProblemsPanel::setProblems(const QString &source, const QStringList &messages)
{
    constexpr int kSourceRole = Qt::UserRole + 1;
    for (int row = m_list->count() - 1; row >= 0; --row)
        if (m_list->item(row)->data(kSourceRole).toString() == source)
            delete m_list->takeItem(row);
    for (qsizetype i = messages.size() - 1; i >= 0; --i) {
        auto *item = new QListWidgetItem(style()->standardIcon(QStyle::SP_MessageBoxWarning), messages.at(i));
        item->setData(Qt::UserRole, messages.at(i));
        item->setData(kSourceRole, source);
        item->setToolTip(messages.at(i));
        m_list->insertItem(0, item);
    }
    Q_EMIT countChanged(count());
}

void ProblemsPanel::clear()
{
    m_list->clear();
    Q_EMIT countChanged(0);
}

} // namespace ferry::ui
