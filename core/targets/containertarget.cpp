#include "targets/containertarget.h"

#include "targets/containerarguments.h"
#include "targets/containerbudget.h"
#include "targets/containerengine.h"
#include "targets/containersecrets.h"
#include "targets/imagerecord.h"

#include "common/safefile.h"
#include "env/exportwriter.h"
#include "env/formats.h"
#include "env/imagegenerator.h"
#include "env/spechash.h"
#include "run/contract.h"
#include "run/hostfacts.h"
#include "run/runsecrets.h"
#include "run/supervisor.h"
#include "run/workfolder.h"
#include "targets/remotescripts.h"

#include <QDateTime>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>

#include <algorithm>
#include <csignal>
#include <unistd.h>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

using run::ExitRecord;
using run::RunDirectory;

constexpr int kQuickMs = ContainerEngine::kQuickMs;
constexpr int kStopExtraMs = 60000;    // what `stop` may take beyond the grace period
constexpr int kSecretsTakenMs = 30000; // how long a started container may take to read its secrets

// The run folder's `log` (and the secret entry) are mounted here as single files: the run folder
// itself, with spec.json, exit.json, container.json, the heartbeat and the archives, is in no
// mount, so nothing in the container can write or link what Ferry reads back (review H1).
const QString kFerryMount = u"/opt/ml/ferry"_s;
// The source folder, read-only; the working folder /opt/ml/code links into it.
const QString kSourceMount = u"/opt/ml/source"_s;

EngineResult runEngine(const ContainerEngine &engine, const QStringList &args, int timeoutMs)
{
    return engine.run(args, timeoutMs);
}

Error engineError(const ContainerEngine &engine, const QString &what, const QStringList &args, const EngineResult &r)
{
    return engine.error(what, args, r);
}

void appendToLog(const RunDirectory &dir, const QByteArray &bytes)
{
    if (const auto appended = dir.appendToLog(bytes); !appended)
        qWarning("%s", qPrintable(appended.error().toString()));
}

void note(const RunDirectory &dir, const QString &text)
{
    appendToLog(dir, "ferry: " + text.toUtf8() + '\n');
}

// The image's build output, in the run's log as Ferry's notes: it is not the script's, and no
// metric is read from it (docker's "enable it by removing the DOCKER_BUILDKIT=0" made one).
QByteArray asNotes(const QByteArray &lines)
{
    QByteArray notes;
    for (const QByteArray &line : lines.split('\n')) {
        if (!line.isEmpty())
            notes += (line.startsWith("ferry: ") ? line : "ferry: " + line) + '\n';
    }
    return notes;
}

bool writeRecord(const QString &runDir, const QJsonObject &record)
{
    return replaceFileSafely(ContainerTarget::recordFile(runDir), QJsonDocument(record).toJson()).hasValue();
}

// The containers labelled with the run's id (normally one; none once it has been removed).
Expected<QStringList> containersOf(const ContainerEngine &engine, const QString &runId)
{
    const QStringList args{u"ps"_s, u"-a"_s, u"-q"_s, u"--no-trunc"_s, u"--filter"_s, u"label=ferry.run-id="_s + runId};
    const EngineResult r = runEngine(engine, args, kQuickMs);
    if (!r.ok())
        return engineError(engine, u"cannot list the run's containers"_s, args, r);
    return QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts);
}

Expected<QJsonObject> containerState(const ContainerEngine &engine, const QString &id)
{
    const QStringList args{u"inspect"_s, u"--type"_s, u"container"_s, u"--format"_s, u"{{json .State}}"_s, id};
    const EngineResult r = runEngine(engine, args, kQuickMs);
    if (!r.ok())
        return engineError(engine, u"cannot inspect the run's container"_s, args, r);
    return QJsonDocument::fromJson(r.out.trimmed()).object();
}

bool isActive(const QJsonObject &state)
{
    const QString status = state.value(u"Status"_s).toString().toLower();
    return status != u"exited"_s && status != u"dead"_s && status != u"stopped"_s;
}

// A time of the engine's state, in ms since the epoch; 0 unknown (Docker says 0001-01-01 for never).
qint64 stateTimeMs(const QJsonObject &state, const QString &name)
{
    const QDateTime at = QDateTime::fromString(state.value(name).toString(), Qt::ISODateWithMs);
    return at.isValid() && at.toMSecsSinceEpoch() > 0 ? at.toMSecsSinceEpoch() : 0;
}

// When the container's script started and ended (the engine's StartedAt and FinishedAt).
qint64 startedAtMs(const QJsonObject &state)
{
    return stateTimeMs(state, u"StartedAt"_s);
}
qint64 finishedAtMs(const QJsonObject &state)
{
    return stateTimeMs(state, u"FinishedAt"_s);
}

// How the container's main process ended, from the engine's state (Docker's init, tini, reports a
// signal as 128+n); stopped by its own backstop (its watcher gone, containerbudget.h): cancelled,
// the budget's reason, as the watcher would have said.
ExitRecord exitOf(const QJsonObject &state, const RunDirectory &dir, const run::RunBudget &budget)
{
    ExitRecord exit;
    if (endedByContainerBackstop(budget, startedAtMs(state), finishedAtMs(state))) {
        exit.cancelled = true;
        exit.error = budget.reachedText();
    }
    const int code = state.value(u"ExitCode"_s).toInt(-1);
    if (code > 128 && code < 128 + 65) {
        exit.signal = code - 128;
    } else {
        exit.exitCode = code;
    }
    if (exit.error.isEmpty())
        exit.error = dir.failureText();
    if (exit.error.isEmpty() && state.value(u"OOMKilled"_s).toBool())
        exit.error = u"the container ran out of memory"_s;
    if (exit.error.isEmpty())
        exit.error = state.value(u"Error"_s).toString();
    return exit;
}

// The start() of this run is still building its image (in a process that is alive).
bool stillStarting(const QJsonObject &record)
{
    if (record.value(u"phase"_s).toString() != u"building"_s)
        return false;
    const auto pid = static_cast<qint64>(record.value(u"starterPid"_s).toDouble());
    const auto ticks = static_cast<quint64>(record.value(u"starterTicks"_s).toDouble());
    return run::isSameLiveProcess(pid, ticks);
}

// A failure after the claim ends the run: the log and exit.json say why.
Error failRun(const RunDirectory &dir, const Error &error)
{
    note(dir, error.toString());
    dir.recordEnd(ExitRecord{-1, 0, 0, false, error.toString()});
    (void)run::finalize(dir.path());
    return error;
}

// What the script gets: CPUs, and GPUs when the environment wants them and the engine can.
Expected<run::Resources> containerResources(const ContainerEngine &engine, const env::Environment &e,
                                            const QString &environmentFile)
{
    run::Resources resources;
    const long cpus = ::sysconf(_SC_NPROCESSORS_ONLN);
    resources.cpus = cpus > 0 ? static_cast<int>(cpus) : 1;
    bool gpus = false;
    if (e.docker.gpu == env::GpuMode::On) {
        if (!engine.gpuRuntimePresent())
            return Error{u"the environment asks for a GPU (gpu: on), but the container engine has no GPU runtime"_s,
                         environmentFile, 0, 0, u"install the NVIDIA Container Toolkit, or set gpu: auto or off"_s};
        gpus = true;
    } else if (e.docker.gpu == env::GpuMode::Auto && hostGpuCount() > 0) {
        gpus = engine.gpuRuntimePresent();
    }
    resources.gpus = gpus ? std::max(1, hostGpuCount()) : 0;
    return resources;
}

// The run's `docker run` arguments (the contract folders exist). What the script may write: its
// contract folders and the log (one file, which the container cannot replace by a link: a mount
// point), never the run folder itself. `secrets` is prepared when the run has secret values.
Expected<QStringList> containerRunFor(const RunDirectory &dir, const run::RunSpec &absolute, const env::Environment &e,
                                      const run::Resources &resources,
                                      const QList<std::pair<QString, QString>> &secretValues, const QString &engine,
                                      ContainerSecrets &secrets)
{
    const run::ContractPaths local = run::localContractPaths(dir.path(), absolute);
    for (const run::DataChannel &c : absolute.channels)
        QDir().mkpath(local.inputDir + u"/data/"_s + c.name); // mount points, inside the input mount
    if (const auto created = dir.appendToLog({}); !created)
        return created.error();
    const QString hostFile = QDir(dir.path()).filePath(run::kHostFactsFile);
    for (const QString &file : {dir.logTimesFile(), dir.systemSamplesFile(), hostFile}) { // mount points
        if (const auto created = appendToFileSafely(file, {}); !created)
            return created.error();
    }
    const run::ContractPaths inside = run::containerContractPaths(absolute);
    ContainerRun container;
    container.name = u"ferry-"_s + absolute.id;
    container.detached = true;
    container.image = env::imageReference(e);
    container.labels = {u"ferry.run-id="_s + absolute.id, u"ferry.image="_s + container.image};
    container.workdir = inside.codeDir;
    container.shmSize = e.docker.shmSize;
    container.gpus = resources.gpus > 0;
    if (::getuid() != 0 && QFileInfo(engine).fileName() != u"podman"_s) // files in the run folder stay the user's
        container.user = u"%1:%2"_s.arg(::getuid()).arg(::getgid());
    container.mounts = {{local.modelDir, inside.modelDir, false},
                        {local.outputDir, inside.outputDir, false},
                        {local.inputDir, inside.inputDir, true}, // Ferry wrote the config; the data is read-only
                        {local.checkpointsDir, inside.checkpointsDir, false},
                        {dir.logFile(), kFerryMount + u"/log"_s, false},
                        {dir.logTimesFile(), kFerryMount + u"/log.times"_s, false},
                        {dir.systemSamplesFile(), kFerryMount + u"/system.samples"_s, false},
                        {hostFile, kFerryMount + u'/' + run::kHostFactsFile, false},
                        // The working folder (run/workfolder.h): links into the read-only source.
                        {local.codeDir, inside.codeDir, false},
                        {absolute.sourceDir, kSourceMount, true}};
    for (qsizetype i = 0; i < absolute.channels.size(); ++i)
        container.mounts << ContainerMount{local.channelDirs.at(i).second, inside.channelDirs.at(i).second, true};
    const ContainerVariables variables =
        containerVariables(e, absolute.variables, run::contractEnvironment(absolute, inside, resources));
    container.variables = variables.variables;
    if (!secretValues.isEmpty()) {
        if (const auto prepared = secrets.prepare(secretValues, run::redactorOf(secretValues), dir.path()); !prepared)
            return prepared.error();
        container.rawMounts << secrets.mount();
        container.mounts << ContainerMount{QDir(dir.path()).filePath(ContainerSecrets::kEntryFile),
                                           kFerryMount + u'/' + ContainerSecrets::kEntryFile, true};
    }
    container.runArguments = e.docker.runArguments;
    const QString interpreter = !e.python.interpreterPath.isEmpty() ? e.python.interpreterPath
                                : absolute.interpreter.isEmpty()    ? u"python3"_s
                                                                    : absolute.interpreter;
    // Beside the script, Ferry's watcher dates the log's growth and samples the container's CPU,
    // memory and GPUs (remotescripts.h), into single-file mounts like the log. With secrets, the
    // entry (containersecrets.h) gives them to the script and redacts the log.
    // The host as the container sees it (run/hostfacts.h): its OS, the machine's CPU and GPUs.
    // Before the script, not beside it: the container ends with the script, and with it the facts.
    // With a cap, the container's own backstop (containerbudget.h) first, its clock the container's.
    const auto backstop = containerBackstopShell(absolute.budget, kFerryMount + u"/log"_s);
    if (!backstop)
        return backstop.error();
    const QString watch = *backstop + QString::fromLatin1(scripts::watcher) +
                          QString::fromLatin1(run::kHostFactsScript) +
                          u"ferry_host_facts > %1/host.txt 2>/dev/null\n"_s.arg(kFerryMount) +
                          u"ferry_watch %1/log %1/log.times %1/system.samples '' $$ &\n"_s.arg(kFerryMount);
    if (secretValues.isEmpty())
        container.command = {u"sh"_s, u"-c"_s, watch + u"exec \"$@\" >>%1/log 2>&1"_s.arg(kFerryMount), u"sh"_s};
    else
        container.command = QStringList{u"sh"_s, u"-c"_s, watch + u"exec \"$@\""_s, u"sh"_s} +
                            secrets.entryCommand(interpreter, kFerryMount, inside.failureFile());
    if (!variables.unshellable.isEmpty())
        container.command << u"env"_s << variables.unshellable;
    if (absolute.isKernel()) {
        // A kernel (docs/kernels.md): its keeper's folder and the sockets' folder Ferry made, mounted.
        const auto sockets = readRegularFile(QDir(dir.path()).filePath(run::kSocketsFile), 4096);
        if (!sockets || !*sockets)
            return Error{u"a kernel's run without its sockets' folder"_s, dir.path(), 0, 0, {}};
        container.mounts << ContainerMount{QDir(dir.path()).filePath(run::kKeeperFolder), run::kContainerKeeperMount,
                                           false}
                         << ContainerMount{QString::fromUtf8(**sockets).trimmed(), run::kContainerSocketsMount, false};
    }
    container.command << run::runCommand(absolute, interpreter, run::kContainerKeeperMount);
    return containerRunArguments(container);
}

} // namespace

ContainerTarget::ContainerTarget(const QString &engine, int buildTimeoutMs, QString ferryProgram)
    : m_buildTimeoutMs(buildTimeoutMs), m_ferryProgram(std::move(ferryProgram))
{
    if (auto opened = ContainerEngine::open(engine)) {
        m_cli = *opened;
        m_engine = m_cli->program();
    } else {
        m_engineError = opened.error();
    }
}

QString ContainerTarget::engineSettingFor(const run::TargetSpec &target, const QSettings &settings)
{
    return engineSettingFor(target, kContainerEngineSetting.get(settings));
}

QString ContainerTarget::engineSettingFor(const run::TargetSpec &target, const QString &configured)
{
    const QJsonValue recorded = target.options.value(kEngineOption);
    if (recorded.isUndefined())
        return configured;
    // A recorded value that is no string is refused like any other bad engine.
    return recorded.isString() ? recorded.toString() : u"(not a program name)"_s;
}

void ContainerTarget::recordIn(run::TargetSpec &target) const
{
    if (!m_engine.isEmpty())
        target.options.insert(kEngineOption, m_engine);
}

QString ContainerTarget::recordFile(const QString &runDir)
{
    return QDir(runDir).filePath(u"container.json"_s);
}

QJsonObject ContainerTarget::readRecord(const QString &runDir)
{
    const auto bytes = readRegularFile(recordFile(runDir), 1024 * 1024);
    return bytes && bytes->has_value() ? QJsonDocument::fromJson(**bytes).object() : QJsonObject();
}

Expected<void> ContainerTarget::engineProblem() const
{
    if (!m_engineError)
        return {};
    Error e = *m_engineError;
    e.message = u"cannot use the container engine: "_s + e.message;
    return e;
}

Expected<void> ContainerTarget::start(const QString &runDir, const run::RunSpec &spec)
{
    if (const auto acceptable = checkSpecFor(spec, run::TargetKind::Container, u"a container"_s); !acceptable)
        return acceptable;
    if (const auto usable = engineProblem(); !usable)
        return usable.error();
    if (spec.environmentFile.isEmpty())
        return Error{u"a container run needs an environment file"_s, {}, 0, 0, u"pass --env environments/NAME.yml"_s};
    if (spec.budget.limitSeconds() > 0 && m_ferryProgram.isEmpty())
        return Error{u"nothing here would hold the container run's budget (no ferry program to watch it)"_s,
                     {},
                     0,
                     0,
                     u"start it from ferry or its window"_s};
    const RunDirectory dir(runDir);
    auto claimed = dir.claim(spec);
    if (!claimed)
        return claimed.error();
    run::RunSpec absolute = std::move(*claimed);
    // The image is the environment's as it is now: its tag, recorded.
    const auto env = env::readEnvironment(absolute.environmentFile);
    if (!hasErrors(env.diagnostics) && env::imageTag(env.environment) != absolute.environmentTag) {
        absolute.environmentTag = env::imageTag(env.environment);
        if (const auto written = dir.writeSpec(absolute); !written)
            return written.error();
    }

    // From here on, a failure ends the run: the log and exit.json say why.
    for (const env::Diagnostic &d : env.diagnostics) {
        if (d.isError())
            return failRun(dir, Error{u"the environment cannot be used: "_s + d.toString(), absolute.environmentFile, 0,
                                      0, u"fix it (ferry env check FILE)"_s});
    }
    const env::Environment &e = env.environment;
    if (const auto allowed = checkRunArguments(e, absolute); !allowed)
        return failRun(dir, allowed.error());
    QJsonObject record{{u"engine"_s, m_engine},
                       {u"phase"_s, u"building"_s},
                       {u"starterPid"_s, static_cast<double>(::getpid())},
                       {u"starterTicks"_s,
                        static_cast<double>(run::processState(::getpid()).value_or(run::ProcessState{}).startTicks)}};
    const QString image = env::imageReference(e);
    record[u"image"_s] = image;
    if (!writeRecord(dir.path(), record))
        return failRun(dir, Error{u"cannot write container.json"_s, dir.path(), 0, 0, u"check permissions"_s});
    const auto resources = containerResources(*m_cli, e, absolute.environmentFile);
    if (!resources)
        return failRun(dir, resources.error());
    // The secrets are read now (a missing one fails the run before anything is built).
    const auto secretValues = run::readRunSecrets(absolute);
    if (!secretValues)
        return failRun(dir, secretValues.error());

    // 1. The image: built only when its tag is missing.
    QElapsedTimer clock;
    clock.start();
    const auto built = m_cli->ensureImage(
        e, absolute.environmentFile, QDir(dir.path()).filePath(u"image"_s), ImageStage::Runtime,
        [&dir](const QByteArray &lines) { appendToLog(dir, asNotes(lines)); }, m_buildTimeoutMs,
        [&dir] { return QFileInfo::exists(dir.exitFile()); }); // cancelled meanwhile
    if (!built)
        return failRun(dir, built.error());
    record[u"built"_s] = built->built;
    record[u"buildSteps"_s] = built->buildSteps;
    record[u"buildMs"_s] = static_cast<double>(built->elapsedMs);
    // What the image is: its id and resolved packages (imagerecord.h), for a rerun to compare.
    if (const auto facts = recordImageFacts(*m_cli, built->reference, dir.path()); facts)
        record[u"imageId"_s] = facts->id;
    else
        note(dir, u"the image's id and packages are not recorded: "_s + facts.error().message);

    // 2. The contract folders and the script's working folder.
    if (const auto prepared = run::prepareContractFolders(dir.path(), absolute, *resources); !prepared)
        return failRun(dir, prepared.error());
    const auto work = run::prepareWorkFolder(run::localContractPaths(dir.path(), absolute).codeDir, absolute.sourceDir,
                                             [](const QString &name) -> QString { return kSourceMount + u'/' + name; });
    if (!work)
        return failRun(dir, work.error());

    // 3. The container.
    ContainerSecrets secrets;
    const auto args = containerRunFor(dir, absolute, e, *resources, *secretValues, m_engine, secrets);
    if (!args)
        return failRun(dir, args.error());
    if (QFileInfo::exists(dir.exitFile())) { // cancelled while the image was built
        note(dir, u"cancelled before the container started"_s);
        (void)run::finalize(dir.path());
        return Error{u"the run was cancelled before it started"_s, dir.path(), 0, 0, {}};
    }
    const QString name = u"ferry-"_s + absolute.id;
    note(dir, u"starting container %1"_s.arg(name));
    const EngineResult started = runEngine(*m_cli, *args, kQuickMs);
    if (!started.ok()) {
        (void)runEngine(*m_cli, {u"rm"_s, u"-f"_s, name}, kQuickMs); // one that was created but did not start
        return failRun(dir, engineError(*m_cli, u"cannot start the container"_s, *args, started));
    }
    // The budget's watcher, from the container's start: it holds the cap with Ferry closed.
    if (spec.budget.limitSeconds() > 0) {
        if (const auto watcher = startContainerBudgetWatcher(dir.path(), m_ferryProgram, m_engine, record); !watcher) {
            (void)cancel(dir.path(), 0); // a cap nobody holds is a promise not kept
            return watcher.error();
        }
    }
    if (!secretValues->isEmpty() && !secrets.waitUntilTaken(kSecretsTakenMs))
        note(dir,
             u"the container did not read its secrets within %1 s; they were removed"_s.arg(kSecretsTakenMs / 1000));
    record[u"phase"_s] = u"started"_s;
    record[u"containerId"_s] = QString::fromUtf8(started.out).trimmed();
    record[u"containerName"_s] = name;
    record[u"gpus"_s] = resources->gpus > 0;
    record[u"startMs"_s] = static_cast<double>(clock.elapsed());
    if (!writeRecord(dir.path(), record))
        note(dir, u"cannot write container.json; the run goes on"_s);
    (void)dir.touchHeartbeat(run::nowMs());
    return {};
}

Expected<RunProbe> ContainerTarget::probe(const QString &runDir)
{
    const RunDirectory dir(runDir);
    if (!QFileInfo::exists(dir.specFile()))
        return noRunFolder(dir);
    const auto spec = dir.readSpec();
    if (!spec)
        return spec.error();
    if (const auto usable = engineProblem(); !usable)
        return usable.error();
    const QJsonObject record = readRecord(dir.path());
    const ContainerEngine &engine = *m_cli; // from the settings or the run store, never from the run folder
    const auto exitBefore = dir.readExit();
    if (!exitBefore)
        return exitBefore.error();

    RunProbe status;
    const auto containers = containersOf(engine, spec->id);
    std::optional<QJsonObject> state;
    QString containerId;
    std::optional<Error> unknown; // the engine did not answer: nothing can be said of the container
    if (!containers) {
        unknown = containers.error();
    } else if (!containers->isEmpty()) {
        containerId = containers->first();
        if (const auto s = containerState(engine, containerId); s)
            state = *s;
        else
            unknown = s.error();
    }
    const bool active = state && isActive(*state);

    if (!exitBefore->has_value()) {
        if (active || unknown || (containerId.isEmpty() && stillStarting(record))) {
            status.state = RunState::Running;
            if (active)
                (void)dir.touchHeartbeat(run::nowMs()); // the engine says it is alive
            if (active && spec->budget.limitSeconds() > 0)
                keepBudgetWatched(dir, record);
            status.heartbeatMs = dir.heartbeatMs();
            status.detail = unknown ? unknown->toString() : active ? QString() : u"building the image"_s;
            return status;
        }
        if (state) // it ended: record how (unless a concurrent probe or cancel did first)
            dir.recordEnd(exitOf(*state, dir, spec->budget));
    }
    const auto exit = dir.readExit();
    if (!exit)
        return exit.error();
    status.heartbeatMs = dir.heartbeatMs();
    if (!exit->has_value()) {
        status.state = RunState::Lost;
        status.detail = record.contains(u"containerId"_s)
                            ? u"the run's container %1 is gone and left no exit record"_s.arg(
                                  record.value(u"containerName"_s).toString())
                            : u"the run never started a container"_s;
        return status;
    }
    status.exit = **exit;
    status.state = stateOf(**exit);
    if (active || unknown) { // a cancel is stopping it: the archives come once it has stopped
        status.archived = QFileInfo::exists(dir.modelArchive()) && QFileInfo::exists(dir.outputArchive());
        if (unknown)
            status.detail = unknown->toString();
        return status;
    }
    if (!containerId.isEmpty()) { // its exit code is recorded: the container can go
        const QStringList args{u"rm"_s, u"-f"_s, containerId};
        if (const EngineResult r = runEngine(engine, args, kQuickMs); !r.ok())
            status.detail = engineError(engine, u"cannot remove the container"_s, args, r).toString();
    }
    status.archived = QFileInfo::exists(dir.modelArchive()) && QFileInfo::exists(dir.outputArchive());
    if (!status.archived) {
        const auto packed = run::finalize(dir.path());
        status.archived = packed.hasValue();
        if (!packed)
            status.detail = packed.error().toString();
    }
    return status;
}

void ContainerTarget::keepBudgetWatched(const RunDirectory &dir, QJsonObject record)
{
    // A run of an earlier Ferry (no watcher recorded) or one probed without the ferry program (a
    // test's) is left as it is; a watcher that is gone (killed, the machine's OOM killer) is started
    // again: its clock is the container's, so the cap stays where it was.
    if (m_ferryProgram.isEmpty() || !hasContainerBudgetWatcher(record) || containerBudgetWatcherAlive(record))
        return;
    if (const auto watcher = startContainerBudgetWatcher(dir.path(), m_ferryProgram, m_engine, record); !watcher) {
        note(dir, u"the budget's watcher is gone and cannot be started again: "_s + watcher.error().toString());
        return;
    }
    note(dir, u"the budget's watcher was gone: started again"_s);
    if (!writeRecord(dir.path(), record))
        note(dir, u"cannot write container.json"_s);
}

Expected<qint64> ContainerTarget::scriptStartedMs(const QString &runDir)
{
    const RunDirectory dir(runDir);
    const auto spec = dir.readSpec();
    if (!spec)
        return spec.error();
    if (const auto usable = engineProblem(); !usable)
        return usable.error();
    const auto containers = containersOf(*m_cli, spec->id);
    if (!containers)
        return containers.error();
    if (containers->isEmpty())
        return Error{u"the run has no container"_s, runDir, 0, 0, {}};
    const auto state = containerState(*m_cli, containers->first());
    if (!state)
        return state.error();
    if (const qint64 at = startedAtMs(*state); at > 0)
        return at;
    return Error{u"the engine did not say when the container started"_s, runDir, 0, 0, {}};
}

Expected<RunProbe> ContainerTarget::cancel(const QString &runDir, int graceMs)
{
    return stop(runDir, graceMs, ExitRecord{-1, SIGTERM, 0, true, {}},
                u"the grace of %1 s has passed: the engine sent SIGKILL"_s.arg((std::max(0, graceMs) + 999) / 1000));
}

Expected<RunProbe> ContainerTarget::stop(const QString &runDir, int graceMs, const run::ExitRecord &ended,
                                         const QString &killedLine)
{
    const RunDirectory dir(runDir);
    const auto hasEnded = runHasEnded(dir);
    if (!hasEnded)
        return hasEnded.error();
    const auto spec = dir.readSpec();
    if (!spec)
        return spec.error();
    if (const auto usable = engineProblem(); !usable)
        return usable.error();
    if (*hasEnded)
        return probe(runDir);               // it has ended already (probe removes what is left)
    const ContainerEngine &engine = *m_cli; // from the settings or the run store, never from the run folder
    const auto containers = containersOf(engine, spec->id);
    if (!containers)
        return containers.error();
    if (containers->isEmpty()) {
        dir.recordEnd(ExitRecord{-1, 0, 0, true, u"cancelled before it started"_s});
        return probe(runDir);
    }
    // An end that came before the cancel is recorded as it was.
    for (const QString &id : *containers) {
        if (const auto s = containerState(engine, id); s && !isActive(*s))
            return probe(runDir);
    }
    // The cancel is recorded first, so that no probe takes the stop for the script's own end.
    dir.recordEnd(ended);
    const int graceS = (std::max(0, graceMs) + 999) / 1000;
    for (const QString &id : *containers) {
        const QStringList stop{u"stop"_s, u"-t"_s, QString::number(graceS), id};
        const EngineResult stopped = runEngine(engine, stop, graceS * 1000 + kStopExtraMs);
        // Docker's init reports the engine's SIGKILL as 128 + 9, as a script killed by signal 9.
        if (const auto s = containerState(engine, id);
            s && stopped.ok() && s->value(u"ExitCode"_s).toInt() == 128 + SIGKILL && !killedLine.isEmpty())
            note(dir, killedLine);
        const QStringList rm{u"rm"_s, u"-f"_s, id};
        const EngineResult removed = runEngine(engine, rm, kQuickMs);
        if (!removed.ok())
            return engineError(engine, u"cannot remove the run's container"_s, rm, removed);
        if (!stopped.ok())
            note(dir, engineError(engine, u"stopping the container"_s, stop, stopped).toString());
    }
    note(dir, u"stopped; container removed"_s);
    if (const auto packed = run::finalize(dir.path()); !packed)
        note(dir, packed.error().toString()); // the cancel stands; probe says what is missing
    return probe(runDir);
}

} // namespace ferry::targets
