#include "targets/remoteimage.h"

#include "env/exportwriter.h"
#include "env/formats.h"
#include "env/imagegenerator.h"
#include "env/spechash.h"
#include "run/contract.h"
#include "targets/containerarguments.h"
#include "targets/containersecrets.h"

#include <QDir>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ferry::targets {

Expected<std::pair<RunnerParts, RemoteImage>> remoteImageParts(const run::RunSpec &spec, const QString &remoteDir,
                                                               const HostInfo &host, run::Resources &resources,
                                                               const QString &stageDir)
{
    if (host.docker.isEmpty())
        return Error{u"the run should use its environment's image, but no Docker engine answers on the host"_s,
                     spec.environmentFile, 0, 0,
                     u"install Docker there (and let the login use it), or run in the host's Python (--host-python)"_s};
    const auto read = env::readEnvironment(spec.environmentFile);
    for (const env::Diagnostic &d : read.diagnostics) {
        if (d.isError())
            return Error{u"the environment cannot be used: "_s + d.toString(), spec.environmentFile, 0, 0,
                         u"fix it (ferry env check FILE)"_s};
    }
    const env::Environment &e = read.environment;
    if (const auto allowed = checkRunArguments(e, spec); !allowed)
        return allowed.error();
    env::ImageBuildOptions options;
    options.baseDir = QFileInfo(spec.environmentFile).absolutePath();
    const env::ImageBuild build = env::generateImageBuild(e, options);
    for (const env::Diagnostic &d : build.diagnostics) {
        if (d.isError())
            return Error{u"cannot generate the Dockerfile: "_s + d.toString(), spec.environmentFile, 0, 0,
                         u"fix the environment (ferry env check FILE)"_s};
    }
    QDir(stageDir).removeRecursively();
    if (const auto written = env::writeGeneratedFiles(build.files, stageDir); !written)
        return written.error();
    RemoteImage image{env::imageReference(e), build.files.first().name};

    const bool gpus = e.docker.gpu != env::GpuMode::Off && !host.gpus.isEmpty();
    if (e.docker.gpu == env::GpuMode::On && host.gpus.isEmpty())
        return Error{u"the environment asks for a GPU (gpu: on), but the host has none"_s, spec.environmentFile, 0, 0,
                     u"choose a host with a GPU, or set gpu: auto"_s};
    resources.gpus = gpus ? static_cast<int>(host.gpus.size()) : 0;

    const run::RunSpec s = RemoteRun::contractSpec(spec);
    const run::ContractPaths inside = run::containerContractPaths(s);
    ContainerRun container;
    container.name = u"ferry-"_s + spec.id;
    container.removedAtEnd = true;
    container.labels = {u"ferry.run-id="_s + spec.id};
    container.workdir = inside.codeDir;
    container.shmSize = e.docker.shmSize;
    container.gpus = gpus;
    if (host.uid > 0) // files in the run folder stay the login's
        container.user = u"%1:%2"_s.arg(host.uid).arg(host.gid);
    container.mounts = {{remoteDir + u"/model"_s, inside.modelDir, false},
                        {remoteDir + u"/output"_s, inside.outputDir, false},
                        {remoteDir + u"/input"_s, inside.inputDir, false},
                        {remoteDir + u"/checkpoints"_s, inside.checkpointsDir, false},
                        {remoteDir + u"/code"_s, inside.codeDir, true}};
    for (qsizetype i = 0; i < s.channels.size(); ++i) {
        if (!spec.channels.contains(s.channels.at(i))) // already on the host
            container.mounts << ContainerMount{s.channels.at(i).path, inside.channelDirs.at(i).second, true};
    }
    const bool secrets = !spec.secretVariables.isEmpty();
    if (secrets) { // the entry and the folder with the values' file (remoterun.h)
        container.mounts << ContainerMount{remoteDir + u'/' + QString::fromUtf16(kRemoteSecretsFolder),
                                           QString::fromUtf16(kRemoteSecretsMount), false}
                         << ContainerMount{remoteDir + u'/' + ContainerSecrets::kEntryFile,
                                           QString::fromUtf16(kRemoteEntryMount), true};
    }
    // A secret variable's value here is a keychain name: the value comes through the entry.
    ContainerVariables variables =
        containerVariables(e, spec.variables, run::contractEnvironment(s, inside, resources));
    container.variables = variables.variables;
    container.variables << std::pair{u"FERRY_RUN_ID"_s, spec.id};
    container.runArguments = e.docker.runArguments;
    container.image = image.reference;
    const QString interpreter = e.python.interpreterPath.isEmpty() ? u"python3"_s : e.python.interpreterPath;
    if (secrets) // its output is the container's, which the runner writes to the log
        container.command << interpreter << QString::fromUtf16(kRemoteEntryMount)
                          << QString::fromUtf16(kRemoteSecretsMount) + u'/' + QString::fromUtf16(kRemoteSecretsAttempt)
                          << u"-"_s << inside.failureFile();
    QString socketDir;
    if (spec.isKernel()) { // its keeper's folder, and its sockets' folder on the host (docs/kernels.md)
        socketDir = run::hostKernelSocketDir(spec.id);
        container.mounts << ContainerMount{remoteDir + u'/' + run::kKeeperFolder, run::kContainerKeeperMount, false}
                         << ContainerMount{socketDir, run::kContainerSocketsMount, false};
    }
    container.command << shellPrefix();
    if (!variables.unshellable.isEmpty())
        container.command << u"env"_s << variables.unshellable;
    container.command << run::runCommand(spec, interpreter, run::kContainerKeeperMount);
    QStringList args = QStringList{u"docker"_s} + containerRunArguments(container);
    if (!socketDir.isEmpty()) // made by the login first: an engine makes a missing one root's
        args = QStringList{u"sh"_s, u"-c"_s, u"mkdir -m 0700 -p -- \"$0\" && exec \"$@\""_s, socketDir} + args;
    return std::pair{RunnerParts{{}, args, stageDir, QString::fromUtf16(kImageContextName)}, image};
}

Expected<void> buildRemoteImage(RemoteShell &shell, const QString &remoteDir, const RemoteImage &image,
                                const std::function<void(const QString &)> &log)
{
    // The classic builder (BuildKit may be missing), the host's network for package mirrors. Its
    // output goes to the run's log as Ferry's notes ("ferry: "): no metric is read from it.
    const QByteArray script = "if docker image inspect \"$1\" >/dev/null 2>&1; then echo 'image there'; exit 0; fi\n"
                              "set -o pipefail\n"
                              "DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-0} docker build --network host --target runtime "
                              "-t \"$1\" -f \"$2/image/$3\" \"$2/image\" 2>&1 | "
                              "awk '{ print \"ferry: \" $0; fflush() }' | tee -a \"$2/log\"\n";
    const ShellResult built = shell.runScript(script, {image.reference, remoteDir, image.dockerfile}, 3600 * 1000);
    if (log) {
        for (const QByteArray &line : built.out.split('\n'))
            if (!line.isEmpty())
                log(QString::fromUtf8(line));
    }
    if (!built.ok())
        return Error{u"cannot build the image %1 on %2: %3"_s.arg(
                         image.reference, shell.place(),
                         QString::fromUtf8(built.out)
                             .remove(QRegularExpression(u"^ferry: "_s, QRegularExpression::MultilineOption))
                             .trimmed()
                             .section(u'\n', -3)),
                     {},
                     0,
                     0,
                     u"see the run's log for the whole build"_s};
    return {};
}

} // namespace ferry::targets
