#include "ui/env/variablesmodel.h"

#include "ui/env/environmentdocument.h"
#include "ui/env/secretnamedelegate.h"

#include <QTimer>

using namespace Qt::StringLiterals;

namespace ferry::ui {

VariablesModel::VariablesModel(EnvironmentDocument *document, QObject *parent)
    : EnvironmentTableModel(document, env::Field::Variables, parent)
{
    initRows();
}

QString VariablesModel::suggestedSecretName(const QString &variable)
{
    return variable.toLower().replace(u'_', u'-');
}

int VariablesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int VariablesModel::count(const env::Environment &environment) const
{
    return static_cast<int>(environment.variables.size());
}

QString VariablesModel::rowName() const
{
    return tr("variable");
}

QStringList VariablesModel::headers() const
{
    return {tr("Name"), tr("Value"), tr("Secret")};
}

QVariant VariablesModel::cell(const env::Environment &environment, int row, int column, int role) const
{
    const auto &[name, value] = environment.variables.at(row);
    const bool secret = environment.isSecretVariable(name);
    switch (column) {
    case Name:
        return role == Qt::DisplayRole || role == Qt::EditRole ? QVariant(name) : QVariant();
    case Value:
        if (role == Qt::EditRole)
            return value;
        if (role == SecretNameDelegate::IsSecretRole)
            return secret;
        if (role == SecretNameDelegate::SecretNamesRole)
            return m_secretNames;
        if (role == Qt::DisplayRole)
            return secret ? tr("•••••••• (keychain: %1)").arg(value.isEmpty() ? tr("choose a secret") : value) : value;
        return {};
    case Secret:
        return role == Qt::CheckStateRole ? QVariant(secret ? Qt::Checked : Qt::Unchecked) : QVariant();
    default:
        return {};
    }
}

bool VariablesModel::setCell(env::Environment &environment, int row, int column, const QVariant &value)
{
    auto &[name, current] = environment.variables[row];
    switch (column) {
    case Name: {
        const QString newName = value.toString().trimmed();
        const bool secret = environment.isSecretVariable(name);
        if (secret)
            environment.secretVariables.removeAll(name);
        name = newName;
        if (secret)
            environment.secretVariables << newName;
        return true;
    }
    case Value:
        current = value.toString();
        return true;
    case Secret: {
        const bool secret = value.toBool();
        if (secret == environment.isSecretVariable(name))
            return true;
        if (secret) {
            // The plain value leaves the file: offered to the keychain, never written.
            const QString former = current;
            current = suggestedSecretName(name);
            environment.secretVariables << name;
            if (!former.isEmpty())
                QTimer::singleShot(
                    0, this, [this, secretName = current, former] { Q_EMIT secretValueOffered(secretName, former); });
        } else {
            environment.secretVariables.removeAll(name);
            current.clear(); // a secret's name is no value
        }
        return true;
    }
    default:
        return false;
    }
}

void VariablesModel::insertIn(env::Environment &environment, int row)
{
    environment.variables.insert(row, {QString(), QString()});
}

void VariablesModel::removeIn(env::Environment &environment, int row)
{
    environment.secretVariables.removeAll(environment.variables.at(row).first);
    environment.variables.removeAt(row);
}

void VariablesModel::moveIn(env::Environment &environment, int from, int to)
{
    environment.variables.move(from, to);
}

} // namespace ferry::ui
