// Builds the `docker run` command line of a run's container as a pure function of what the run
// needs.
#pragma once

// The `docker run` command line of a run's container, as a pure function of what the run needs:
// the container target (this machine) and an SSH host's image run build it here, and the unit
// tests read it without an engine.

#include "common/error.h"
#include "env/environment.h"
#include "run/runspec.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <utility>

namespace ferry::targets {

// A bind mount: `--mount type=bind,source=...,target=...[,readonly]`.
struct ContainerMount {
    QString source;
    QString target;
    bool readOnly = false;
};

QString bindMount(const ContainerMount &mount);

// A container's variables in the order `--env` gives them (the later wins): the environment's
// plain variables, those given at launch, the contract's. `unshellable` are the contract's
// whose names a shell drops (SM_HP_LEARNING-RATE): the command sets them again with `env`.
struct ContainerVariables {
    QList<std::pair<QString, QString>> variables;
    QStringList unshellable; // "NAME=value"
};

ContainerVariables containerVariables(const env::Environment &environment,
                                      const QList<std::pair<QString, QString>> &launched,
                                      const QList<std::pair<QString, QString>> &contract);

// One run's container: no network, an init, the run's id as a label; everything else as given.
struct ContainerRun {
    QString name;       // ferry-RUNID
    QStringList labels; // "ferry.run-id=..." first
    bool detached = false;
    bool removedAtEnd = false;
    QString workdir;
    QString shmSize;   // empty: the engine's default
    bool gpus = false; // --gpus all
    QString user;      // "uid:gid"; empty: the image's
    QList<ContainerMount> mounts;
    QStringList rawMounts; // `--mount` values written elsewhere (the secrets' tmpfs)
    QList<std::pair<QString, QString>> variables;
    QStringList runArguments; // the environment's docker.run_arguments, checked before (checkRunArguments)
    QString image;
    QStringList command; // what runs in it, after the image
};

// `run ... IMAGE COMMAND...`: the engine's arguments, without the engine.
QStringList containerRunArguments(const ContainerRun &run);

// `sh -c 'exec "$@" REDIRECT' sh`: the words before the command, so that the script's arguments
// stay separate words (the shell only redirects, it interpolates nothing). `redirect` empty: none.
QStringList shellPrefix(const QString &redirect = {});

// Whether the run allows its environment's isolation-breaking run arguments (the launch dialog's
// check box, `ferry run --allow-run-arguments`).
bool runArgumentsAllowed(const run::RunSpec &spec);
// Refuses the environment's run arguments that undo the container's isolation unless the run
// allows them (env::refuseIsolationBreaks, docs/security.md L15).
Expected<void> checkRunArguments(const env::Environment &environment, const run::RunSpec &spec);

} // namespace ferry::targets
