// The launch dialog's secret variables: environment variables mapped to keychain secret names,
// never values.
#pragma once

#include <QList>
#include <QStringList>
#include <QWidget>

#include <utility>

class QLabel;
class QTableWidget;

namespace ferry::ui {

// The launch dialog's secret variables, names only (values stay in the keychain until the run
// starts): those of the chosen environment file, shown, and more given for this run
// (`ferry run --secret-env NAME=SECRET`), each an environment variable and a keychain secret
// picked from the names the keychain holds.
class SecretVariablesBox : public QWidget {
    Q_OBJECT
public:
    explicit SecretVariablesBox(QWidget *parent = nullptr);

    // The keychain secrets the user can pick (SecretStore::names()).
    void setSecretNames(const QStringList &names);
    // The environment file's secret variables (variable, secret), shown read-only.
    void setEnvironmentSecrets(const QList<std::pair<QString, QString>> &secrets);
    // Adds a row for this run; empty: the first known secret, named after it.
    void addVariable(const QString &variable = {}, const QString &secret = {});
    // The variables added for this run (rows with a variable and a secret).
    QList<std::pair<QString, QString>> launchSecrets() const;

    QTableWidget *table() const { return m_table; }
    QLabel *environmentLabel() const { return m_fromEnvironment; }

private:
    QStringList m_names;
    QLabel *m_fromEnvironment;
    QTableWidget *m_table;
};

} // namespace ferry::ui
