#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// `ferry runs export ID --to azureml|sagemaker`: the run as the file a cloud service's own
// tools submit (see run/cloudhandoff.h).
void addExportOptions(QCommandLineParser &parser);
int exportRun(const QCommandLineParser &parser, const run::RunRecord &record, Io &io);

} // namespace ferry::cli
