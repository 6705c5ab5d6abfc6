// `ferry run --from-azureml`: an AzureML command job file turned into a Ferry run, with what only
// AzureML resolves given locally.
#pragma once

// `ferry run --from-azureml job.yml`: an AzureML command job offered as a Ferry run. The job's
// code folder is the run's source folder, its command the script with its arguments, its
// literal inputs hyperparameters and its path inputs data channels, its `${{inputs.x}}` filled
// for the target. What only AzureML resolves (a registered environment, a compute cluster, data
// in the cloud) has to be given locally instead: an environment file, a target, --data.

#include "common/diagnostic.h"
#include "common/error.h"
#include "run/runspec.h"

#include <QList>
#include <QString>

namespace ferry::cloud {

struct AzureMlRunRequest {
    QString jobFile;
    run::TargetSpec target;
    bool targetChosen = false;                  // the user chose the target (a job on an AzureML cluster needs that)
    bool localEnvironment = false;              // an environment file is given instead of the job's own
    QList<run::Hyperparameter> hyperparameters; // set the job's literal inputs of these names, or add to them
    QList<run::DataChannel> channels;           // set the job's path inputs of these names, or add to them
};

struct AzureMlRunDraft {
    // No id yet. environmentFile is the job file when the job's inline environment is used
    // (readEnvironment reads it from there); empty when the job has none or one is given.
    run::RunSpec spec;
    env::Diagnostics warnings; // what the run leaves to AzureML (instances, distribution, unused inputs)
};

Expected<AzureMlRunDraft> runFromAzureMlJob(const AzureMlRunRequest &request);

} // namespace ferry::cloud
