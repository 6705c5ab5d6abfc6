// Reads and writes conda's environment.yml, its nested pip list and variables included.
#pragma once

#include "env/environmentfile.h"

namespace ferry::env {

// conda's environment.yml: name, channels, dependencies (MatchSpecs and a nested `pip:`
// list, which may carry pip option lines), variables. `prefix:` is machine-specific and is
// dropped with a warning. A `python` dependency with a plain version becomes python.version.
EnvironmentRead parseCondaYaml(const QString &text, const QString &path);
// Writes environment.yml; `warnings` receives what the format cannot carry.
QString writeCondaYaml(const Environment &environment, Diagnostics *warnings = nullptr);

// The python dependency implied by python.version ("python=3.11"), when there is one.
QString pythonMatchSpec(const PythonSection &python);

} // namespace ferry::env
