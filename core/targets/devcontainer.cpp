#include "targets/devcontainer.h"

#include "common/textfile.h"
#include "env/formats.h"
#include "env/imagegenerator.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcessEnvironment>
#include <QStandardPaths>
#include <QTemporaryDir>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

struct Place {
    env::Environment environment;
    QString environmentFile; // absolute
    QString workspace;       // absolute, clean
    QString configFile;      // <workspace>/.devcontainer/ferry-<name>/devcontainer.json
};

Expected<Place> locate(const QString &environmentFile, const QString &workspaceFolder)
{
    Place place;
    place.environmentFile = QDir::cleanPath(QFileInfo(environmentFile).absoluteFilePath());
    const env::EnvironmentRead read = env::readEnvironment(place.environmentFile);
    for (const env::Diagnostic &d : read.diagnostics) {
        if (d.isError())
            return Error{u"the environment cannot be used: "_s + d.toString(), place.environmentFile, 0, 0,
                         u"fix it (ferry env check FILE)"_s};
    }
    place.environment = read.environment;
    const QFileInfo workspace(workspaceFolder.isEmpty() ? QDir::currentPath() : workspaceFolder);
    if (!workspace.isDir())
        return Error{u"the workspace folder does not exist"_s, workspace.filePath(), 0, 0,
                     u"give an existing folder with --workspace"_s};
    place.workspace = QDir::cleanPath(workspace.absoluteFilePath());
    place.configFile = u"%1/.devcontainer/ferry-%2/devcontainer.json"_s.arg(place.workspace, place.environment.name);
    return place;
}

QStringList idLabels(const Place &place)
{
    return {u"devcontainer.local_folder="_s + place.workspace, u"devcontainer.config_file="_s + place.configFile};
}

// The containers with the workspace's and configuration's labels, newest first.
Expected<QStringList> containersOf(const ContainerEngine &engine, const Place &place)
{
    QStringList args{u"ps"_s, u"-a"_s, u"-q"_s, u"--no-trunc"_s};
    for (const QString &label : idLabels(place))
        args << u"--filter"_s << u"label="_s + label;
    const EngineResult r = engine.run(args);
    if (!r.ok())
        return engine.error(u"cannot list the devcontainers"_s, args, r);
    return QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
}

QString inspect(const ContainerEngine &engine, const QStringList &what, const QString &format)
{
    const EngineResult r = engine.run(QStringList{u"inspect"_s, u"--format"_s, format} + what);
    return r.ok() ? QString::fromUtf8(r.out).trimmed() : QString();
}

// Whether the container may get GPUs, by the environment's setting; an error when it must and cannot.
Expected<bool> wantsGpus(const ContainerEngine &engine, const Place &place)
{
    const env::GpuMode mode = place.environment.docker.gpu;
    if (mode == env::GpuMode::On) {
        if (!engine.gpuRuntimePresent())
            return Error{u"the environment asks for a GPU (gpu: on), but the container engine has no GPU runtime"_s,
                         place.environmentFile, 0, 0,
                         u"install the NVIDIA Container Toolkit, or set gpu: auto or off"_s};
        return true;
    }
    return mode == env::GpuMode::Auto && hostGpuCount() > 0 && engine.gpuRuntimePresent();
}

Expected<Devcontainer> upWithEngine(const ContainerEngine &engine, const Place &place, Devcontainer dc,
                                    const QString &existing)
{
    dc.method = QFileInfo(engine.program()).fileName();
    dc.remoteWorkspaceFolder = u"/workspaces/"_s + QFileInfo(place.workspace).fileName();
    if (!existing.isEmpty()) {
        if (inspect(engine, {existing}, u"{{.State.Running}}"_s) != u"true"_s) {
            const QStringList args{u"start"_s, existing};
            if (const EngineResult r = engine.run(args); !r.ok())
                return engine.error(u"cannot start the devcontainer"_s, args, r);
        }
        dc.containerId = existing;
        dc.reused = true;
        return dc;
    }
    const auto gpus = wantsGpus(engine, place);
    if (!gpus)
        return gpus.error();
    const env::Environment &e = place.environment;
    QStringList args{u"run"_s, u"-d"_s};
    for (const QString &label : idLabels(place))
        args << u"--label"_s << label;
    args << u"--label"_s << u"dev.ferry.environment="_s + e.name;
    args << u"--mount"_s << u"type=bind,source=%1,target=%2"_s.arg(place.workspace, dc.remoteWorkspaceFolder);
    args << u"--workdir"_s << dc.remoteWorkspaceFolder;
    if (!e.docker.shmSize.isEmpty())
        args << u"--shm-size"_s << e.docker.shmSize;
    if (*gpus)
        args << u"--gpus"_s << u"all"_s;
    for (const auto &[key, value] : e.variables)
        if (!e.isSecretVariable(key)) // a keychain secret's name is no value (secrets are injected by the launcher)
            args << u"--env"_s << key + u'=' + value;
    args << e.docker.runArguments;
    // Kept alive the way the Dev Containers CLI keeps its containers alive; stops on TERM.
    args << u"--entrypoint"_s << u"/bin/sh"_s << dc.image << u"-c"_s
         << u"echo Container started; trap 'exit 0' TERM; while sleep 1000 & wait $!; do :; done"_s;
    const EngineResult r = engine.run(args);
    if (!r.ok())
        return engine.error(u"cannot start the devcontainer"_s, args, r);
    dc.containerId = QString::fromUtf8(r.out).trimmed();
    return dc;
}

Expected<Devcontainer> upWithCli(const ContainerEngine &engine, const Place &place, Devcontainer dc, const QString &cli,
                                 const QString &existing, int timeoutMs, const ContainerEngine::OutputSink &sink)
{
    dc.method = u"devcontainer-cli"_s;
    QStringList args{u"up"_s,          u"--workspace-folder"_s, place.workspace, u"--config"_s,
                     place.configFile, u"--docker-path"_s,      engine.program()};
    for (const QString &label : idLabels(place))
        args << u"--id-label"_s << label;
    ProgramCall call;
    call.program = cli;
    call.arguments = args;
    call.timeoutMs = timeoutMs;
    const ProcessResult r = runProgram(call);
    if (!r.started())
        return Error{u"cannot run the Dev Containers CLI: "_s + r.startError, cli, 0, 0,
                     u"install it (npm install -g @devcontainers/cli) or use --no-cli"_s};
    if (r.end == ProcessResult::End::TimedOut)
        return Error{u"the Dev Containers CLI did not finish in time"_s, cli, 0, 0, {}};
    const QByteArray &log = r.err;
    if (sink && !log.isEmpty())
        sink(log.endsWith('\n') ? log : log + '\n');
    // Its result is the last line of its standard output, as JSON.
    const QList<QByteArray> lines = r.out.trimmed().split('\n');
    const QJsonObject result = QJsonDocument::fromJson(lines.last()).object();
    if (!r.ok() || result.value(u"outcome"_s).toString() != u"success"_s) {
        const QString message = result.value(u"message"_s).toString();
        return Error{u"the Dev Containers CLI could not start the devcontainer: "_s +
                         (message.isEmpty() ? QString::fromUtf8(log.right(2000)).trimmed() : message),
                     place.configFile, 0, 0, u"see its log above, or try --no-cli"_s};
    }
    dc.containerId = result.value(u"containerId"_s).toString();
    dc.remoteUser = result.value(u"remoteUser"_s).toString(dc.remoteUser);
    dc.remoteWorkspaceFolder = result.value(u"remoteWorkspaceFolder"_s).toString();
    dc.reused = !existing.isEmpty() && dc.containerId == existing;
    return dc;
}

} // namespace

Expected<Devcontainer> devcontainerUp(const ContainerEngine &engine, const DevcontainerRequest &request,
                                      const ContainerEngine::OutputSink &sink)
{
    const auto place = locate(request.environmentFile, request.workspaceFolder);
    if (!place)
        return place.error();
    QString cli;
    if (request.useCli)
        cli = request.cli.isEmpty() ? QStandardPaths::findExecutable(u"devcontainer"_s) : request.cli;

    // 1. The images: runtime, then dev on top of it, each built only when its tag is missing.
    QTemporaryDir context;
    if (!context.isValid())
        return Error{u"cannot create a temporary build folder: "_s + context.errorString(),
                     {},
                     0,
                     0,
                     u"check TMPDIR and free disk space"_s};
    const auto built = engine.ensureImage(place->environment, place->environmentFile, context.filePath(u"image"_s),
                                          ImageStage::Dev, sink, request.buildTimeoutMs);
    if (!built)
        return built.error();
    Devcontainer dc;
    dc.build = *built;
    dc.image = built->reference;
    dc.configFile = place->configFile;
    dc.remoteUser = place->environment.docker.remoteUser.isEmpty() ? u"root"_s : place->environment.docker.remoteUser;

    // 2. The configuration VS Code and the CLI read: this image, nothing to build.
    const QString config = u"// Generated by Ferry from %1: edit the environment, not this file.\n"_s.arg(
                               QDir(place->workspace).relativeFilePath(place->environmentFile)) +
                           env::generateDevcontainerJson(place->environment, dc.image);
    if (!QDir().mkpath(QFileInfo(place->configFile).path()))
        return Error{u"cannot create the folder"_s, QFileInfo(place->configFile).path(), 0, 0,
                     u"check that the workspace is writable"_s};
    if (const auto written = writeTextFileAtomically(place->configFile, config); !written)
        return written.error();

    // 3. The container: kept when it runs this image, replaced when the image has changed.
    const auto containers = containersOf(engine, *place);
    if (!containers)
        return containers.error();
    QString existing;
    const QString imageId = inspect(engine, {u"--type"_s, u"image"_s, dc.image}, u"{{.Id}}"_s);
    for (const QString &id : *containers) {
        if (existing.isEmpty() && inspect(engine, {u"--type"_s, u"container"_s, id}, u"{{.Image}}"_s) == imageId) {
            existing = id;
            continue;
        }
        const QStringList args{u"rm"_s, u"-f"_s, id};
        if (const EngineResult r = engine.run(args); !r.ok())
            return engine.error(u"cannot remove the devcontainer of an older image"_s, args, r);
        if (sink)
            sink("ferry: removed devcontainer " + id.left(12).toUtf8() + " of an older image\n");
    }
    if (!cli.isEmpty())
        return upWithCli(engine, *place, dc, cli, existing, request.buildTimeoutMs, sink);
    return upWithEngine(engine, *place, dc, existing);
}

Expected<QStringList> devcontainerDown(const ContainerEngine &engine, const QString &environmentFile,
                                       const QString &workspaceFolder)
{
    const auto place = locate(environmentFile, workspaceFolder);
    if (!place)
        return place.error();
    const auto containers = containersOf(engine, *place);
    if (!containers)
        return containers.error();
    for (const QString &id : *containers) {
        const QStringList args{u"rm"_s, u"-f"_s, id};
        if (const EngineResult r = engine.run(args); !r.ok())
            return engine.error(u"cannot remove the devcontainer"_s, args, r);
    }
    return *containers;
}

} // namespace ferry::targets
