// Writes an export's or generator's files under a folder, each atomically.
#pragma once

#include "common/error.h"
#include "env/generatedfile.h"

#include <QStringList>

namespace ferry::env {

// Writes generated files under `dir` (each atomically; copied folders replace their earlier
// copy). Returns the paths written, or the first failure.
Expected<QStringList> writeGeneratedFiles(const QList<GeneratedFile> &files, const QString &dir);

} // namespace ferry::env
