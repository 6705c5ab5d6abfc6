// SecretsPage: the settings page that lists, stores and deletes Ferry's keychain secrets.
#pragma once

#include "secrets/secretstore.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QListWidget;
class QPushButton;

namespace ferry::ui {

// The secrets page of the settings: the names Ferry keeps in the OS keychain, a form to store
// one (the value field never echoes and is emptied once stored) and a button to delete the
// selected one. Keychain requests run asynchronously; while one is pending the page is busy,
// and a failure (no Secret Service, a locked keyring) shows inline with what to do.
class SecretsPage : public QWidget {
    Q_OBJECT
public:
    explicit SecretsPage(secrets::SecretStore &store, QWidget *parent = nullptr);

    QListWidget *nameList() const { return m_names; }
    QLineEdit *nameEdit() const { return m_name; }
    QLineEdit *valueEdit() const { return m_value; }
    QPushButton *storeButton() const { return m_store; }
    QPushButton *deleteButton() const { return m_delete; }
    QLabel *statusLabel() const { return m_status; }
    bool isBusy() const { return m_pending != 0; }

Q_SIGNALS:
    void idle(); // the pending request ended (the list and the status are up to date)

private:
    void storeSecret();
    void deleteSecret();
    void replied(const secrets::SecretReply &reply);
    void reload();
    void updateButtons();

    secrets::SecretStore &m_secrets;
    QListWidget *m_names;
    QLineEdit *m_name;
    QLineEdit *m_value;
    QPushButton *m_store;
    QPushButton *m_delete;
    QLabel *m_status;
    quint64 m_pending = 0;
};

} // namespace ferry::ui
