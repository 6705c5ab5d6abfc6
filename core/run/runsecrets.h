// The keychain secrets a run gets as environment variables: named, checked, read.
#pragma once

#include "common/error.h"
#include "env/environment.h"
#include "run/runspec.h"
#include "secrets/redactor.h"

#include <QList>
#include <QString>

#include <optional>
#include <utility>

namespace ferry::run {

// Secrets reach a run as environment variables named in RunSpec::secretVariables (variable ->
// keychain secret): from the environment file (`NAME: {secret: keychain-name}`) and from
// `--secret-env`. Values are read from the keychain only where the script starts (supervisor,
// container target) and for redaction; never stored.

// The environment's secret variables as (variable, keychain secret) pairs, in file order.
QList<std::pair<QString, QString>> secretVariablesOf(const env::Environment &environment);

// Adds the environment's secret variables to the spec; one given at launch for the same
// variable (--secret-env) wins.
void addEnvironmentSecrets(RunSpec &spec, const env::Environment &environment);

// Checks now that every secret of the spec is in the keychain, so a run never starts without
// one: the error names the variable, the secret and `ferry secret set`. Blocks on the keychain
// (readSecretNow): never call it on a GUI thread.
Expected<void> checkRunSecrets(const RunSpec &spec);

// The values of the spec's secrets, read now (blocking, as above), for the run's environment.
// The error names the variable and the secret.
Expected<QList<std::pair<QString, QString>>> readRunSecrets(const RunSpec &spec);

// A redactor for the values (and their encodings).
secrets::Redactor redactorOf(const QList<std::pair<QString, QString>> &values);

} // namespace ferry::run
