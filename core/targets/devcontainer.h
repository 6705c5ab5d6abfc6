// Starts an environment's interactive development container (its training image plus dev tools),
// labelled so the Dev Containers CLI finds it too.
#pragma once

#include "common/error.h"
#include "targets/containerengine.h"

#include <QString>
#include <QStringList>

namespace ferry::targets {

// The interactive development container of an environment, from the same image the container
// target trains in: `ferry:<tag>-dev` is the runtime image `ferry:<tag>` plus the dev tools,
// on the very same layers. It is described for VS Code and the Dev Containers CLI by
// `<workspace>/.devcontainer/ferry-<name>/devcontainer.json` (image-based, written by up), and
// labelled as the CLI labels its containers (devcontainer.local_folder, devcontainer.config_file),
// so either tool finds the container the other started.
struct DevcontainerRequest {
    QString environmentFile;
    QString workspaceFolder;
    QString cli;        // the Dev Containers CLI; empty: `devcontainer` from PATH
    bool useCli = true; // false: the engine alone, even where the CLI is installed
    int buildTimeoutMs = 30 * 60 * 1000;
};

struct Devcontainer {
    QString method;      // "devcontainer-cli", or the engine's name ("docker", "podman")
    QString containerId; // full id
    QString image;       // ferry:<tag>-dev
    QString configFile;  // the devcontainer.json written for it
    QString remoteWorkspaceFolder;
    QString remoteUser;
    bool reused = false; // an existing container was kept (and started if it had stopped)
    ContainerEngine::Image build;
};

// Builds the images when missing, writes the devcontainer.json and starts (or reuses) the
// container: with the Dev Containers CLI when it is installed and wanted, with the engine
// otherwise. A container of an older image of the environment is replaced.
Expected<Devcontainer> devcontainerUp(const ContainerEngine &engine, const DevcontainerRequest &request,
                                      const ContainerEngine::OutputSink &sink);

// Removes the workspace's devcontainer(s) of the environment; the ids removed (none: empty).
Expected<QStringList> devcontainerDown(const ContainerEngine &engine, const QString &environmentFile,
                                       const QString &workspaceFolder);

} // namespace ferry::targets
