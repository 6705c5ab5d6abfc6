// ContainerTarget: runs a script in a detached Docker or Podman container built from the run's
// environment.
#pragma once

#include "targets/containerengine.h"
#include "targets/target.h"

#include <QJsonObject>
#include <QSettings>
#include <QString>

#include <optional>

namespace ferry::targets {

// Runs the script in a Docker container (Podman where only podman is installed), from the
// image of the run's environment (`imageReference`), built from the generated Dockerfile
// unless that tag exists already (then no build step at all). The container runs detached,
// labelled `ferry.run-id=<id>`, with the run folder's contract folders mounted at /opt/ml,
// the source folder at /opt/ml/code and each channel at /opt/ml/input/data/<name>, all
// read-only but the run's own folders. The script's output goes to the run folder's `log`.
// container.json in the run folder records the image, build and container id; probe and cancel
// work from the run folder and the engine alone, from any Ferry process. The engine is never
// read from the run folder: it comes from the settings when a run starts and is recorded in the
// run's target options (the run store keeps them), validated whenever it is read.
class ContainerTarget final : public Target {
public:
    // `engine`: the docker or podman program (validatedEngineProgram: a bad one makes every
    // call fail with the reason); empty: `docker` if on PATH, else `podman`. DOCKER_HOST from
    // the environment is honoured. `buildTimeoutMs`: the longest an image build may take.
    // `ferryProgram`: the ferry executable whose `__container-budget` holds a run's budget
    // (targets/containerbudget.h); without one, a run with a budget is refused.
    static constexpr int kDefaultBuildTimeoutMs = 30 * 60 * 1000;
    explicit ContainerTarget(const QString &engine = {}, int buildTimeoutMs = kDefaultBuildTimeoutMs,
                             QString ferryProgram = {});

    // The engine value for a run of `target`: the one recorded in its options when it started,
    // else (a new run, or one from before the engine was recorded) the settings' choice.
    static QString engineSettingFor(const run::TargetSpec &target, const QSettings &settings);
    // The same with the settings' choice read beforehand (`configured`): off the GUI thread.
    static QString engineSettingFor(const run::TargetSpec &target, const QString &configured);
    static constexpr QLatin1StringView kEngineOption{"engine"};
    // Records the engine in the run's target options (and so in the run store).
    void recordIn(run::TargetSpec &target) const override;

    Expected<void> start(const QString &runDir, const run::RunSpec &spec) override;
    Expected<RunProbe> probe(const QString &runDir) override;
    Expected<RunProbe> cancel(const QString &runDir, int graceMs) override;
    // A stop as cancel() makes it (`stop` with `graceMs`: SIGTERM, SIGKILL once it has passed, the
    // container removed, the archives packed), its end recorded as `ended` before anything is
    // stopped; `killedLine` goes to the log when the grace passed and the engine killed it. The
    // budget's stop (containerbudget.h) says why with them.
    Expected<RunProbe> stop(const QString &runDir, int graceMs, const run::ExitRecord &ended,
                            const QString &killedLine);

    // When the run's container started (the engine's StartedAt), in ms since the epoch: the clock of
    // its budget (containerbudget.h).
    Expected<qint64> scriptStartedMs(const QString &runDir);

    // The program used, after the PATH lookup; empty when the engine was refused.
    QString engine() const { return m_engine; }
    // The file start() writes: {engine, image, built, buildSteps, buildMs, containerId, ...}.
    static QString recordFile(const QString &runDir);
    static QJsonObject readRecord(const QString &runDir);

private:
    Expected<void> engineProblem() const;
    // A probe of a running container with a budget: its watcher started again when it is gone.
    void keepBudgetWatched(const run::RunDirectory &dir, QJsonObject record);

    QString m_engine;
    std::optional<ContainerEngine> m_cli; // set when m_engine passed the check
    std::optional<Error> m_engineError;
    int m_buildTimeoutMs;
    QString m_ferryProgram;
};

} // namespace ferry::targets
