// Writes a run as the job file AzureML's CLI or SageMaker's SDK submits, with the same script,
// parameters, data and environment.
#pragma once

#include "common/error.h"
#include "env/environment.h"
#include "run/runspec.h"

#include <QMap>
#include <QString>

#include <optional>

namespace ferry::run {

// Hands a run to a cloud service's own tools: the same script, hyperparameters, channels and
// environment, written as the file that service's CLI or SDK submits. Ferry submits nothing.
struct HandoffOptions {
    QString outputPath;           // where the file will be written: relative paths in it start there
    QString jobName;              // AzureML display name / SageMaker base job name; default: the run id
    QString experiment;           // AzureML experiment name; default: the source folder's name
    QString compute;              // AzureML compute target name ("gpu-cluster"); required for AzureML
    QString environmentReference; // AzureML "azureml:NAME@latest" instead of the inline environment
    QString instanceType;         // SageMaker; default ml.g5.xlarge when the environment wants a GPU, else ml.m5.xlarge
    int instanceCount = 0;        // 0: the run's own (a run across nodes: its nodes; else 1), handoffscale.h
    QString frameworkVersion = QStringLiteral("2.1"); // SageMaker PyTorch container
    QString pyVersion = QStringLiteral("py310");
    QString role;                    // SageMaker execution role ARN; default: $SAGEMAKER_ROLE at launch
    QMap<QString, QString> channels; // channel name -> a cloud URI used instead of its local path
    // The caps the SageMaker job gets instead of the run's own (export --max-time, --max-cost);
    // nullopt: the run's. A money cap is priced at the instance's price in the catalog (docs/cost.md).
    std::optional<RunBudget> budget;
    QString catalogDir; // where the user's price catalogs are read from; empty: cost::userCatalogDir()
};

// An AzureML CLI v2 command job (`az ml job create --file JOB.yml`): code, command with the
// hyperparameters as inputs and the contract's SM_* variables, data channels as inputs, model
// and output folders as outputs, an inline environment (the base image plus the conda file),
// compute, experiment name and instance count.
Expected<QString> writeAzureMlCommandJob(const RunSpec &spec, const std::optional<env::Environment> &environment,
                                         const HandoffOptions &options);

// A Python launcher for the SageMaker SDK (`python3 launch.py`): a PyTorch estimator with the
// entry point, source folder, hyperparameters, metric definitions, instance type and count and
// framework version; local channels are uploaded to the session's bucket, s3:// ones used as is.
Expected<QString> writeSageMakerLauncher(const RunSpec &spec, const std::optional<env::Environment> &environment,
                                         const HandoffOptions &options);

} // namespace ferry::run
