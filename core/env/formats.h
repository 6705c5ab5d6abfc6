// The environment file formats Ferry reads and writes: detection, import (merging several files),
// naming and export.
#pragma once

#include "common/error.h"
#include "env/environmentfile.h"
#include "env/generatedfile.h"

#include <QStringList>

#include <optional>

namespace ferry::env {

enum class Format { Ferry, Conda, Pip, AzureMlV1, AzureMlV2, Dockerfile, Devcontainer };

QString formatName(Format format); // "ferry", "conda", "pip", "azureml-v1", ...
std::optional<Format> formatFromName(const QString &name);
QStringList exportFormatNames();

// Which format a file is in, from its name and content; empty when it cannot tell.
std::optional<Format> detectFormat(const QString &path, const QString &text);

// Reads any importable file (Ferry, conda, requirements.txt, AzureML v1/v2) into the model.
EnvironmentRead readEnvironment(const QString &path);
// Reads several files and merges them in order (environment.yml plus requirements.txt, say):
// lists are combined, a later file's dependency replaces an earlier one of the same name
// (with a warning), and single values are taken from the first file that has them. A name that
// is not a valid environment name (validateName) is sanitised (sanitizedEnvironmentName), with
// a warning; a valid one is kept as written, capitals included.
EnvironmentRead importEnvironments(const QStringList &paths);

// Merges `more` (read from `path`) into `into` the way importEnvironments merges its files;
// replacements are reported as warnings.
void mergeEnvironment(Environment &into, const Environment &more, const QString &path, Diagnostics &diagnostics);

// An environment name from any text: lower case, letters, digits, '.', '_' and '-' only, starting
// with a letter or digit, at most 63 characters ("My Env" → "my-env", "../../x" → "x");
// "environment" when nothing is left. A valid lower-case name comes back unchanged. What a name
// becomes when one is made from other text (a file name, an invalid imported name); the rule
// itself is validateName's.
QString sanitizedEnvironmentName(const QString &text);
// The same, from a file name without its suffix ("My Env.yml" → "my-env").
QString environmentNameFromPath(const QString &path);

// Imports `paths` (merged, as importEnvironments) into `folder` as <name>.yml, under a name not
// taken yet (<name>-2.yml, ...); unnamed environments are named after the first file.
// Returns the file written, or the first error (diagnostics that are warnings go with it).
struct ImportedEnvironment {
    QString path;
    Environment environment;
    Diagnostics diagnostics;
};
Expected<ImportedEnvironment> importEnvironmentsInto(const QStringList &paths, const QString &folder);

struct Export {
    QList<GeneratedFile> files; // files[0] is the main one
    Diagnostics diagnostics;    // what the format could not carry, and errors
};
// `baseDir` anchors relative paths in the environment (its file's folder). The main file
// for AzureML v2 and pip may come with companions (conda file, constraints.txt).
Export exportEnvironment(const Environment &environment, Format format, const QString &baseDir,
                         const QString &mainFileName = {});

} // namespace ferry::env
