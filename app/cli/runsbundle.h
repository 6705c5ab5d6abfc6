// `ferry runs export --bundle` and `ferry runs import`: a run packed as one file for a colleague,
// and such a file unpacked into a workspace.
#pragma once

#include "cli/command.h"
#include "cli/runsupport.h"

namespace ferry::cli {

// `ferry runs export ID --bundle FILE [--include-secrets]`: the run as one file to hand to a
// colleague; `ferry runs import FILE [--workspace DIR]`: such a file into this workspace
// (tracking/runbundle.h). What the bundle leaves out is said on stderr.
void addBundleOptions(QCommandLineParser &parser);
int exportBundle(const QCommandLineParser &parser, RunContext &context, const run::RunRecord &record, Io &io);
// Opens the workspace itself: `bundlePath` is the command's first argument.
int importBundle(const QCommandLineParser &parser, const QString &bundlePath, Io &io);

} // namespace ferry::cli
