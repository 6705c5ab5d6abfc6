#include "ui/launch/secretvariablesbox.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

SecretVariablesBox::SecretVariablesBox(QWidget *parent)
    : QWidget(parent), m_fromEnvironment(new QLabel(this)), m_table(new QTableWidget(0, 2, this))
{
    m_fromEnvironment->setObjectName(u"environmentSecrets"_s);
    m_fromEnvironment->setWordWrap(true);
    m_table->setObjectName(u"secretVariables"_s);
    m_table->setHorizontalHeaderLabels({tr("Variable"), tr("Keychain secret")});
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->verticalHeader()->setVisible(false);
    auto *add = new QPushButton(tr("Add secret variable"), this);
    add->setObjectName(u"addSecretVariable"_s);
    add->setToolTip(tr("Give the script an environment variable whose value is read from the keychain when the run "
                       "starts (never stored with the run)"));
    connect(add, &QPushButton::clicked, this, [this] { addVariable(); });
    auto *remove = new QPushButton(tr("Remove"), this);
    connect(remove, &QPushButton::clicked, this, [this] {
        if (m_table->currentRow() >= 0)
            m_table->removeRow(m_table->currentRow());
    });
    auto *row = new QHBoxLayout;
    row->addWidget(new QLabel(tr("Secret variables (values from the keychain, at launch only)"), this), 1);
    row->addWidget(add);
    row->addWidget(remove);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(row);
    layout->addWidget(m_fromEnvironment);
    layout->addWidget(m_table);
    setEnvironmentSecrets({});
}

void SecretVariablesBox::setSecretNames(const QStringList &names)
{
    m_names = names;
}

void SecretVariablesBox::setEnvironmentSecrets(const QList<std::pair<QString, QString>> &secrets)
{
    QStringList shown;
    for (const auto &[variable, secret] : secrets)
        shown << u"%1 ← %2"_s.arg(variable, secret);
    m_fromEnvironment->setText(shown.isEmpty() ? tr("The environment has no secret variables.")
                                               : tr("From the environment: %1").arg(shown.join(u", "_s)));
}

void SecretVariablesBox::addVariable(const QString &variable, const QString &secret)
{
    const int row = m_table->rowCount();
    m_table->insertRow(row);
    auto *secrets = new QComboBox(m_table);
    secrets->setEditable(true); // a secret stored by another tool can be named too
    secrets->addItems(m_names);
    const QString chosen = !secret.isEmpty() ? secret : m_names.value(0);
    secrets->setCurrentText(chosen);
    QString name = variable;
    if (name.isEmpty()) // a secret's name is often its variable's (HF_TOKEN)
        name = QString(chosen).replace(u'-', u'_').replace(u'.', u'_').toUpper();
    m_table->setItem(row, 0, new QTableWidgetItem(name));
    m_table->setCellWidget(row, 1, secrets);
}

QList<std::pair<QString, QString>> SecretVariablesBox::launchSecrets() const
{
    QList<std::pair<QString, QString>> result;
    for (int row = 0; row < m_table->rowCount(); ++row) {
        const QTableWidgetItem *variable = m_table->item(row, 0);
        const auto *secret = qobject_cast<QComboBox *>(m_table->cellWidget(row, 1));
        if (variable && secret && !variable->text().trimmed().isEmpty() && !secret->currentText().trimmed().isEmpty())
            result.append({variable->text().trimmed(), secret->currentText().trimmed()});
    }
    return result;
}

} // namespace ferry::ui
