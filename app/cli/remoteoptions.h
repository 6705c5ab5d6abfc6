#pragma once

// `ferry run`'s options for SSH hosts and Slurm clusters, kept beside the run command.
#include "cli/command.h"
#include "run/runspec.h"
#include "targets/target.h"

#include <QCommandLineParser>

namespace ferry::cli {

void addRemoteOptions(QCommandLineParser &parser);
// Copies the given options into the target's options; prints the first misuse (e.g. --partition
// for an SSH host) and returns false.
bool applyRemoteOptions(const QCommandLineParser &parser, run::TargetSpec &target, Io &io);
// Prints a remote target's progress (probing, uploading, submitting) on stderr.
void reportProgress(targets::Target &target, Io &io);

} // namespace ferry::cli
