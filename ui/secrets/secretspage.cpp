#include "ui/secrets/secretspage.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

SecretsPage::SecretsPage(secrets::SecretStore &store, QWidget *parent)
    : QWidget(parent), m_secrets(store), m_names(new QListWidget(this)), m_name(new QLineEdit(this)),
      m_value(new QLineEdit(this)), m_store(new QPushButton(tr("Store"), this)),
      m_delete(new QPushButton(tr("Delete"), this)), m_status(new QLabel(this))
{
    m_value->setEchoMode(QLineEdit::Password);
    m_name->setPlaceholderText(tr("e.g. HF_TOKEN"));
    m_value->setPlaceholderText(tr("kept in the OS keychain, never in a file"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto *form = new QFormLayout;
    form->addRow(tr("Name:"), m_name);
    form->addRow(tr("Value:"), m_value);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_delete);
    buttons->addWidget(m_store);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(
        new QLabel(tr("Secrets (registry passwords, tokens, SSH passphrases) in the OS keychain:"), this));
    layout->addWidget(m_names, 1);
    layout->addLayout(form);
    layout->addLayout(buttons);
    layout->addWidget(m_status);

    connect(m_store, &QPushButton::clicked, this, &SecretsPage::storeSecret);
    connect(m_value, &QLineEdit::returnPressed, this, &SecretsPage::storeSecret);
    connect(m_delete, &QPushButton::clicked, this, &SecretsPage::deleteSecret);
    connect(m_names, &QListWidget::currentTextChanged, this, [this](const QString &name) {
        if (!name.isEmpty())
            m_name->setText(name);
        updateButtons();
    });
    connect(m_name, &QLineEdit::textChanged, this, &SecretsPage::updateButtons);
    connect(m_value, &QLineEdit::textChanged, this, &SecretsPage::updateButtons);
    connect(&m_secrets, &secrets::SecretStore::finished, this, &SecretsPage::replied);
    reload();
}

void SecretsPage::storeSecret()
{
    if (isBusy() || m_name->text().trimmed().isEmpty() || m_value->text().isEmpty())
        return;
    m_status->setText(tr("Storing %1…").arg(m_name->text().trimmed()));
    m_pending = m_secrets.write(m_name->text().trimmed(), m_value->text());
    updateButtons();
}

void SecretsPage::deleteSecret()
{
    const QListWidgetItem *item = m_names->currentItem();
    if (isBusy() || !item)
        return;
    m_status->setText(tr("Deleting %1…").arg(item->text()));
    m_pending = m_secrets.remove(item->text());
    updateButtons();
}

void SecretsPage::replied(const secrets::SecretReply &reply)
{
    if (reply.request != m_pending)
        return; // someone else's request on the same store
    m_pending = 0;
    if (reply.error) {
        m_status->setText(reply.error->message +
                          (reply.error->hint.isEmpty() ? QString() : u"\n"_s + reply.error->hint));
    } else if (reply.operation == secrets::SecretOperation::Write) {
        m_value->clear(); // the value does not stay in the window
        m_status->setText(tr("Stored %1 in the keychain.").arg(reply.name));
    } else if (reply.operation == secrets::SecretOperation::Remove) {
        m_name->clear();
        m_status->setText(tr("Deleted %1.").arg(reply.name));
    }
    reload();
    Q_EMIT idle();
}

void SecretsPage::reload()
{
    const QString current = m_names->currentItem() ? m_names->currentItem()->text() : QString();
    m_names->clear();
    m_names->addItems(m_secrets.names());
    const auto found = m_names->findItems(current, Qt::MatchExactly);
    if (!found.isEmpty())
        m_names->setCurrentItem(found.first());
    updateButtons();
}

void SecretsPage::updateButtons()
{
    m_store->setEnabled(!isBusy() && !m_name->text().trimmed().isEmpty() && !m_value->text().isEmpty());
    m_delete->setEnabled(!isBusy() && m_names->currentItem() != nullptr);
}

} // namespace ferry::ui
