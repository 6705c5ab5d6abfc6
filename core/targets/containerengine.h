// ContainerEngine: the validated docker or podman program, called one command at a time, plus image
// stages and registries.
#pragma once

#include "common/error.h"
#include "common/process.h"
#include "env/environment.h"

#include "common/setting.h"
#include <QByteArray>

#include <QProcessEnvironment>
#include <QSettings>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

#include <functional>
#include <memory>

namespace ferry::targets {

// How one call of the container engine ended.
using EngineResult = ProcessResult;

// Which stage of an environment's Dockerfile: `runtime` (what runs train) or `dev` (runtime
// plus the dev tools, for the devcontainer; built on top of the very same layers).
enum class ImageStage { Runtime, Dev };

// The image of an environment's stage: `ferry:<tag>` or `ferry:<tag>-dev`.
QString stageImage(const env::Environment &environment, ImageStage stage);

// GPUs the host kernel driver reports (/proc/driver/nvidia/gpus).
int hostGpuCount();

// The engine the user chose in the settings: docker, podman or a path; empty: automatic.
inline const Setting<QString> kContainerEngineSetting{"containers/engine"};

// The container engine program a run may use, from the settings or a run's record in the run
// store (never from a file in a run folder, which a container could write, nor from a bundle:
// reviews H1). Empty: `docker` on PATH, else `podman`. A bare `docker` or `podman` is looked up
// on PATH; an absolute path must be an executable file named `docker` or `podman`. The program
// and its folder must not be writable by others than their owner, who is root or this user (a
// program anyone can replace runs as anyone's engine). Anything else is refused.
Expected<QString> validatedEngineProgram(const QString &value);

// The registry (a destination of secrets/secretbinding.h, "registry:ADDRESS") that `environment`
// would send its registry password secret to while the user has not bound that secret there;
// empty when it names no secret or the binding is there. ensureImage refuses to read the secret
// then (review N1); the window asks first (ui/secrets/registrysecretquestion.h).
QString unboundRegistry(const env::Environment &environment, const QSettings &settings);

// The registry to log in to for an environment's base image: its registry address when set,
// else the host part of the base image ("myacr.azurecr.io/x:1" -> "myacr.azurecr.io"), else
// empty (Docker Hub).
QString registryAddress(const env::DockerSection &docker);

// The Docker (or Podman) command line, one call at a time. DOCKER_HOST and friends come from
// the process environment; builds use the classic builder unless DOCKER_BUILDKIT is set.
// What to do about an engine's command that failed, from what it printed: install an engine (it
// did not start), check the network's name resolution (a build's lookup failed), else check
// that the engine runs.
QString engineFailureHint(const QByteArray &output, bool started);

class ContainerEngine {
public:
    static constexpr int kQuickMs = 60000; // inspect, ps, rm, run: anything but a build or a stop

    // The one way to an engine (review H1): `setting` (docker or podman, a name or a path; empty:
    // `docker` on PATH, else `podman`) checked by validatedEngineProgram.
    static Expected<ContainerEngine> open(const QString &setting = {});

    const QString &program() const { return m_program; }
    bool isPodman() const;

    EngineResult run(const QStringList &args, int timeoutMs = kQuickMs) const;
    // An error naming the command, how it failed and what to check.
    Error error(const QString &what, const QStringList &args, const EngineResult &result) const;

    bool imageExists(const QString &image) const;

    // `ENGINE login ADDRESS -u USER --password-stdin`: the password goes through stdin, never an
    // argument, into a client configuration of this engine's own (a private folder that lives
    // as long as this engine and its copies), so its pulls and builds use it and no password is
    // left in ~/.docker/config.json. `address` empty: Docker Hub.
    Expected<void> login(const QString &address, const QString &user, const QString &password);
    // Whether containers can get GPUs: the NVIDIA runtime (Docker) or a CDI spec (Podman).
    bool gpuRuntimePresent() const;

    // Output of a long command, whole lines at a time, as it comes.
    using OutputSink = std::function<void(const QByteArray &lines)>;
    // Asked between reads; true stops the command (it is killed).
    using CancelCheck = std::function<bool()>;

    struct StreamResult {
        EngineResult result; // `out` holds the end of the output (stderr merged into it)
        int buildSteps = 0;  // "Step n/m" lines seen
    };
    // Runs a command whose output (stdout and stderr merged) goes to `sink` line by line.
    StreamResult stream(const QStringList &args, const OutputSink &sink, int timeoutMs,
                        const CancelCheck &cancelled = {}) const;

    struct Image {
        QString reference;
        bool built = false; // false: the tag was there, nothing was built
        int buildSteps = 0;
        qint64 elapsedMs = 0;
    };
    // The environment's image for `stage`, built from the generated Dockerfile in `contextDir`
    // (created, and removed afterwards) unless its tag exists already. The dev stage is built
    // on the runtime image, which is made first when missing. `environmentFile` is where
    // relative paths (find_links) start and what errors name.
    Expected<Image> ensureImage(const env::Environment &environment, const QString &environmentFile,
                                const QString &contextDir, ImageStage stage, const OutputSink &sink, int timeoutMs,
                                const CancelCheck &cancelled = {}) const;

private:
    explicit ContainerEngine(QString validatedProgram) : m_program(std::move(validatedProgram)) {}

    // A call of the engine with its environment, nothing on stdin.
    ProgramCall engineCall(const QStringList &args, int timeoutMs) const;
    QProcessEnvironment environment() const;

    QString m_program;
    std::shared_ptr<QTemporaryDir> m_config; // set by login()
};

} // namespace ferry::targets
