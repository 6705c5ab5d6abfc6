// Finds `docker run` arguments in an environment that break a container run's isolation, refused
// unless the user allows them.
#pragma once

#include "common/error.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::env {

// A `docker run` / `podman run` argument from an environment's docker.run_arguments that undoes
// a container run's isolation (review L15, docs/security.md): the run gets no network, a
// read-only code mount, the user's uid and no other host path. An environment file can come from
// a cloned repository, so such arguments are used only when the user allows them for the run
// (`ferry run --allow-run-arguments`, the launch dialog's check box).
struct IsolationBreak {
    QString argument; // as written, with its value: "--volume /:/host"
    QString reason;   // "mounts a host path into the container"
};

// Every argument that breaks the isolation, in order; both "--flag value" and "--flag=value",
// and short-option clusters ("-itv /:/x").
QList<IsolationBreak> isolationBreakingArguments(const QStringList &runArguments);

// One line for an error or a warning: "'--privileged' (gives the container every capability of
// the host), '-v /:/h' (mounts a host path into the container)".
QString describeIsolationBreaks(const QList<IsolationBreak> &breaks);

// The refusal a container run gives when `runArguments` break the isolation and the user did not
// allow them for the run; nullopt when there is nothing to refuse. `environmentFile` is named.
Expected<void> refuseIsolationBreaks(const QStringList &runArguments, bool allowed, const QString &environmentFile);

} // namespace ferry::env
