#pragma once

#include "common/diagnostic.h"
#include "env/environment.h"

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

// Checks what the file format alone cannot: names, sizes, GPU mode, parsable dependencies.
// Appends to `diagnostics`, anchored at `path` (line 0: the finding is about the whole file).
void validateEnvironment(const Environment &environment, const QString &path, Diagnostics &diagnostics);

} // namespace ferry::env
