// The environment editor's table of variables, a secret one holding a keychain secret's name.
#pragma once

#include "ui/env/environmenttablemodel.h"

namespace ferry::ui {

// Environment variables: name, value, and whether the value is a keychain secret. A secret
// variable's value in the file is the NAME of the keychain secret; the table shows it masked
// with that name, and edits the name.
class VariablesModel : public EnvironmentTableModel {
    Q_OBJECT
public:
    enum Column { Name, Value, Secret, ColumnCount };
    explicit VariablesModel(EnvironmentDocument *document, QObject *parent = nullptr);
    int columnCount(const QModelIndex &parent = {}) const override;

    // The names of the keychain's secrets, offered when a secret variable's value is edited.
    void setSecretNames(const QStringList &names) { m_secretNames = names; }

    // The keychain secret name offered when a variable is marked secret ("HF_TOKEN" → "hf-token").
    static QString suggestedSecretName(const QString &variable);

Q_SIGNALS:
    // A variable with a plain value was marked secret: the value belongs in the keychain under
    // `secretName` (it is no longer in the environment). Whoever holds the keychain may store it.
    void secretValueOffered(const QString &secretName, const QString &value);

protected:
    int count(const env::Environment &environment) const override;
    QVariant cell(const env::Environment &environment, int row, int column, int role) const override;
    bool setCell(env::Environment &environment, int row, int column, const QVariant &value) override;
    bool isCheckable(int column) const override { return column == Secret; }
    void insertIn(env::Environment &environment, int row) override;
    void removeIn(env::Environment &environment, int row) override;
    void moveIn(env::Environment &environment, int from, int to) override;
    QString rowName() const override;
    QStringList headers() const override;

private:
    QStringList m_secretNames;
};

} // namespace ferry::ui
