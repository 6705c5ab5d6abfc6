#pragma once

#include "targets/target.h"

#include <QJsonObject>
#include <QString>

namespace ferry::targets {

// Runs the script in a Docker container (Podman where only podman is installed), from the
// image of the run's environment (`imageReference`), built from the generated Dockerfile
// unless that tag exists already (then no build step at all). The container runs detached,
// labelled `ferry.run-id=<id>`, with the run folder's contract folders mounted at /opt/ml,
// the source folder at /opt/ml/code and each channel at /opt/ml/input/data/<name>, all
// read-only but the run's own folders. The script's output goes to the run folder's `log`.
// container.json in the run folder records the engine, image, build and container id; probe
// and cancel work from the run folder and the engine alone, from any Ferry process.
class ContainerTarget final : public Target {
public:
    // `engine`: the docker or podman program; empty: `docker` if on PATH, else `podman`.
    // DOCKER_HOST from the environment is honoured. `buildTimeoutMs`: the longest an image
    // build may take.
    explicit ContainerTarget(QString engine = {}, int buildTimeoutMs = 30 * 60 * 1000);

    Expected<bool> start(const QString &runDir, const run::RunSpec &spec) override;
    Expected<RunProbe> probe(const QString &runDir) override;
    Expected<RunProbe> cancel(const QString &runDir, int graceMs) override;

    // The program used, after the PATH lookup.
    QString engine() const { return m_engine; }
    // The file start() writes: {engine, image, built, buildSteps, buildMs, containerId, ...}.
    static QString recordFile(const QString &runDir);
    static QJsonObject readRecord(const QString &runDir);

private:
    QString m_engine;
    int m_buildTimeoutMs;
};

} // namespace ferry::targets
