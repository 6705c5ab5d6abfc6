// Preferences: applies what the settings change to the window's parts (container engine, terminal,
// trainer, secrets).
#pragma once

#include "common/error.h"
#include "cost/rates.h"
#include "ui/settings/ratespage.h"

#include <QObject>
#include <QStringList>

class QSettings;
class QWidget;

namespace ferry::secrets {
class SecretStore;
}

namespace ferry::ui {

class EnvironmentEditors;
class SettingsDialog;
class TrainPanel;

// What the settings change in the window, in one place: the container engine and terminal of
// the environment editors, the trainer's threads, and the keychain's secret names offered by
// the editors (refreshed as secrets are stored or deleted). Secret values the editors offer are
// stored in the keychain here; failures go to problem().
class Preferences : public QObject {
    Q_OBJECT
public:
    Preferences(QSettings &settings, secrets::SecretStore *secrets, EnvironmentEditors *editors, TrainPanel *train,
                QObject *parent = nullptr);

    // Edit > Settings: the dialog (General, Hosts, Rates, Alerts, Secrets); applies what was changed.
    // `workspaceStateDir`: the open workspace's .ferry folder (its own month's budget); empty: none.
    void showDialog(QWidget *parent, const QString &page = {}, const QString &workspaceStateDir = {});
    // Hands the current settings to the parts (at start and after the dialog).
    void apply();

Q_SIGNALS:
    void problem(const ferry::Error &error); // as the keychain said it, with what was being done
    // The dialog's OK: the alert settings (ui/alerts/runalerts.h) may have changed.
    void alertsChanged();
    // The dialog's OK: the rates (core/cost/rates.h) may have changed.
    void ratesChanged();

private:
    void refreshSecretNames();
    // The Rates page's rates into the settings: the rows removed unset, the others stored.
    void applyRates(const cost::Rates &before, const RatesPage::Edited &edited);

    QSettings &m_settings;
    secrets::SecretStore *m_secrets;
    EnvironmentEditors *m_editors;
    TrainPanel *m_train;
};

} // namespace ferry::ui
