#include "ui/settings/preferences.h"

#include "cost/budget.h"
#include "cost/rates.h"
#include "secrets/secretstore.h"
#include "targets/containerengine.h"
#include "training/training.h"
#include "ui/alerts/alertspage.h"
#include "ui/env/environmenteditors.h"
#include "ui/env/terminallauncher.h"
#include "ui/launch/hostdialog.h"
#include "ui/secrets/secretspage.h"
#include "ui/settings/hostspage.h"
#include "ui/settings/ratespage.h"
#include "ui/settings/settingsdialog.h"
#include "ui/train/trainpanel.h"

#include <QCoreApplication>

namespace ferry::ui {

Preferences::Preferences(QSettings &settings, secrets::SecretStore *secrets, EnvironmentEditors *editors,
                         TrainPanel *train, QObject *parent)
    : QObject(parent), m_settings(settings), m_secrets(secrets), m_editors(editors), m_train(train)
{
    if (m_secrets) {
        connect(m_secrets, &secrets::SecretStore::finished, this, [this](const secrets::SecretReply &reply) {
            if (reply.operation != secrets::SecretOperation::Read)
                refreshSecretNames();
        });
        // A value typed into a variable marked secret goes to the keychain, never to the file.
        connect(m_editors, &EnvironmentEditors::secretValueOffered, this,
                [this](const QString &name, const QString &value) {
                    const quint64 request = m_secrets->write(name, value);
                    auto once = std::make_shared<QMetaObject::Connection>();
                    *once = connect(m_secrets, &secrets::SecretStore::finished, this,
                                    [this, request, once, name](const secrets::SecretReply &reply) {
                                        if (reply.request != request)
                                            return;
                                        disconnect(*once);
                                        if (!reply.ok())
                                            Q_EMIT problem(withContext(tr("Keychain: cannot store secret %1").arg(name),
                                                                       *reply.error));
                                    });
                });
    }
    apply();
}

void Preferences::refreshSecretNames()
{
    m_editors->setSecretNames(m_secrets ? m_secrets->names() : QStringList());
}

void Preferences::apply()
{
    m_editors->setTools(targets::kContainerEngineSetting.get(m_settings), kTerminalSetting.get(m_settings));
    m_train->setThreads(run::kTrainerThreadsSetting.get(m_settings));
    refreshSecretNames();
}

void Preferences::applyRates(const cost::Rates &before, const RatesPage::Edited &edited)
{
    for (auto it = before.cbegin(); it != before.cend(); ++it) {
        if (!edited.rates.contains(it.key())) // removed: unknown again (local: 0 again)
            cost::removeRate(m_settings, it.key());
    }
    for (auto it = edited.rates.cbegin(); it != edited.rates.cend(); ++it) {
        if (const auto stored = cost::setRate(m_settings, it.key(), *it); !stored)
            Q_EMIT problem(withContext(tr("Rates"), stored.error()));
    }
    for (const Error &e : edited.problems) // left out: said, not stored
        Q_EMIT problem(withContext(tr("Rates: not stored"), e));
}

void Preferences::showDialog(QWidget *parent, const QString &page, const QString &workspaceStateDir)
{
    SettingsDialog dialog(m_settings, parent);
    const QStringList listed = kRemoteHostsSetting.get(m_settings);
    QHash<QString, targets::SshKeySetting> keys;
    for (const QString &host : listed)
        keys.insert(host, targets::sshKeySetting(m_settings, host));
    auto *hosts = new HostsPage(listed, keys, m_secrets ? m_secrets->names() : QStringList());
    connect(hosts, &HostsPage::checkRequested, &dialog, [&dialog](const QString &host) {
        HostDialog hostPage(host, targets::SshOptions::forHost(host, {}, QCoreApplication::applicationFilePath()),
                            &dialog);
        hostPage.exec();
    });
    dialog.addPage(tr("Hosts"), hosts);
    const cost::RatesRead rates = cost::readRates(m_settings);
    for (const Error &e : rates.problems)
        Q_EMIT problem(e);
    auto *ratesPage = new RatesPage(rates.rates, cost::loadPriceCatalog(), listed);
    const auto month = cost::readMonthBudget(m_settings);
    if (month)
        ratesPage->setMonthBudget(*month);
    else
        Q_EMIT problem(month.error());
    if (!workspaceStateDir.isEmpty()) {
        const auto own = cost::workspaceMonthBudget(workspaceStateDir);
        ratesPage->setWorkspaceMonthBudget(true, own ? *own : RatesPage::OwnMonthBudget());
        if (!own)
            Q_EMIT problem(own.error());
    }
    dialog.addPage(tr("Rates"), ratesPage);
    auto *alerts = new AlertsPage(m_settings);
    dialog.addPage(tr("Alerts"), alerts);
    if (m_secrets)
        dialog.addPage(tr("Secrets"), new SecretsPage(*m_secrets));
    if (!page.isEmpty())
        dialog.showPage(page);
    if (dialog.exec() == QDialog::Accepted) {
        const QHash<QString, targets::SshKeySetting> chosen = hosts->keys();
        for (const QString &host : listed + hosts->hosts()) // removed hosts lose their key too
            targets::setSshKeySetting(m_settings, host, chosen.value(host));
        kRemoteHostsSetting.set(m_settings, hosts->hosts());
        applyRates(rates.rates, ratesPage->rates());
        if (const auto budget = ratesPage->monthBudget(); !budget)
            Q_EMIT problem(withContext(tr("Rates: the month's budget was not stored"), budget.error()));
        else if (budget->has_value())
            cost::setMonthBudget(m_settings, **budget);
        else
            cost::unsetMonthBudget(m_settings);
        if (const auto own = ratesPage->workspaceMonthBudget(); !workspaceStateDir.isEmpty() && !own) {
            Q_EMIT problem(withContext(tr("Rates: the workspace's month's budget was not stored"), own.error()));
        } else if (!workspaceStateDir.isEmpty()) {
            const auto stored = own->has_value() ? cost::setWorkspaceMonthBudget(workspaceStateDir, **own)
                                                 : cost::unsetWorkspaceMonthBudget(workspaceStateDir);
            if (!stored)
                Q_EMIT problem(withContext(tr("Rates: the workspace's month's budget was not stored"), stored.error()));
        }
        if (!alerts->apply())
            Q_EMIT problem(Error{tr("Alerts: the rules for every run do not parse and were not saved"),
                                 {},
                                 0,
                                 0,
                                 tr("see docs/metrics.md, Alerts, for how a rule is written")});
        apply();
        Q_EMIT alertsChanged();
        Q_EMIT ratesChanged();
    }
    refreshSecretNames(); // the Secrets page may have changed them, OK or not
}

} // namespace ferry::ui
