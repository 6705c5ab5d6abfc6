// Reads and writes AzureML environments: SDK v1's azureml_environment.json and v2's environment
// YAML with its conda file.
#pragma once

#include "env/environmentfile.h"
#include "env/generatedfile.h"

namespace ferry::env {

// AzureML SDK v1 `azureml_environment.json` (Environment.save_to_directory). Keys Ferry does
// not model (spark, databricks, r, platform, ...) are kept and written back. A registry
// password found in the file is dropped with a warning: it belongs in the keychain. An
// inference config (entryScript, sourceDirectory, environment) gives its nested environment.
EnvironmentRead parseAzureMlV1Json(const QString &text, const QString &path);
QString writeAzureMlV1Json(const Environment &environment, Diagnostics *warnings = nullptr);

// AzureML v2 environment YAML (name, version, description, tags, image, conda_file,
// build.path / dockerfile_path). conda_file is read relative to the YAML file. A command job
// file gives the environment it holds (parseAzureMlJobEnvironment, azuremlcommandjob.h).
EnvironmentRead parseAzureMlV2Yaml(const QString &text, const QString &path);
// The YAML and, when there are conda or pip dependencies, its conda file beside it, named
// `<condaFileName>`.
QList<GeneratedFile> writeAzureMlV2(const Environment &environment, const QString &condaFileName,
                                    Diagnostics *warnings = nullptr);

} // namespace ferry::env
