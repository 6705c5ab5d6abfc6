// The options `ferry run` and `ferry runs rerun` share for SSH and Slurm targets and for granting
// data, keychain secrets and run-argument consent.
#pragma once

// What `ferry run` and `ferry runs rerun` are told about where and with what a run runs: the
// options for SSH hosts and Slurm clusters, and those that grant (data, keychain secrets, the
// run-arguments consent). A rerun of a run from elsewhere takes these from the user alone.
#include "cli/command.h"
#include "run/runspec.h"
#include "targets/target.h"

#include <QCommandLineParser>

namespace ferry::cli {

void addRemoteOptions(QCommandLineParser &parser);
// Copies the given options into the target's options; prints the first misuse (e.g. --partition
// for an SSH host) and returns false.
bool applyRemoteOptions(const QCommandLineParser &parser, run::TargetSpec &target, Io &io);
// --data NAME=PATH, --secret-env NAME[=SECRET], --allow-run-arguments.
void addGrantOptions(QCommandLineParser &parser);
struct Grants {
    QList<run::DataChannel> channels;                   // paths made absolute
    QList<std::pair<QString, QString>> secretVariables; // (VARIABLE, secret), each in the keychain now
};
// The grant options given: --allow-run-arguments into `target`'s options; each secret checked in
// the keychain now (a missing one is reported before anything starts). `command` names the
// command in messages ("run", "runs rerun"); nullopt after printing the first problem.
std::optional<Grants> grantOptions(const QCommandLineParser &parser, run::TargetSpec &target, const QString &command,
                                   Io &io);
// "NAME=VALUE" pairs from a repeated option; prints the first malformed one.
std::optional<QList<std::pair<QString, QString>>> optionPairs(const QStringList &values, const QString &option,
                                                              const QString &command, Io &io);
// Prints a remote target's progress (probing, uploading, submitting) on stderr.
void reportProgress(targets::Target &target, Io &io);

} // namespace ferry::cli
