// What an environment file gives a run, applied one way for every launch.
#pragma once

#include "env/environment.h"
#include "run/runspec.h"

#include <QString>

// What an environment file gives a run, applied the one way the command line (`ferry run
// --env`) and the window's launch both do: so a run started from either is the same run.
namespace ferry::run {

// Records `file` as the run's environment and applies `environment` (read from it) to the
// spec: its image tag, its plain variables, its secret variables as keychain names only (the
// values are read where the script starts; run/runsecrets.h), and its interpreter when this
// machine has it. The caller reads the file and refuses one with errors first; the secrets
// are checked with checkRunSecrets (run/runsecrets.h), off any GUI thread.
void applyEnvironment(RunSpec &spec, const env::Environment &environment, const QString &file);
// Reads the environment file and applies it as above: its diagnostics; the spec stays as it was
// when any of them is an error.
Diagnostics applyEnvironmentFile(RunSpec &spec, const QString &file);

// Where a script runs from, the one rule for every way to start one: a script inside the
// workspace runs from the workspace's root (so it imports its neighbours), any other from its
// own folder. `absoluteScript` is the script's absolute path.
void placeScript(RunSpec &spec, const QString &workspaceRoot, const QString &absoluteScript);

} // namespace ferry::run
