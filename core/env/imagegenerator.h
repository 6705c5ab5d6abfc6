// Generates a layered Dockerfile and devcontainer.json from an environment, so Docker's cache is
// used well.
#pragma once

#include "common/diagnostic.h"
#include "env/environment.h"
#include "env/generatedfile.h"

namespace ferry::env {

struct ImageBuildOptions {
    // Folder that relative local paths in the environment (find_links) are relative to:
    // the environment file's folder.
    QString baseDir;
};

// A Dockerfile and the folders it COPYs, layered so that Docker's cache works:
// base → system packages → extra steps → conda (environment.yml written by its install step)
// → pip (local wheelhouses copied alone, requirements.txt written by the install step) →
// labels; then a `dev` stage with the dev tools for the devcontainer. Variables are not baked
// in and code is never copied: runs mount it.
struct ImageBuild {
    QList<GeneratedFile> files;   // files[0] is the Dockerfile; then the wheelhouse folders
    QList<GeneratedFile> inlined; // dependency files the RUN steps write (environment.yml, requirements.txt, ...)
    Diagnostics diagnostics;
};
ImageBuild generateImageBuild(const Environment &environment, const ImageBuildOptions &options);

// `.devcontainer/devcontainer.json` for the Dockerfile beside it (target `dev`), or for a built
// `image` when one is named: containerEnv, runArgs (--shm-size, --gpus all when the GPU is on),
// hostRequirements.gpu, the VS Code Python interpreter setting and extension, remoteUser.
QString generateDevcontainerJson(const Environment &environment, const QString &image = {});

} // namespace ferry::env
