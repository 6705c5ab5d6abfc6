#include "ui/hostspage.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// What ssh takes as a destination: [user@]host, no spaces, not an option.
bool isDestination(const QString &host)
{
    static const QRegularExpression destination(u"^[A-Za-z0-9_.%+-]+(@[A-Za-z0-9_.:%+\\[\\]-]+)?$"_s);
    return destination.match(host).hasMatch() && !host.startsWith(u'-');
}

} // namespace

HostsPage::HostsPage(QStringList hosts, QWidget *parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_edit(new QLineEdit(this)),
      m_add(new QPushButton(tr("Add"), this)), m_remove(new QPushButton(tr("Remove"), this)),
      m_check(new QPushButton(tr("Check…"), this))
{
    m_list->setObjectName(u"hosts"_s);
    m_list->addItems(hosts);
    m_edit->setObjectName(u"newHost"_s);
    m_edit->setPlaceholderText(tr("a host as ssh knows it: gpu-box, me@10.0.0.5, a Slurm login node"));
    auto *explain = new QLabel(tr("Hosts for SSH and Slurm runs. Ferry uses your ssh (~/.ssh/config, agent, jump "
                                  "hosts) and its own list of trusted host keys: Check… shows what a host offers "
                                  "and asks before trusting a new key."),
                               this);
    explain->setWordWrap(true);
    auto *addRow = new QHBoxLayout;
    addRow->addWidget(m_edit, 1);
    addRow->addWidget(m_add);
    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_check);
    buttons->addWidget(m_remove);
    buttons->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(explain);
    layout->addWidget(m_list, 1);
    layout->addLayout(buttons);
    layout->addLayout(addRow);

    connect(m_add, &QPushButton::clicked, this, &HostsPage::add);
    connect(m_edit, &QLineEdit::returnPressed, this, &HostsPage::add);
    connect(m_edit, &QLineEdit::textChanged, this, &HostsPage::updateButtons);
    connect(m_list, &QListWidget::currentRowChanged, this, &HostsPage::updateButtons);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        delete m_list->takeItem(m_list->currentRow());
        updateButtons();
    });
    connect(m_check, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem *item = m_list->currentItem())
            Q_EMIT checkRequested(item->text());
    });
    updateButtons();
}

QStringList HostsPage::hosts() const
{
    QStringList list;
    for (int i = 0; i < m_list->count(); ++i)
        list << m_list->item(i)->text();
    return list;
}

void HostsPage::add()
{
    const QString host = m_edit->text().trimmed();
    if (!isDestination(host) || hosts().contains(host))
        return;
    m_list->addItem(host);
    m_list->setCurrentRow(m_list->count() - 1);
    m_edit->clear();
    updateButtons();
}

void HostsPage::updateButtons()
{
    const QString host = m_edit->text().trimmed();
    m_add->setEnabled(isDestination(host) && !hosts().contains(host));
    m_remove->setEnabled(m_list->currentItem() != nullptr);
    m_check->setEnabled(m_list->currentItem() != nullptr);
}

} // namespace ferry::ui
