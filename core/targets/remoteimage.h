// Builds the run's environment image on an SSH host and runs the script in it with `docker run`.
#pragma once

#include "common/error.h"
#include "run/runspec.h"
#include "targets/hostprobe.h"
#include "targets/remoterun.h"
#include "targets/remoteshell.h"

#include <QString>

namespace ferry::targets {

// An SSH run in the environment's image, built on the host from the generated Dockerfile:
// the build context is made here (`stageDir`), sent with the run, and built there unless the
// host has the tag already. The script runs in `docker run` (attached: its output is the
// runner's), with the contract at /opt/ml mounted from the run folder, `--gpus all` when the
// host has GPUs and the environment does not say gpu: off.
struct RemoteImage {
    QString reference;  // ferry:<name>-<version>-<hash8>
    QString dockerfile; // its name inside the context folder
};

inline constexpr char16_t kImageContextName[] = u"image";

// The runner's parts (the docker run command) and the image to build; sets resources.gpus.
Expected<std::pair<RunnerParts, RemoteImage>> remoteImageParts(const run::RunSpec &spec, const QString &remoteDir,
                                                               const HostInfo &host, run::Resources &resources,
                                                               const QString &stageDir);
// Builds the image on the host unless it is there; build output goes to `log` line by line.
Expected<void> buildRemoteImage(RemoteShell &shell, const QString &remoteDir, const RemoteImage &image,
                                const std::function<void(const QString &)> &log);

} // namespace ferry::targets
