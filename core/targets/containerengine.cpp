#include "targets/containerengine.h"

#include "common/leftovers.h"

#include "env/exportwriter.h"
#include "env/imagegenerator.h"
#include "env/spechash.h"
#include "secrets/secretbinding.h"
#include "secrets/secretstore.h"

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>

#include <utility>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr qint64 kMaxCapture = 64 * 1024; // of an engine's output kept for an error message

} // namespace

QString registryAddress(const env::DockerSection &docker)
{
    if (!docker.registry.address.trimmed().isEmpty())
        return docker.registry.address.trimmed();
    // A reference names its registry when its first component has a '.' or ':' or is localhost.
    const QString first = docker.baseImage.section(u'/', 0, 0);
    if (docker.baseImage.contains(u'/') && (first.contains(u'.') || first.contains(u':') || first == u"localhost"_s))
        return first;
    return {};
}

QProcessEnvironment ContainerEngine::environment() const
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment(); // DOCKER_HOST and friends
    if (!env.contains(u"DOCKER_BUILDKIT"_s))
        env.insert(u"DOCKER_BUILDKIT"_s, u"0"_s); // the classic builder: works without buildx
    if (m_config) {
        env.insert(u"DOCKER_CONFIG"_s, m_config->path());
        env.insert(u"REGISTRY_AUTH_FILE"_s, m_config->filePath(u"auth.json"_s)); // podman
    }
    return env;
}

Expected<void> ContainerEngine::login(const QString &address, const QString &user, const QString &password)
{
    if (!m_config) {
        // Named after this process (common/leftovers.h): a crash's leftover is swept at the next start.
        auto config = std::make_shared<QTemporaryDir>(ownedTempTemplate(kEngineTempPrefix));
        if (!config->isValid())
            return Error{u"cannot make a private folder for the registry login: "_s + config->errorString(),
                         {},
                         0,
                         0,
                         u"check that the temporary folder is writable"_s};
        m_config = std::move(config);
    }
    QStringList args{u"login"_s};
    if (!address.isEmpty())
        args << address;
    args << u"--username"_s << user << u"--password-stdin"_s;
    ProgramCall call = engineCall(args, kQuickMs);
    call.mergeChannels = true;
    call.input = password.toUtf8();
    const EngineResult r = runProgram(call);
    if (!r.started())
        return Error{u"cannot run '%1': %2"_s.arg(m_program, r.startError),
                     {},
                     0,
                     0,
                     u"install Docker or Podman, or set DOCKER_HOST"_s};
    const QString out = QString::fromUtf8(r.out).trimmed();
    if (!r.ok()) {
        const QString where = address.isEmpty() ? u"Docker Hub"_s : address;
        return Error{u"cannot log in to %1 as %2: %3"_s.arg(where, user, out.section(u'\n', -1)),
                     {},
                     0,
                     0,
                     u"check the registry's address, the user name and the keychain secret that holds the password"_s};
    }
    return {};
}

QString stageImage(const env::Environment &environment, ImageStage stage)
{
    const QString runtime = env::imageReference(environment);
    return stage == ImageStage::Dev ? runtime + u"-dev"_s : runtime;
}

int hostGpuCount()
{
    return static_cast<int>(QDir(u"/proc/driver/nvidia/gpus"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot).size());
}

namespace {

// Whether only root or this user can change `path` (the program, or the folder that holds it).
Expected<void> ownedSafely(const QString &path, const QString &what, const QString &hint)
{
    struct stat st {};
    if (::stat(QFile::encodeName(path).constData(), &st) != 0)
        return Error{u"cannot check %1: %2"_s.arg(what, errnoText(errno)), path, 0, 0, hint};
    if ((st.st_uid != 0 && st.st_uid != ::getuid()) || (st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return Error{
            u"the container engine's %1 can be changed by another user (owner %2, mode %3): not run"_s.arg(what)
                .arg(st.st_uid)
                .arg(st.st_mode & 07777, 4, 8, QChar(u'0')),
            path, 0, 0, hint};
    return {};
}

Expected<QString> checkedProgram(const QString &program, const QString &hint)
{
    if (auto file = ownedSafely(program, u"program"_s, hint); !file)
        return file.error();
    if (auto folder = ownedSafely(QFileInfo(program).absolutePath(), u"folder"_s, hint); !folder)
        return folder.error();
    return program;
}

} // namespace

QString unboundRegistry(const env::Environment &environment, const QSettings &settings)
{
    const QString secret = environment.docker.registry.passwordSecret.trimmed();
    if (secret.isEmpty())
        return {};
    const QString destination = secrets::registryDestination(registryAddress(environment.docker));
    return secrets::isBound(settings, secret, destination) ? QString() : destination;
}

Expected<QString> validatedEngineProgram(const QString &value)
{
    const QString hint = u"choose docker or podman (a name on PATH, or the absolute path of one) in the settings"_s;
    if (value.isEmpty()) {
        for (const QString &name : {u"docker"_s, u"podman"_s})
            if (const QString found = QStandardPaths::findExecutable(name); !found.isEmpty())
                return checkedProgram(found, hint);
        return Error{u"no container engine: neither docker nor podman is on PATH"_s,
                     {},
                     0,
                     0,
                     u"install Docker or Podman, or set DOCKER_HOST"_s};
    }
    const QFileInfo given(value);
    const QString name = given.fileName();
    if (name != u"docker"_s && name != u"podman"_s)
        return Error{u"'%1' is not a container engine Ferry runs: only docker or podman"_s.arg(value), {}, 0, 0, hint};
    if (value == name) {
        const QString found = QStandardPaths::findExecutable(name);
        if (found.isEmpty())
            return Error{u"the container engine '%1' is not on PATH"_s.arg(name), {}, 0, 0, hint};
        return checkedProgram(found, hint);
    }
    if (!given.isAbsolute() || QDir::cleanPath(value) != value)
        return Error{
            u"the container engine '%1' is neither a name on PATH nor an absolute path"_s.arg(value), {}, 0, 0, hint};
    if (!given.isFile() || !given.isExecutable())
        return Error{u"the container engine '%1' is not an executable file"_s.arg(value), {}, 0, 0, hint};
    return checkedProgram(value, hint);
}

Expected<ContainerEngine> ContainerEngine::open(const QString &setting)
{
    const auto program = validatedEngineProgram(setting);
    if (!program)
        return program.error();
    return ContainerEngine(*program);
}

bool ContainerEngine::isPodman() const
{
    return QFileInfo(m_program).fileName() == u"podman"_s;
}

ProgramCall ContainerEngine::engineCall(const QStringList &args, int timeoutMs) const
{
    ProgramCall call;
    call.program = m_program;
    call.arguments = args;
    call.environment = environment();
    call.timeoutMs = timeoutMs;
    call.startTimeoutMs = std::min(timeoutMs, kQuickMs);
    return call;
}

EngineResult ContainerEngine::run(const QStringList &args, int timeoutMs) const
{
    return runProgram(engineCall(args, timeoutMs));
}

Error ContainerEngine::error(const QString &what, const QStringList &args, const EngineResult &r) const
{
    const QString command = QFileInfo(m_program).fileName() + u' ' + args.value(0);
    QString why;
    using End = ProcessResult::End;
    if (r.end == End::NotStarted)
        why = u"cannot run '%1': %2"_s.arg(m_program, r.startError);
    else if (r.end == End::Cancelled)
        why = u"'%1' was cancelled"_s.arg(command);
    else if (r.end == End::TimedOut)
        why = u"'%1' did not finish in time"_s.arg(command);
    else if (r.end != End::Exited)
        why = r.failure(u"'%1'"_s.arg(command));
    else
        why =
            u"'%1' failed (exit code %2): %3"_s.arg(command)
                .arg(r.exitCode)
                .arg(QString::fromUtf8(r.err.isEmpty() ? r.out.right(kMaxCapture) : r.err.left(kMaxCapture)).trimmed());
    return Error{what + u": "_s + why, {}, 0, 0, engineFailureHint(r.err + r.out, r.started())};
}

QString engineFailureHint(const QByteArray &output, bool started)
{
    if (!started)
        return u"install Docker or Podman, or set DOCKER_HOST"_s;
    // A build that reached the network but not a name server (review 2026-12-06, finding 14):
    // the engine runs; the lookup of a host (the Debian mirror, PyPI) failed.
    static const QRegularExpression dns(
        u"temporary failure in name resolution|temporary failure resolving|could not resolve|"
        u"name or service not known|no such host|server misbehaving|nodename nor servname|getaddrinfo failed|"
        u"failed to resolve"_s,
        QRegularExpression::CaseInsensitiveOption);
    if (dns.match(QString::fromUtf8(output)).hasMatch())
        return u"a host name could not be resolved (DNS): check this machine's network and name server "
               u"(/etc/resolv.conf, or the engine's own \"dns\" setting in /etc/docker/daemon.json), or build "
               u"without the network (pip from a local wheelhouse: find_links)"_s;
    return u"check that the container engine runs (docker info)"_s;
}

bool ContainerEngine::imageExists(const QString &image) const
{
    return run({u"image"_s, u"inspect"_s, u"--format"_s, u"{{.Id}}"_s, image}).ok();
}

bool ContainerEngine::gpuRuntimePresent() const
{
    const EngineResult r = run({u"info"_s, u"--format"_s, u"{{json .Runtimes}}"_s});
    if (r.ok() && r.out.contains("nvidia"))
        return true;
    for (const QString &cdi : {u"/etc/cdi/nvidia.yaml"_s, u"/var/run/cdi/nvidia.yaml"_s, u"/etc/cdi/nvidia.json"_s}) {
        if (QFileInfo::exists(cdi))
            return true;
    }
    return false;
}

ContainerEngine::StreamResult ContainerEngine::stream(const QStringList &args, const OutputSink &sink, int timeoutMs,
                                                      const CancelCheck &cancelled) const
{
    StreamResult outcome;
    static const QRegularExpression step(u"^(Step|STEP) \\d+/\\d+"_s, QRegularExpression::MultilineOption);
    ProgramCall call = engineCall(args, timeoutMs);
    call.startTimeoutMs = kQuickMs;
    call.mergeChannels = true;
    call.cancelled = cancelled;
    call.out = OutputCapture::tail(4096); // the last output, for the error message
    call.lineSink = [&](const QByteArray &lines) {
        if (sink)
            sink(lines);
        outcome.buildSteps += static_cast<int>(QString::fromUtf8(lines).count(step));
    };
    outcome.result = runProgram(call);
    return outcome;
}

Expected<ContainerEngine::Image> ContainerEngine::ensureImage(const env::Environment &environment,
                                                              const QString &environmentFile, const QString &contextDir,
                                                              ImageStage stage, const OutputSink &sink, int timeoutMs,
                                                              const CancelCheck &cancelled) const
{
    QElapsedTimer clock;
    clock.start();
    Image image;
    image.reference = stageImage(environment, stage);
    const auto say = [&](const QString &text) {
        if (sink)
            sink("ferry: " + text.toUtf8() + '\n');
    };
    if (imageExists(image.reference)) {
        say(u"image %1 is up to date: no build"_s.arg(image.reference));
        image.elapsedMs = clock.elapsed();
        return image;
    }
    // A base image behind a password: log in first (the password from the keychain), with a
    // client configuration of this build's own.
    const QString passwordSecret = environment.docker.registry.passwordSecret.trimmed();
    if (!passwordSecret.isEmpty() && !m_config) {
        const QString address = registryAddress(environment.docker);
        // Only to a registry the user sent this secret to (review N1): the environment file is
        // data from wherever it came, and nothing is read from the keychain for it otherwise.
        const QString destination = unboundRegistry(environment, QSettings());
        if (!destination.isEmpty())
            return Error{u"the environment sends keychain secret %1 to registry %2, where you have not sent it: "
                         u"nothing was read from the keychain"_s.arg(passwordSecret, destination.mid(9)),
                         environmentFile, 0, 0,
                         u"if that registry is yours, allow it once: ferry secret bind %1 --registry %2 (or choose "
                         u"the secret for it in the environment editor)"_s.arg(passwordSecret, destination.mid(9))};
        const auto password = secrets::readSecretNow(passwordSecret);
        if (!password)
            return Error{u"the password of registry %1 (keychain secret %2): %3"_s.arg(
                             address.isEmpty() ? u"Docker Hub"_s : address, passwordSecret, password.error().message),
                         environmentFile, 0, 0, password.error().hint};
        ContainerEngine authenticated = *this;
        say(u"logging in to %1 as %2"_s.arg(address.isEmpty() ? u"Docker Hub"_s : address,
                                            environment.docker.registry.username));
        if (const auto login = authenticated.login(address, environment.docker.registry.username, *password); !login)
            return Error{login.error().message, environmentFile, 0, 0, login.error().hint};
        return authenticated.ensureImage(environment, environmentFile, contextDir, stage, sink, timeoutMs, cancelled);
    }
    if (stage == ImageStage::Dev) { // the runtime image first, under its own tag: one image for both
        const auto runtime =
            ensureImage(environment, environmentFile, contextDir, ImageStage::Runtime, sink, timeoutMs, cancelled);
        if (!runtime)
            return runtime.error();
        image.buildSteps += runtime->buildSteps;
    }

    env::ImageBuildOptions options;
    options.baseDir = QFileInfo(environmentFile).absolutePath();
    const env::ImageBuild build = env::generateImageBuild(environment, options);
    for (const env::Diagnostic &d : build.diagnostics) {
        if (d.isError())
            return Error{u"cannot generate the Dockerfile: "_s + d.toString(), environmentFile, 0, 0,
                         u"fix the environment (ferry env check FILE)"_s};
    }
    if (const auto written = env::writeGeneratedFiles(build.files, contextDir); !written)
        return written.error();
    say(u"building image %1"_s.arg(image.reference));
    const QStringList args{u"build"_s,
                           u"--network"_s,
                           u"host"_s,
                           u"--target"_s,
                           stage == ImageStage::Dev ? u"dev"_s : u"runtime"_s,
                           u"-t"_s,
                           image.reference,
                           u"-f"_s,
                           QDir(contextDir).filePath(build.files.first().name),
                           contextDir};
    const StreamResult outcome = stream(args, sink, timeoutMs, cancelled);
    QDir(contextDir).removeRecursively(); // wheelhouses can be big
    image.buildSteps += outcome.buildSteps;
    if (!outcome.result.ok())
        return error(u"cannot build the image %1"_s.arg(image.reference), args, outcome.result);
    image.built = true;
    image.elapsedMs = clock.elapsed();
    say(u"built image %1 in %2 s (%3 build steps)"_s.arg(image.reference)
            .arg(static_cast<double>(image.elapsedMs) / 1000.0)
            .arg(image.buildSteps));
    return image;
}

} // namespace ferry::targets
