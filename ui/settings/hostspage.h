// HostsPage: the settings page of SSH hosts and Slurm clusters, with each host's login key and
// passphrase secret.
#pragma once

#include "common/setting.h"
#include "targets/sshshell.h"

#include <QHash>
#include <QStringList>
#include <QWidget>

class QComboBox;
class QGroupBox;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace ferry::ui {

// The SSH hosts and Slurm clusters the user runs on (names as ~/.ssh/config or ssh know them:
// "gpu-box", "me@10.0.0.5"), offered by the launch dialog.
inline const Setting<QStringList> kRemoteHostsSetting{"remote/hosts"};

// The hosts page of the settings: the list, a field to add one, Remove, and Check… (the
// window opens the host's page: what it offers, its host key); for the selected host, the key
// to log in with and the keychain secret holding its passphrase (targets::SshKeySetting).
class HostsPage : public QWidget {
    Q_OBJECT
public:
    explicit HostsPage(const QStringList &hosts, QHash<QString, targets::SshKeySetting> keys = {},
                       QStringList secretNames = {}, QWidget *parent = nullptr);

    QStringList hosts() const;
    // Each listed host's key (hosts without one are left out).
    QHash<QString, targets::SshKeySetting> keys() const;
    QLineEdit *identityEdit() const { return m_identity; }
    QComboBox *passphraseBox() const { return m_passphrase; }
    QGroupBox *keyBox() const { return m_keyBox; }
    QListWidget *hostList() const { return m_list; }
    QLineEdit *hostEdit() const { return m_edit; }
    QPushButton *addButton() const { return m_add; }
    QPushButton *removeButton() const { return m_remove; }
    QPushButton *checkButton() const { return m_check; }

Q_SIGNALS:
    void checkRequested(const QString &host);

private:
    void add();
    void updateButtons();
    void showKey();
    void storeKey();

    QListWidget *m_list;
    QLineEdit *m_edit;
    QPushButton *m_add, *m_remove, *m_check;
    QGroupBox *m_keyBox;
    QLineEdit *m_identity;
    QComboBox *m_passphrase;
    QHash<QString, targets::SshKeySetting> m_keys;
};

} // namespace ferry::ui
