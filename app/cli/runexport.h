// `ferry runs export --to` and `ferry sweep export --to`: a run or sweep written as the file
// AzureML's or SageMaker's own tools submit.
#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"

#include "sweep/sweepfile.h"

namespace ferry::cli {

// `ferry runs export ID --to azureml|sagemaker`: the run as the file a cloud service's own
// tools submit (see cloud/cloudhandoff.h); `ferry sweep export ID --to ...`: a sweep as that
// service's own tuner runs it (cloud/sweepexport.h), what it drops said on stderr.
// `command` is the command's name in messages ("runs", "sweep").
void addExportOptions(QCommandLineParser &parser, const QString &command);
int exportRun(const QCommandLineParser &parser, const run::RunRecord &record, Io &io);
// `trial` is the sweep's trial template (sweep::trialTemplate), its id the sweep's.
int exportSweep(const QCommandLineParser &parser, const sweep::SweepSpec &sweep, const run::RunSpec &trial, Io &io);

} // namespace ferry::cli
