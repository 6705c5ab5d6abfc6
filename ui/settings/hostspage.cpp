#include "ui/settings/hostspage.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalBlocker>
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

HostsPage::HostsPage(const QStringList &hosts, QHash<QString, targets::SshKeySetting> keys, QStringList secretNames,
                     QWidget *parent)
    : QWidget(parent), m_list(new QListWidget(this)), m_edit(new QLineEdit(this)),
      m_add(new QPushButton(tr("Add"), this)), m_remove(new QPushButton(tr("Remove"), this)),
      m_check(new QPushButton(tr("Check…"), this)), m_keyBox(new QGroupBox(tr("Login key of the selected host"), this)),
      m_identity(new QLineEdit(m_keyBox)), m_passphrase(new QComboBox(m_keyBox)), m_keys(std::move(keys))
{
    m_identity->setObjectName(u"identityFile"_s);
    m_identity->setPlaceholderText(tr("the keys ~/.ssh/config names"));
    m_passphrase->setObjectName(u"passphraseSecret"_s);
    m_passphrase->setEditable(true);
    m_passphrase->addItem(QString());
    secretNames.sort();
    m_passphrase->addItems(secretNames);
    m_passphrase->lineEdit()->setPlaceholderText(tr("none: an unprotected key, or your agent"));
    auto *browse = new QPushButton(tr("Browse…"), m_keyBox);
    auto *identityRow = new QHBoxLayout;
    identityRow->addWidget(m_identity, 1);
    identityRow->addWidget(browse);
    auto *keyForm = new QFormLayout(m_keyBox);
    keyForm->addRow(tr("Private key:"), identityRow);
    keyForm->addRow(tr("Passphrase from keychain secret:"), m_passphrase);
    auto *keyNote = new QLabel(tr("ssh asks Ferry for the passphrase, and Ferry reads it from the keychain: it is "
                                  "never typed, stored in a file or shown."),
                               m_keyBox);
    keyNote->setWordWrap(true);
    keyForm->addRow(keyNote);
    connect(browse, &QPushButton::clicked, this, [this] {
        const QString file = QFileDialog::getOpenFileName(this, tr("Private key"), QDir::homePath() + u"/.ssh"_s);
        if (!file.isEmpty())
            m_identity->setText(file);
    });
    connect(m_identity, &QLineEdit::textChanged, this, &HostsPage::storeKey);
    connect(m_passphrase, &QComboBox::currentTextChanged, this, &HostsPage::storeKey);

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
    layout->addWidget(m_keyBox);

    connect(m_add, &QPushButton::clicked, this, &HostsPage::add);
    connect(m_edit, &QLineEdit::returnPressed, this, &HostsPage::add);
    connect(m_edit, &QLineEdit::textChanged, this, &HostsPage::updateButtons);
    connect(m_list, &QListWidget::currentRowChanged, this, &HostsPage::updateButtons);
    connect(m_list, &QListWidget::currentRowChanged, this, &HostsPage::showKey);
    connect(m_remove, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem *item = m_list->currentItem())
            m_keys.remove(item->text());
        delete m_list->takeItem(m_list->currentRow());
        updateButtons();
    });
    connect(m_check, &QPushButton::clicked, this, [this] {
        if (QListWidgetItem *item = m_list->currentItem())
            Q_EMIT checkRequested(item->text());
    });
    updateButtons();
    showKey();
}

QHash<QString, targets::SshKeySetting> HostsPage::keys() const
{
    QHash<QString, targets::SshKeySetting> listed;
    for (const QString &host : hosts()) {
        if (!m_keys.value(host).isEmpty())
            listed.insert(host, m_keys.value(host));
    }
    return listed;
}

void HostsPage::showKey()
{
    const QListWidgetItem *item = m_list->currentItem();
    const targets::SshKeySetting key = item ? m_keys.value(item->text()) : targets::SshKeySetting{};
    {
        // Filling the fields from m_keys is not an edit.
        const QSignalBlocker identity(m_identity);
        const QSignalBlocker passphrase(m_passphrase);
        m_identity->setText(key.identityFile);
        m_passphrase->setCurrentText(key.passphraseSecret);
    }
    m_keyBox->setEnabled(item != nullptr);
    m_keyBox->setTitle(item ? tr("Login key of %1").arg(item->text()) : tr("Login key of the selected host"));
}

void HostsPage::storeKey()
{
    const QListWidgetItem *item = m_list->currentItem();
    if (!item)
        return;
    m_keys.insert(item->text(),
                  targets::SshKeySetting{m_identity->text().trimmed(), m_passphrase->currentText().trimmed()});
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
