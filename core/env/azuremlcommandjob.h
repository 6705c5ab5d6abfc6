// Reads an AzureML CLI v2 command job file: its environment for import, and its command, code and
// inputs for a run.
#pragma once

// AzureML CLI v2 command jobs (`az ml job create --file job.yml`, commandJob.schema.json) read
// from the other side: the environment one carries is imported like any environment file (its
// conda file found beside the job file), and its command, code, inputs, compute and resources
// are what `ferry run --from-azureml` makes a run of (cloud/azuremlrun.h).

#include "common/error.h"
#include "env/environmentfile.h"

#include <QList>
#include <QMap>
#include <QString>

#include <optional>

namespace YAML {
class Node;
}

namespace ferry::env {

struct AzureMlJobInput {
    QString name;
    QString value; // a literal input as written ("5", "Transformer"); empty for a path input
    QString path;  // a `path:` input: a local path made absolute against the job file's folder, or a URI
    QString type;  // uri_folder, uri_file, mltable, ...; empty for a literal
    bool isPath() const { return !path.isEmpty(); }
    // azureml:, https:, wasbs:, abfss:, ...: data in the cloud, which cannot be read offline.
    bool isRemote() const;
    bool operator==(const AzureMlJobInput &) const = default;
};

struct AzureMlCommandJob {
    QString path;    // the job file, absolute
    QString command; // as written, placeholders and all
    QString codeDir; // `code:` made absolute against the job file's folder; that folder without one
    QList<AzureMlJobInput> inputs;
    // The environment: registered in AzureML ("azureml:NAME@latest", "azureml:NAME:3"), inline
    // (image and conda file), or neither (the job file has none).
    QString environmentReference;
    std::optional<EnvironmentRead> environment;
    QString compute; // as written: "azureml:gpu-cluster", "local"; empty: the workspace's default
    int instanceCount = 1;
    QString instanceType;
    bool distributed = false;     // a `distribution:` (PyTorch, MPI, TensorFlow)
    QString distributionType;     // its `type:` in lower case (pytorch, mpi, tensorflow)
    int processesPerInstance = 1; // its `process_count_per_instance:` (PyTorch, MPI)
    QStringList outputs;          // the names under `outputs:`
    Diagnostics diagnostics;      // reading the job file (an error: do not run it)

    const AzureMlJobInput *input(const QString &name) const;
    bool hasClusterCompute() const { return !compute.isEmpty() && compute != QStringLiteral("local"); }
};

// True when a YAML file's top level is an AzureML job rather than an environment: a `command:`,
// a `type:` or `jobs:`, or a job schema.
bool isAzureMlJob(const YAML::Node &root);

AzureMlCommandJob parseAzureMlCommandJob(const QString &text, const QString &path);
AzureMlCommandJob readAzureMlCommandJob(const QString &path);

// What importing the job file gives: its inline environment, named after the environment's
// `name:` (or the job's display or experiment name), with the job's environment_variables as
// its variables. A registered environment or none at all is an error saying what to import instead.
EnvironmentRead parseAzureMlJobEnvironment(const QString &text, const QString &path);

// An optional part `$[[ ... ]]` of a command is kept (without its brackets) when every input it
// names is in `given`, and dropped otherwise (AzureML's optional inputs).
QString resolveAzureMlOptionalParts(const QString &command, const QStringList &given);
// Fills `${{inputs.NAME}}` with values[NAME], optional parts resolved first. A placeholder naming
// an input without a value, or anything but an input (`${{outputs.model}}`), is an error.
Expected<QString> fillAzureMlPlaceholders(const QString &command, const QMap<QString, QString> &values);

// A job's command as the script a run starts: `python [-u] SCRIPT ARGS...`, split into words as
// bash would (quotes, backslashes), optional parts resolved. `--NAME ${{inputs.X}}` (or
// `--NAME=${{inputs.X}}`) for a literal input X becomes the hyperparameter NAME; every other word
// is an argument with its placeholders filled from `literals` and `paths`. What needs a shell
// (a pipeline, `&&`, a redirection, `$VAR`) or is not a Python script is refused, saying why.
struct AzureMlJobCommand {
    QString interpreter; // "python", "python3", "/usr/bin/python3.11"
    QString script;
    QStringList arguments;
    QList<std::pair<QString, QString>> hyperparameters; // name, value
    QStringList inputsUsed;                             // the inputs the command names
};
Expected<AzureMlJobCommand> splitAzureMlCommand(const QString &command, const QMap<QString, QString> &literals,
                                                const QMap<QString, QString> &paths);

} // namespace ferry::env
