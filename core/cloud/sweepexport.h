// Writes a sweep as an AzureML sweep job or a SageMaker HyperparameterTuner launcher, saying what
// the cloud's tuner cannot express.
#pragma once

// A sweep (sweep/sweepfile.h) handed to a cloud's own tuner, for the same search space: an
// AzureML CLI v2 sweep job (`az ml job create --file sweep.yml`) or a SageMaker SDK launcher
// with a HyperparameterTuner (`python3 tune.py`). What the service cannot express is dropped
// and said (`dropped`, one line each); Ferry submits nothing.
#include "cloud/cloudhandoff.h"
#include "sweep/sweepfile.h"

#include <QString>
#include <QStringList>

namespace ferry::cloud {

struct SweepExport {
    QString text;
    QStringList dropped; // what the service's tuner does not do as Ferry's sweep does
};

// `trial` is the run every trial starts from (sweep::trialTemplate: script, source folder,
// channels, fixed hyperparameters, environment); its id names the job.
Expected<SweepExport> writeAzureMlSweepJob(const sweep::SweepSpec &sweep, const run::RunSpec &trial,
                                           const std::optional<env::Environment> &environment,
                                           const run::HandoffOptions &options);
Expected<SweepExport> writeSageMakerTuner(const sweep::SweepSpec &sweep, const run::RunSpec &trial,
                                          const std::optional<env::Environment> &environment,
                                          const run::HandoffOptions &options);

} // namespace ferry::cloud
