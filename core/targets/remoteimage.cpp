#include "targets/remoteimage.h"

#include "env/exportwriter.h"
#include "env/formats.h"
#include "env/imagegenerator.h"
#include "env/spechash.h"
#include "run/contract.h"
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
    QStringList args{u"docker"_s,
                     u"run"_s,
                     u"--rm"_s,
                     u"--name"_s,
                     u"ferry-"_s + spec.id,
                     u"--label"_s,
                     u"ferry.run-id="_s + spec.id,
                     u"--network"_s,
                     u"none"_s,
                     u"--init"_s,
                     u"--workdir"_s,
                     inside.codeDir};
    if (!e.docker.shmSize.isEmpty())
        args << u"--shm-size"_s << e.docker.shmSize;
    if (gpus)
        args << u"--gpus"_s << u"all"_s;
    if (host.uid > 0) // files in the run folder stay the login's
        args << u"--user"_s << u"%1:%2"_s.arg(host.uid).arg(host.gid);
    const auto mount = [&](const QString &from, const QString &to, bool readOnly) {
        args << u"--mount"_s
             << u"type=bind,source=%1,target=%2%3"_s.arg(from, to, readOnly ? u",readonly"_s : QString());
    };
    mount(remoteDir + u"/model"_s, inside.modelDir, false);
    mount(remoteDir + u"/output"_s, inside.outputDir, false);
    mount(remoteDir + u"/input"_s, inside.inputDir, false);
    mount(remoteDir + u"/checkpoints"_s, inside.checkpointsDir, false);
    mount(remoteDir + u"/code"_s, inside.codeDir, true);
    for (qsizetype i = 0; i < s.channels.size(); ++i) {
        if (!spec.channels.contains(s.channels.at(i))) // already on the host
            mount(s.channels.at(i).path, inside.channelDirs.at(i).second, true);
    }
    const bool secrets = !spec.secretVariables.isEmpty();
    if (secrets) { // the entry and the folder with the values' file (remoterun.h)
        mount(remoteDir + u'/' + QString::fromUtf16(kRemoteSecretsFolder), QString::fromUtf16(kRemoteSecretsMount),
              false);
        mount(remoteDir + u'/' + ContainerSecrets::kEntryFile, QString::fromUtf16(kRemoteEntryMount), true);
    }
    // The environment's variables, then those given at launch, then the contract's: later wins.
    // A secret variable's value here is a keychain name: the value comes through the entry.
    for (const auto &[key, value] : e.variables) {
        if (!e.isSecretVariable(key))
            args << u"--env"_s << key + u'=' + value;
    }
    for (const auto &[key, value] : spec.variables)
        args << u"--env"_s << key + u'=' + value;
    static const QRegularExpression shellName(u"^[A-Za-z_][A-Za-z0-9_]*$"_s);
    QStringList unshellable; // names a shell drops (SM_HP_LEARNING-RATE): set again by env
    for (const auto &[key, value] : run::contractEnvironment(s, inside, resources)) {
        args << u"--env"_s << key + u'=' + value;
        if (!shellName.match(key).hasMatch())
            unshellable << key + u'=' + value;
    }
    args << u"--env"_s << u"FERRY_RUN_ID="_s + spec.id;
    const QString interpreter = e.python.interpreterPath.isEmpty() ? u"python3"_s : e.python.interpreterPath;
    args << e.docker.runArguments << image.reference;
    if (secrets) // its output is the container's, which the runner writes to the log
        args << interpreter << QString::fromUtf16(kRemoteEntryMount)
             << QString::fromUtf16(kRemoteSecretsMount) + u'/' + QString::fromUtf16(kRemoteSecretsAttempt) << u"-"_s
             << inside.failureFile();
    args << u"sh"_s << u"-c"_s << u"exec \"$@\""_s << u"sh"_s;
    if (!unshellable.isEmpty())
        args << u"env"_s << unshellable;
    args << interpreter << spec.script << run::scriptArguments(spec);
    return std::pair{RunnerParts{{}, args, stageDir, QString::fromUtf16(kImageContextName)}, image};
}

Expected<void> buildRemoteImage(RemoteShell &shell, const QString &remoteDir, const RemoteImage &image,
                                const std::function<void(const QString &)> &log)
{
    // The classic builder (BuildKit may be missing), the host's network for package mirrors.
    const QByteArray script = "if docker image inspect \"$1\" >/dev/null 2>&1; then echo 'image there'; exit 0; fi\n"
                              "set -o pipefail\n"
                              "DOCKER_BUILDKIT=${DOCKER_BUILDKIT:-0} docker build --network host --target runtime "
                              "-t \"$1\" -f \"$2/image/$3\" \"$2/image\" 2>&1 | tee -a \"$2/log\"\n";
    const ShellResult built = shell.runScript(script, {image.reference, remoteDir, image.dockerfile}, 3600 * 1000);
    if (log) {
        for (const QByteArray &line : built.out.split('\n'))
            if (!line.isEmpty())
                log(QString::fromUtf8(line));
    }
    if (!built.ok())
        return Error{u"cannot build the image %1 on %2: %3"_s.arg(
                         image.reference, shell.place(), QString::fromUtf8(built.out).trimmed().section(u'\n', -3)),
                     {},
                     0,
                     0,
                     u"see the run's log for the whole build"_s};
    return {};
}

} // namespace ferry::targets
