#include "kernelhost/kernelhost.h"

#include "common/privatedir.h"
#include "common/safefile.h"
#include "cost/budget.h"
#include "kernelhost/kernelconnection.h"
#include "kernelhost/kernellink.h"
#include "kernels/connectionfile.h"
#include "kernels/keeper.h"
#include "metrics/systemsamples.h"
#include "run/rundirectory.h"
#include "run/runenvironment.h"
#include "run/runsecrets.h"
#include "secrets/redactor.h"
#include "store/runstore.h"
#include "targets/remotetarget.h"
#include "targets/targetfactory.h"
#include "tracking/idlegpu.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QThread>

#include <algorithm>
#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

// The last lines of a file for a message (what a kernel or its keeper said before it ended).
QString lastLinesOf(const QString &path, int lines = 12)
{
    const auto bytes = readRegularFileHead(path, 4 << 20);
    if (!bytes || !*bytes)
        return {};
    QStringList all = QString::fromUtf8(**bytes).split(u'\n', Qt::SkipEmptyParts);
    return all.mid(std::max<qsizetype>(0, all.size() - lines)).join(u'\n');
}

// Whether the kernel's Python lacked ipykernel: its words, in the lines it left.
bool lacksIpykernel(const QString &text)
{
    return text.contains(u"No module named ipykernel"_s) || text.contains(u"No module named 'ipykernel"_s);
}

Error kernelEndedError(const KernelFolder &folder, const KernelEnd &end, const run::RunSpec &spec)
{
    const QString lines = end.logLines.isEmpty() ? lastLinesOf(folder.kernelLogFile()) : end.logLines.join(u'\n');
    if (lacksIpykernel(lines)) {
        if (spec.environmentFile.isEmpty()) // this machine's Python, no environment file to change
            return Error{u"this machine's %1 has no ipykernel, which a kernel needs"_s.arg(spec.interpreter),
                         folder.kernelLogFile(), 0, 0,
                         u"give an environment that has it (--env ENV.yml; `ferry env add ENV.yml ipykernel` adds it "
                         "as a new version), or install it for %1 (python3 -m pip install ipykernel, or Debian's "
                         "python3-ipykernel); Ferry never installs it on its own"_s.arg(spec.interpreter)};
        return Error{u"the environment's Python (%1) has no ipykernel, which a kernel needs"_s.arg(spec.interpreter),
                     spec.environmentFile, 0, 0,
                     u"add it: `ferry env add %1 ipykernel` makes a new version of the environment (the earlier one "
                     "is kept); or pick an environment that has it. Ferry never installs it on its own"_s.arg(
                         spec.environmentFile)};
    }
    return Error{endSentence(end) + u", before it was ready"_s + (lines.isEmpty() ? QString() : u":\n"_s + lines),
                 folder.kernelLogFile(),
                 0,
                 0,
                 {}};
}

// An end the keeper could not say better: killed with the kernel, or by what it could not see.
bool isVague(const KernelEnd &end)
{
    static const QStringList vague{u"terminated"_s, u"signal"_s, u"keeper-failed"_s};
    return vague.contains(end.reason);
}

// A local keeper's pid, when it is still the process keeper.json names.
std::optional<KeeperRecord> liveLocalKeeper(const KernelFolder &folder)
{
    const auto keeper = folder.readKeeper();
    if (!keeper || !*keeper)
        return std::nullopt;
    if ((*keeper)->bootId != run::currentBootId() ||
        !run::isSameLiveProcess((*keeper)->keeperPid, (*keeper)->keeperStartTicks))
        return std::nullopt;
    return **keeper;
}

// What is left of the kernel's processes (its own session, which the keeper made) after a stop:
// killed, so a stop leaves nothing behind even when the keeper could not finish.
void killKernelLeftovers(const KernelFolder &folder, const run::RunSpec &spec)
{
    if (spec.target.kind != run::TargetKind::Local) // a container's end, a host's cancel: theirs
        return;
    const auto keeper = folder.readKeeper();
    if (!keeper || !*keeper || (*keeper)->bootId != run::currentBootId())
        return;
    const qint64 pid = (*keeper)->kernelPid;
    for (const qint64 member : run::liveGroupMembers(pid, pid))
        ::kill(pid_t(member), SIGKILL);
}

// The keeper's signal, where it runs: this machine's keeper directly, a host's through SSH.
Expected<void> signalKeeper(const QString &path, int signal, const QString &ferryBinary)
{
    const KernelFolder folder(path);
    const auto spec = run::RunDirectory(path).readSpec();
    if (!spec)
        return spec.error();
    if (spec->target.onHost())
        return signalHostKeeper(folder, *spec, QString::fromLatin1(sigabbrev_np(signal)),
                                ferryBinary.isEmpty() ? QCoreApplication::applicationFilePath() : ferryBinary);
    if (spec->target.kind != run::TargetKind::Local)
        return Error{
            u"signals reach only kernels on this machine, SSH hosts and Slurm nodes so far (this one runs on %1)"_s.arg(
                spec->target.toString()),
            path,
            0,
            0,
            {}};
    const auto keeper = liveLocalKeeper(folder);
    if (!keeper)
        return Error{u"the kernel's keeper is not running"_s, path, 0, 0, u"`ferry kernel show` says how it ended"_s};
    if (::kill(pid_t(keeper->keeperPid), signal) != 0)
        return Error{u"cannot signal the kernel's keeper: "_s + errnoText(), path, 0, 0, {}};
    return {};
}

// The folder Ferry made for the kernel's sockets (a container's mount, an SSH link's forwards):
// removed with the kernel, when it is Ferry's own (in the runtime folder's ferry-kernels/).
void removeLocalSocketDir(const KernelFolder &folder)
{
    const QString dir = folder.ferrySocketDir();
    const auto runtime = privateRuntimeDir();
    if (dir.isEmpty() || !runtime || QDir::cleanPath(dir) != *runtime + u"/ferry-kernels/"_s + folder.id())
        return;
    if (entryKind(dir) == EntryKind::Directory)
        QDir(dir).removeRecursively();
}

} // namespace

int defaultIdleStopMinutes(run::TargetKind kind)
{
    return kind == run::TargetKind::Ssh || kind == run::TargetKind::Slurm ? 60 : 0;
}

QString newKernelId()
{
    return run::newRunId(u"kernel"_s);
}

Expected<run::RunSpec> kernelSpec(const QString &id, const KernelRequest &request)
{
    run::RunSpec spec;
    spec.id = id;
    spec.sourceDir =
        QFileInfo(request.workingFolder.isEmpty() ? QDir::currentPath() : request.workingFolder).absoluteFilePath();
    spec.channels = request.channels;
    spec.target = request.target;
    if (!request.environmentFile.isEmpty()) {
        const Diagnostics diagnostics = run::applyEnvironmentFile(spec, request.environmentFile);
        for (const Diagnostic &d : diagnostics)
            if (d.isError())
                return d.where.path.isEmpty() ? Error{d.where.message, request.environmentFile, 0, 0, d.where.hint}
                                              : d.where;
    }
    spec.secretVariables << request.secretVariables;
    const double idle =
        request.idleStopMinutes >= 0 ? request.idleStopMinutes : defaultIdleStopMinutes(spec.target.kind);
    spec.keeperArguments =
        QStringList{u"run"_s, u"{kernel}"_s,     u"--idle-stop"_s, QString::number(qRound64(idle * 60)),
                    u"--"_s,  u"{interpreter}"_s} +
        request.kernelArguments;
    return spec;
}

Expected<KernelFolder> startKernel(const QString &kernelsDir, const KernelRequest &request, const QString &ferryBinary,
                                   int timeoutMs)
{
    // A kernel spends the workspace's month as a run does (cost/budget.h): none starts once it is
    // spent. The store is opened only when there is a month's budget to judge.
    if (const auto month = cost::monthBudgetInForce(QFileInfo(kernelsDir).path(), QSettings());
        !month || month->budget) {
        const QString workspaceRoot = QDir::cleanPath(kernelsDir + u"/../.."_s); // <root>/.ferry/kernels
        const auto store = run::RunStore::open(run::RunStore::pathInWorkspace(workspaceRoot));
        if (!store)
            return store.error();
        if (const auto left =
                cost::checkMonthBudget(**store, kernelsDir, QSettings(), QDateTime::currentMSecsSinceEpoch());
            !left)
            return left.error();
    }
    const QString id = newKernelId();
    auto spec = kernelSpec(id, request);
    if (!spec)
        return spec.error();
    if (const auto checked = checkKernelTarget(*spec); !checked)
        return checked.error();
    if (!QDir().mkpath(kernelsDir))
        return Error{u"cannot create the kernels' folder"_s, kernelsDir, 0, 0, {}};
    const KernelFolder folder(KernelFolder::pathFor(kernelsDir, id));
    if (auto made = ensurePrivateDir(folder.path()); !made)
        return made.error();
    if (auto made = ensurePrivateDir(folder.keeperDir()); !made)
        return made.error();
    // The sockets: a short private folder on the kernel's machine (a socket path holds ~100 bytes).
    const auto runtime = privateRuntimeDir();
    if (!runtime)
        return runtime.error();
    const QString socketDir = *runtime + u"/ferry-kernels/"_s + id;
    if (spec->target.kind != run::TargetKind::Local) { // the kernel binds elsewhere: Ferry's side is made here
        if (auto made = ensurePrivateDir(*runtime + u"/ferry-kernels"_s); !made)
            return made.error();
        if (auto made = ensurePrivateDir(socketDir); !made)
            return made.error();
    }
    const ConnectionInfo connection =
        ConnectionInfo::ipc(kernelSideSocketDir(*spec, socketDir) + u"/k"_s, u"python3"_s);
    if (auto written = connection.write(folder.connectionFile()); !written)
        return written.error();
    if (auto written = createNewFile(folder.socketsFile(), socketDir.toUtf8() + '\n', 0600); !written)
        return written.error();
    if (auto written = createNewFile(folder.keeperDir() + u'/' + run::kKeeperFile, keeperSource(), 0600); !written)
        return written.error();
    if (!spec->secretVariables.isEmpty()) {
        // The keeper hides the secrets' values (every encoding Ferry's redactor knows) in the journal.
        const auto values = run::readRunSecrets(*spec);
        if (!values)
            return values.error();
        QByteArray lines;
        const secrets::Redactor redactor = run::redactorOf(*values);
        for (const QByteArray &pattern : redactor.patterns())
            lines += pattern.toHex() + '\n';
        if (auto written = createNewFile(folder.redactFile(), lines, 0600); !written)
            return written.error();
    }

    const auto target = targets::makeTarget(spec->target, ferryBinary);
    if (!target)
        return Error{u"no target for %1"_s.arg(spec->target.toString()), {}, 0, 0, {}};
    if (auto *remote = dynamic_cast<targets::RemoteTarget *>(target.get()); remote && request.progress)
        remote->setProgress(request.progress);
    if (auto started = target->start(folder.path(), *spec); !started)
        return withContext(u"the kernel's run did not start"_s, started.error());

    QElapsedTimer clock;
    clock.start();
    QString queued; // what Slurm said of the job while it waited, last
    while (clock.elapsed() < timeoutMs) {
        refreshKernelRecords(folder, *spec, ferryBinary); // a host's records: their copies here
        if (auto end = folder.readEnd(); end && *end)
            return kernelEndedError(folder, **end, *spec);
        if (auto keeper = folder.readKeeper(); keeper && *keeper)
            return folder;
        auto probe = target->probe(folder.path());
        if (probe && probe->queued) { // the allocation is not there yet: its wait is not the kernel's
            clock.restart();
            if (request.progress && probe->detail != queued)
                request.progress(u"waiting in Slurm's queue: "_s + probe->detail);
            queued = probe->detail;
        }
        if (probe && probe->finished()) {
            if (auto end = folder.readEnd(); end && *end)
                return kernelEndedError(folder, **end, *spec);
            const QString log = lastLinesOf(run::RunDirectory(folder.path()).logFile());
            return Error{
                u"the kernel's keeper ended before it started the kernel%1"_s.arg(
                    log.isEmpty() ? (probe->detail.isEmpty() ? QString() : u": "_s + probe->detail) : u":\n"_s + log),
                run::RunDirectory(folder.path()).logFile(),
                0,
                0,
                {}};
        }
        QThread::msleep(spec->target.onHost() ? 200 : 50);
    }
    // Which step hung: the keeper (no status.json: it never ran) or the kernel (it never opened
    // its sockets, so the keeper could not subscribe).
    const bool keeperRan = entryKind(folder.statusFile()) == EntryKind::RegularFile;
    (void)target->cancel(folder.path(), 2000);
    killKernelLeftovers(folder, *spec);
    if (keeperRan) {
        const QString log = lastLinesOf(folder.kernelLogFile());
        return Error{u"the kernel did not open its sockets within %1 s, so it was stopped%2"_s.arg(timeoutMs / 1000)
                         .arg(log.isEmpty() ? QString() : u"; its last lines:\n"_s + log),
                     folder.kernelLogFile(), 0, 0, u"its command: %1"_s.arg(request.kernelArguments.join(u' '))};
    }
    return Error{u"the kernel's keeper did not start within %1 s, so the run was stopped"_s.arg(timeoutMs / 1000),
                 run::RunDirectory(folder.path()).logFile(), 0, 0, u"the run's log says what it did"_s};
}

Expected<KernelSummary> describeKernel(const QString &path, const QString &ferryBinary)
{
    const KernelFolder folder(path);
    const auto spec = run::RunDirectory(path).readSpec();
    if (!spec)
        return spec.error();
    if (!spec->isKernel())
        return Error{u"not a kernel's folder (its spec starts no keeper)"_s, path, 0, 0, {}};
    refreshKernelRecords(folder, *spec, ferryBinary);
    KernelSummary summary;
    summary.id = spec->id;
    summary.folder = path;
    summary.target = spec->target;
    summary.environmentFile = spec->environmentFile;
    summary.interpreter = spec->interpreter;
    summary.workingFolder = spec->sourceDir;
    if (const auto keeper = folder.readKeeper(); keeper && *keeper) {
        summary.startedMs = (*keeper)->startedMs;
        summary.restarts = (*keeper)->restarts;
    }
    if (const auto status = folder.readStatus(); status && *status) {
        summary.state = (*status)->state;
        summary.lastActivityMs = (*status)->lastActivityMs;
        summary.memoryBytes = (*status)->memoryBytes;
        summary.peakMemoryBytes = (*status)->peakMemoryBytes;
    }
    // Why the place it ran ended the run (a Slurm time limit, memory, node), which the keeper,
    // killed with it, could only call "terminated" or a signal.
    const auto placeCause = [&](KernelEnd &end) {
        const auto exit = run::RunDirectory(path).readExit();
        if (exit && *exit && !(*exit)->cause.isEmpty() && isVague(end)) {
            end.reason = (*exit)->cause;
            end.detail = (*exit)->error;
        }
    };
    if (auto end = folder.readEnd(); end && *end) {
        summary.end = **end;
        // A vague end on a host whose run's record is not here yet: the target's probe collects it
        // once the place is done with the run (a Slurm job's state says why it ended).
        if (spec->target.onHost() && isVague(*summary.end) &&
            entryKind(run::RunDirectory(path).exitFile()) == EntryKind::Missing) {
            if (const auto target = targets::makeTarget(spec->target, ferryBinary))
                (void)target->probe(path);
        }
        placeCause(*summary.end);
        summary.state = u"dead"_s;
        summary.memoryBytes = 0;
        summary.peakMemoryBytes = std::max(summary.peakMemoryBytes, (*end)->peakMemoryBytes);
        return summary;
    }
    const auto target = targets::makeTarget(spec->target, ferryBinary);
    const auto probe = target ? target->probe(path) : Expected<targets::RunProbe>(Error{});
    if (probe && !probe->finished()) {
        if (summary.state.isEmpty())
            summary.state = u"starting"_s;
        summary.gpu = lastGpuUse(run::RunDirectory(path).systemSamplesFile());
        return summary;
    }
    // The keeper is gone without its record: what the run's records say.
    KernelEnd end;
    end.reason = u"keeper-failed"_s;
    if (probe && probe->exit) {
        end.exitCode = probe->exit->exitCode;
        end.signal = probe->exit->signal;
        end.finishedMs = probe->exit->finishedMs;
        if (probe->exit->cancelled)
            end.reason = u"stopped"_s;
    }
    end.detail =
        probe ? (probe->detail.isEmpty() ? u"the keeper ended without recording the kernel's end"_s : probe->detail)
              : probe.error().message;
    end.lastLines = lastLinesOf(folder.kernelLogFile()).split(u'\n', Qt::SkipEmptyParts);
    end.logLines = end.lastLines;
    placeCause(end);
    summary.end = end;
    summary.state = u"dead"_s;
    summary.memoryBytes = 0;
    return summary;
}

KernelEnd explainedEnd(const QString &path, const KernelEnd &end, const QString &ferryBinary, int waitMs)
{
    const auto spec = run::RunDirectory(path).readSpec();
    if (!isVague(end) || !spec || spec->target.kind != run::TargetKind::Slurm) // the place with words of its own
        return end;
    QElapsedTimer clock;
    clock.start();
    KernelEnd best = end;
    for (;;) {
        if (const auto now = describeKernel(path, ferryBinary); now && now->end)
            best = *now->end;
        if (!isVague(best) || entryKind(run::RunDirectory(path).exitFile()) != EntryKind::Missing ||
            clock.elapsed() >= waitMs)
            return best;
        QThread::msleep(500);
    }
}

std::optional<GpuUse> lastGpuUse(const QString &samplesFile)
{
    QFile file(samplesFile);
    if (entryKind(samplesFile) != EntryKind::RegularFile || !file.open(QIODevice::ReadOnly))
        return std::nullopt;
    // The last blocks only: from the first block that starts in the file's last 64 KiB.
    const qint64 from = std::max<qint64>(0, file.size() - (64 << 10));
    file.seek(from);
    QByteArray tail = file.readAll();
    if (from > 0) {
        const qsizetype start = tail.indexOf("\nsample ");
        if (start < 0)
            return std::nullopt;
        tail.remove(0, start + 1);
    }
    run::SystemSamplesReader reader;
    const QList<run::MetricPoint> points = reader.feed(tail);
    if (points.isEmpty())
        return std::nullopt;
    const double lastStep = points.last().step;
    GpuUse use;
    double utilization = 0;
    run::IdleGpuWatch idle(std::numeric_limits<qint64>::max()); // only its stretches' starts
    qint64 idleSince = 0;
    bool allIdle = true;
    static const QRegularExpression gpuMetric(u"^system/gpu(\\d+)/(memory_used_mib|utilization_percent)$"_s);
    for (const run::MetricPoint &point : points) {
        const auto gpu = run::gpuOfUtilizationMetric(point.name);
        if (gpu)
            (void)idle.sample(*gpu, point.value, point.wallMs);
        if (point.step != lastStep)
            continue;
        if (gpu) {
            const auto since = idle.idleSince(*gpu);
            allIdle = allIdle && since;
            idleSince = since ? std::max(idleSince, *since) : idleSince;
        }
        const auto match = gpuMetric.match(point.name);
        if (!match.hasMatch())
            continue;
        if (match.captured(2) == u"memory_used_mib") {
            ++use.gpus;
            use.memoryUsedMiB += point.value;
        } else if (!std::isnan(point.value)) {
            utilization += point.value;
        }
    }
    if (use.gpus == 0)
        return std::nullopt;
    use.utilizationPercent = utilization / use.gpus;
    if (allIdle && idleSince > 0)
        use.idleMs = points.last().wallMs - idleSince;
    return use;
}

QList<KernelSummary> listKernels(const QString &kernelsDir, const QString &ferryBinary, QList<Error> *problems)
{
    QList<KernelSummary> kernels;
    const QStringList ids =
        QDir(kernelsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    for (const QString &id : ids) {
        auto summary = describeKernel(KernelFolder::pathFor(kernelsDir, id), ferryBinary);
        if (summary)
            kernels << *summary;
        else if (problems)
            *problems << summary.error();
    }
    return kernels;
}

QList<KernelSession> kernelSessions(const QString &kernelsDir, const QString &ferryBinary, QList<Error> *problems)
{
    QList<KernelSession> sessions;
    for (const KernelSummary &k : listKernels(kernelsDir, ferryBinary, problems)) {
        const auto spec = run::RunDirectory(k.folder).readSpec();
        if (!spec) {
            if (problems)
                *problems << spec.error();
            continue;
        }
        const qint64 end = k.alive() ? 0 : (k.end && k.end->finishedMs > 0 ? k.end->finishedMs : k.lastActivityMs);
        sessions << KernelSession{k.id, *spec, k.startedMs, end};
    }
    return sessions;
}

Expected<QString> findKernel(const QString &kernelsDir, const QString &idOrPrefix)
{
    const QStringList ids =
        QDir(kernelsDir).entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks, QDir::Name);
    if (ids.contains(idOrPrefix))
        return KernelFolder::pathFor(kernelsDir, idOrPrefix);
    QStringList matches;
    for (const QString &id : ids)
        if (!idOrPrefix.isEmpty() && (id.startsWith(idOrPrefix) || id.endsWith(idOrPrefix)))
            matches << id;
    if (matches.size() == 1)
        return KernelFolder::pathFor(kernelsDir, matches.first());
    if (matches.isEmpty())
        return Error{u"no kernel '%1'"_s.arg(idOrPrefix), kernelsDir, 0, 0, u"`ferry kernel list` shows the kernels"_s};
    return Error{u"'%1' names %2 kernels: %3"_s.arg(idOrPrefix).arg(matches.size()).arg(matches.join(u", "_s)),
                 kernelsDir, 0, 0, u"give more of the id"_s};
}

Expected<KernelSummary> stopKernel(const QString &path, const QString &ferryBinary, int graceMs)
{
    const KernelFolder folder(path);
    const auto spec = run::RunDirectory(path).readSpec();
    if (!spec)
        return spec.error();
    const auto before = describeKernel(path, ferryBinary);
    if (!before)
        return before.error();
    if (!before->alive()) {
        killKernelLeftovers(folder, *spec);
        (void)releaseKernelHost(folder, *spec, ferryBinary);
        return before;
    }
    // The keeper says "stopped" (not "terminated") when this file is there (on a host: there too).
    if (entryKind(folder.stopRequestFile()) == EntryKind::Missing)
        (void)createNewFile(folder.stopRequestFile(), QByteArray::number(run::nowMs()), 0600);
    (void)requestStopOnHost(folder, *spec, ferryBinary); // unreachable: the cancel says so
    const auto target = targets::makeTarget(before->target, ferryBinary);
    if (!target)
        return Error{u"no target for %1"_s.arg(before->target.toString()), path, 0, 0, {}};
    const auto cancelled = target->cancel(path, graceMs);
    killKernelLeftovers(folder, *spec);
    // Ferry's own socket folder for a kernel elsewhere (a container's mount): empty now.
    if (before->target.kind != run::TargetKind::Local && !folder.ferrySocketDir().isEmpty())
        QDir().rmdir(folder.ferrySocketDir());
    if (!cancelled)
        return cancelled.error();
    // On a host: its socket folder gone, the journal's and the records' copies brought to the end.
    if (const auto released = releaseKernelHost(folder, *spec, ferryBinary); !released)
        return released.error();
    if (auto end = folder.readEnd(); end && !*end) {
        // The keeper could not record it (killed within the grace): Ferry does.
        const QByteArray record =
            QByteArrayLiteral("{\"reason\": \"stopped\", \"exitCode\": -1, \"signal\": 9, \"finishedMs\": ") +
            QByteArray::number(run::nowMs()) +
            QByteArrayLiteral(", \"detail\": \"stopped by Ferry; its keeper did not record the end\"}");
        (void)createNewFile(folder.endFile(), record, 0600);
    }
    return describeKernel(path, ferryBinary);
}

Expected<void> restartKernel(const QString &path, const QString &ferryBinary, int timeoutMs)
{
    const KernelFolder folder(path);
    const auto before = describeKernel(path, ferryBinary);
    if (!before)
        return before.error();
    if (!before->alive())
        return Error{endSentence(*before->end), path, 0, 0, u"`ferry kernel start` starts a new one"_s};
    auto connection = KernelConnection::open(path, -1, ferryBinary);
    if (!connection)
        return connection.error();
    (*connection)->client().shutdown(true);
    // The keeper's records (on a host: copied here each turn), not the whole description: no probe of
    // the target each turn.
    const auto spec = run::RunDirectory(path).readSpec();
    if (!spec)
        return spec.error();
    QElapsedTimer clock;
    clock.start();
    while (clock.elapsed() < timeoutMs) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 100);
        (*connection)->keepLinked();
        QThread::msleep(50);
        refreshKernelRecords(folder, *spec, ferryBinary);
        if (const auto end = folder.readEnd(); end && *end)
            return Error{endSentence(**end) + u", instead of restarting"_s, path, 0, 0, {}};
        const auto keeper = folder.readKeeper();
        if (!keeper || !*keeper || (*keeper)->restarts <= before->restarts)
            continue;
        // The keeper counts the restart once the new kernel's iopub is bound, which is before the
        // kernel answers (its sockets on a host are reached through forwards that connect again):
        // done once it answers a request sent now, which only the new kernel can have had.
        const auto ready = (*connection)->waitReady(int(std::max<qint64>(1000, timeoutMs - clock.elapsed())));
        if (!ready)
            return Error{u"the kernel restarted, but "_s + ready.error().message, ready.error().path, 0, 0,
                         ready.error().hint};
        return {};
    }
    return Error{u"the kernel did not restart within %1 s"_s.arg(timeoutMs / 1000), path, 0, 0,
                 u"`ferry kernel stop` stops it"_s};
}

Expected<void> interruptKernelBySignal(const QString &folder, const QString &ferryBinary)
{
    return signalKeeper(folder, SIGUSR1, ferryBinary);
}

Expected<void> removeKernel(const QString &path, const QString &ferryBinary)
{
    const auto summary = describeKernel(path, ferryBinary);
    if (summary && summary->alive()) {
        if (auto stopped = stopKernel(path, ferryBinary); !stopped)
            return stopped.error();
    }
    // The run's own end (its supervisor writing exit.json and packing) finishes before the folder goes.
    if (summary) {
        if (const auto target = targets::makeTarget(summary->target, ferryBinary)) {
            QElapsedTimer clock;
            clock.start();
            for (;;) {
                const auto probe = target->probe(path);
                if (!probe || (probe->finished() && probe->archived) || clock.elapsed() > 30000)
                    break;
                QThread::msleep(50);
            }
        }
    }
    if (summary && summary->target.onHost()) { // the run's folder on the host, journal and all
        if (const auto target = targets::makeTarget(summary->target, ferryBinary)) {
            if (auto *remote = dynamic_cast<targets::RemoteTarget *>(target.get())) {
                if (const auto removed = remote->removeRemoteFolder(path); !removed)
                    return removed.error();
            }
        }
    }
    removeLocalSocketDir(KernelFolder(path));
    for (int attempt = 0; attempt < 3; ++attempt) {
        if (QDir(path).removeRecursively()) // links inside (the work folder's) are removed as links
            return {};
        QThread::msleep(200);
    }
    return Error{u"cannot remove the kernel's folder"_s, path, 0, 0, {}};
}

} // namespace ferry::kernels
