#include "run/runsecrets.h"

#include "secrets/secretstore.h"

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

QList<std::pair<QString, QString>> secretVariablesOf(const env::Environment &environment)
{
    QList<std::pair<QString, QString>> result;
    for (const auto &[variable, secret] : environment.variables) {
        if (environment.isSecretVariable(variable))
            result.append({variable, secret.trimmed()});
    }
    return result;
}

void addEnvironmentSecrets(RunSpec &spec, const env::Environment &environment)
{
    QList<std::pair<QString, QString>> merged = secretVariablesOf(environment);
    merged.removeIf([&spec](const auto &fromFile) {
        return std::any_of(spec.secretVariables.cbegin(), spec.secretVariables.cend(),
                           [&fromFile](const auto &given) { return given.first == fromFile.first; });
    });
    spec.secretVariables = merged + spec.secretVariables;
}

Expected<QList<std::pair<QString, QString>>> readRunSecrets(const RunSpec &spec)
{
    QList<std::pair<QString, QString>> values;
    for (const auto &[variable, secret] : spec.secretVariables) {
        const auto value = secrets::readSecretNow(secret);
        if (!value) {
            Error error = value.error();
            error.message = u"environment variable %1: "_s.arg(variable) + error.message;
            return error;
        }
        values.append({variable, *value});
    }
    return values;
}

Expected<void> checkRunSecrets(const RunSpec &spec)
{
    const auto values = readRunSecrets(spec);
    if (!values)
        return values.error();
    return {};
}

secrets::Redactor redactorOf(const QList<std::pair<QString, QString>> &values)
{
    secrets::Redactor redactor;
    for (const auto &entry : values)
        redactor.addSecret(entry.second);
    return redactor;
}

} // namespace ferry::run
