#include "ui/settings/preferences.h"

#include "secrets/secretstore.h"
#include "targets/containerengine.h"
#include "training/training.h"
#include "ui/env/environmenteditors.h"
#include "ui/env/terminallauncher.h"
#include "ui/launch/hostdialog.h"
#include "ui/secrets/secretspage.h"
#include "ui/settings/hostspage.h"
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

void Preferences::showDialog(QWidget *parent, const QString &page)
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
    if (m_secrets)
        dialog.addPage(tr("Secrets"), new SecretsPage(*m_secrets));
    if (!page.isEmpty())
        dialog.showPage(page);
    if (dialog.exec() == QDialog::Accepted) {
        const QHash<QString, targets::SshKeySetting> chosen = hosts->keys();
        for (const QString &host : listed + hosts->hosts()) // removed hosts lose their key too
            targets::setSshKeySetting(m_settings, host, chosen.value(host));
        kRemoteHostsSetting.set(m_settings, hosts->hosts());
        apply();
    }
    refreshSecretNames(); // the Secrets page may have changed them, OK or not
}

} // namespace ferry::ui
