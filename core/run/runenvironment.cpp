#include "run/runenvironment.h"

#include "env/spechash.h"
#include "run/runsecrets.h"

#include <QStandardPaths>

namespace ferry::run {

void applyEnvironment(RunSpec &spec, const env::Environment &environment, const QString &file)
{
    spec.environmentFile = file;
    spec.environmentTag = env::imageTag(environment);
    spec.variables = environment.withoutSecretVariables().variables; // secrets: by the keychain, not here
    addEnvironmentSecrets(spec, environment);                        // names only
    // A local run uses the environment's interpreter when this machine has it.
    const QString interpreter = environment.python.interpreterPath;
    if (!interpreter.isEmpty() && !QStandardPaths::findExecutable(interpreter).isEmpty())
        spec.interpreter = interpreter;
}

} // namespace ferry::run
