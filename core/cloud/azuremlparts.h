// The pieces of an AzureML CLI v2 job file (inputs, command line, environment variables) that
// command and sweep jobs share; internal to core/cloud.
#pragma once

// The parts of an AzureML CLI v2 job file that a command job (azuremljob.cpp) and a sweep job
// (azuremlsweep.cpp) share. Internal to core/cloud.
#include "cloud/cloudhandoff.h"
#include "cloud/handoffscale.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <yaml-cpp/yaml.h>

#include <optional>
#include <utility>

namespace ferry::run::azureml {

// The job's inputs: one per hyperparameter (in the spec's order), then one per data channel,
// each with a name unique among them.
struct JobInputs {
    QList<std::pair<QString, QString>> hyper; // hyperparameter name, input name
    QList<std::pair<const DataChannel *, QString>> channels;
};

// The job's command line and its environment_variables.
struct JobCommand {
    QStringList words;
    QList<std::pair<QString, QString>> variables;
};

// An AzureML input, output or search-space name: letters, digits and '_', not starting with a
// digit, unique among `taken`.
QString inputName(const QString &name, const QStringList &taken);
JobInputs jobInputs(const RunSpec &spec);
// The contract as everywhere else (run/contract.h), with AzureML's paths: the ones only
// known at run time go into the command (through `env`, which takes any variable name),
// the rest into environment_variables. SM_NUM_GPUS is counted on the node.
JobCommand jobCommand(const RunSpec &spec, const std::optional<env::Environment> &environment, const JobInputs &inputs);
// One word of the bash command line AzureML runs; ${{...}} is replaced by AzureML before bash
// reads the line, so a substituted value with spaces must be inside the quotes too.
QString shellWord(const QString &word);
// A hyperparameter as a literal: numbers stay numbers, the rest are strings.
void emitHyperparameter(YAML::Emitter &out, const QString &value);
QString relativeTo(const QString &dir, const QString &path);

// A compute target and an environment are required (errors say how to give them).
Expected<void> checkJob(const RunSpec &spec, const std::optional<env::Environment> &environment,
                        const HandoffOptions &options);
// The folder relative paths in the job file start from.
QString jobBase(const HandoffOptions &options);
void emitNames(YAML::Emitter &out, const RunSpec &spec, const HandoffOptions &options);
// inputs: the hyperparameters as literals, the channels as a file or folder (its uploaded URI
// when given, else its path relative to the job file).
void emitInputs(YAML::Emitter &out, const RunSpec &spec, const JobInputs &inputs, const HandoffOptions &options,
                const QString &base);
void emitOutputs(YAML::Emitter &out);
// environment: a registered one by reference, else the image and the conda file inline.
void emitEnvironment(YAML::Emitter &out, const std::optional<env::Environment> &environment,
                     const HandoffOptions &options);
void emitVariables(YAML::Emitter &out, const JobCommand &command);
void emitCompute(YAML::Emitter &out, const HandoffOptions &options);
// resources: the instance count; distribution: PyTorch's, with the processes per instance, for a
// run across nodes (nothing for one process).
void emitResources(YAML::Emitter &out, const HandoffScale &scale);
void emitDistribution(YAML::Emitter &out, const HandoffScale &scale);

} // namespace ferry::run::azureml
