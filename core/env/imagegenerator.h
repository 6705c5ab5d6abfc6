#pragma once

#include "env/diagnostic.h"
#include "env/environment.h"
#include "env/generatedfile.h"

namespace ferry::env {

struct ImageBuildOptions {
    // Folder that relative local paths in the environment (find_links) are relative to:
    // the environment file's folder.
    QString baseDir;
};

// A Dockerfile and the files it COPYs, layered so that Docker's cache works:
// base → system packages → extra steps → conda (environment.yml copied alone) → pip
// (requirements.txt copied alone, local wheelhouses beside it) → labels; then a `dev` stage
// with the dev tools for the devcontainer. Variables are not baked in and code is never
// copied: runs mount it. files[0] is the Dockerfile.
struct ImageBuild {
    QList<GeneratedFile> files;
    Diagnostics diagnostics;
};
ImageBuild generateImageBuild(const Environment &environment, const ImageBuildOptions &options);

// `.devcontainer/devcontainer.json` for the Dockerfile beside it (target `dev`): containerEnv,
// runArgs (--shm-size, --gpus all when the GPU is on), hostRequirements.gpu, the VS Code
// Python interpreter setting and extension, remoteUser.
QString generateDevcontainerJson(const Environment &environment);

} // namespace ferry::env
