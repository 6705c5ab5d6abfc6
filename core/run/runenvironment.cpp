#include "run/runenvironment.h"

#include "env/environmentfile.h"
#include "env/spechash.h"
#include "run/runsecrets.h"

#include "env/formats.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>

namespace ferry::run {

void applyEnvironment(RunSpec &spec, const env::Environment &environment, const QString &file)
{
    spec.environmentFile = file;
    spec.environmentTag = env::imageTag(environment);
    spec.environmentSpec = env::writeEnvironmentYaml(environment);
    spec.variables = environment.withoutSecretVariables().variables; // secrets: by the keychain, not here
    addEnvironmentSecrets(spec, environment);                        // names only
    // A local run uses the environment's interpreter when this machine has it.
    const QString interpreter = environment.python.interpreterPath;
    if (!interpreter.isEmpty() && !QStandardPaths::findExecutable(interpreter).isEmpty())
        spec.interpreter = interpreter;
}

Diagnostics applyEnvironmentFile(RunSpec &spec, const QString &file)
{
    const env::EnvironmentRead read = env::readEnvironment(file);
    if (!hasErrors(read.diagnostics))
        applyEnvironment(spec, read.environment, file);
    return read.diagnostics;
}

void placeScript(RunSpec &spec, const QString &workspaceRoot, const QString &absoluteScript)
{
    if (absoluteScript.startsWith(workspaceRoot + u'/')) {
        spec.sourceDir = workspaceRoot;
        spec.script = QDir(workspaceRoot).relativeFilePath(absoluteScript);
    } else {
        const QFileInfo script(absoluteScript);
        spec.sourceDir = script.absolutePath();
        spec.script = script.fileName();
    }
}

} // namespace ferry::run
