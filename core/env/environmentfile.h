// Reads and writes Ferry's own environment file format, and turns validator findings into file
// diagnostics.
#pragma once

#include "common/diagnostic.h"
#include "env/environment.h"
#include "env/environmentvalidator.h"

#include <QString>

namespace ferry::env {

// What reading any environment file gives: the model, and every problem found. With an
// error among the diagnostics the model is incomplete and must not be used to build.
struct EnvironmentRead {
    Environment environment;
    Diagnostics diagnostics;
};

inline constexpr int kEnvironmentFormatVersion = 1;

// Ferry's own format, `environments/<name>.yml` (docs/environment-format.md).
EnvironmentRead parseEnvironmentYaml(const QString &text, const QString &path);
QString writeEnvironmentYaml(const Environment &environment);

// The validator's findings (env::validate: names, versions, sizes, variables, dependency rows)
// as diagnostics anchored at `path`, line 0 (about the whole file). parseEnvironmentYaml adds
// them itself, each at the line that holds the value.
void validateEnvironment(const Environment &environment, const QString &path, Diagnostics &diagnostics);
// One finding as the diagnostic a file reader reports; line and column 0: the whole file.
Diagnostic toDiagnostic(const Finding &finding, const QString &path, int line = 0, int column = 0);
// The findings about the Ferry file `text` (at `path`) as diagnostics, in their order, each at
// the line and column that hold its value as parseEnvironmentYaml places them; 0 where the file
// does not write it (a dependency row: its parser placed it while reading), or does not parse.
Diagnostics locateFindings(const Findings &findings, const QString &text, const QString &path);

} // namespace ferry::env
