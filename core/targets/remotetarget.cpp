#include "targets/remotetarget.h"

#include "run/runsecrets.h"
#include "run/supervisor.h"
#include "targets/containersecrets.h"
#include "targets/hostprobe.h"
#include "targets/sshshell.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonObject>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

constexpr int kMaxBackoffMs = 30000;
constexpr int kQuickCallMs = 20000; // a clean-up call that must not hold a failed start long

} // namespace

RemoteTarget::RemoteTarget(std::unique_ptr<RemoteShell> shell, run::TargetKind kind, QString place)
    : m_shell(std::move(shell)), m_kind(kind), m_place(std::move(place))
{
}

RemoteTarget::~RemoteTarget() = default;

void RemoteTarget::progress(const QString &text) const
{
    if (m_progress)
        m_progress(text);
}

Expected<void> acceptHostKeyFromOptions(RemoteShell &shell, const run::TargetSpec &target)
{
    const QString fingerprint = target.options.value(u"acceptHostKey"_s).toString();
    auto *ssh = dynamic_cast<SshShell *>(&shell);
    if (fingerprint.isEmpty() || !ssh)
        return {};
    const auto accepted = ssh->acceptHostKey(fingerprint);
    if (!accepted)
        return accepted.error();
    return {};
}

void RemoteTarget::removeRemoteSecrets(const QString &remoteDir)
{
    (void)m_shell->run({u"rm"_s, u"-rf"_s, u"--"_s, remoteDir + u'/' + QString::fromUtf16(kRemoteSecretsFolder)}, {},
                       kQuickCallMs);
}

Error RemoteTarget::failStart(const QString &runDir, Error error)
{
    const run::RunDirectory dir(runDir);
    if (QFileInfo::exists(dir.specFile()) && !QFileInfo::exists(dir.exitFile()))
        dir.writeExit(run::ExitRecord{-1, 0, run::nowMs(), false, error.toString()});
    const auto spec = dir.readSpec();
    const auto record = RemoteRecord::read(runDir);
    if ((!spec || !spec->secretVariables.isEmpty()) && record && record->has_value())
        removeRemoteSecrets((*record)->dir);
    return error;
}

ShellResult RemoteTarget::launchUnlessCancelled(const QString &remoteDir, const QString &runId,
                                                const QByteArray &launch)
{
    return m_shell->runScript(
        "cd -- \"$1\" || exit 1\n"
        "if [ -e cancel-requested ] || [ -e exit.json ]; then rm -rf -- secrets; echo cancelled; exit 0; fi\n" +
            launch + '\n',
        {remoteDir, runId});
}

Error RemoteTarget::cancelledStart(const QString &runDir, const QString &remoteDir)
{
    removeRemoteSecrets(remoteDir);
    const run::RunDirectory dir(runDir);
    if (!QFileInfo::exists(dir.exitFile()))
        dir.writeExit(run::ExitRecord{-1, 0, run::nowMs(), true, u"cancelled before it started"_s});
    return Error{u"the run was cancelled before it started"_s, runDir, 0, 0, {}};
}

Expected<void> RemoteTarget::readyToLaunch(const QString &runDir, const Prepared &prepared)
{
    if (QFileInfo::exists(run::RunDirectory(runDir).exitFile()))
        return cancelledStart(runDir, prepared.record.dir);
    if (prepared.secretPayload.isEmpty())
        return {};
    RemoteRun run(*m_shell, runDir);
    if (const auto sent = run.sendSecrets(prepared.record.dir, prepared.secretPayload); !sent)
        return failStart(runDir, sent.error());
    // A cancel while they travelled removed the folder before they arrived: look once more.
    if (QFileInfo::exists(run::RunDirectory(runDir).exitFile()))
        return cancelledStart(runDir, prepared.record.dir);
    return {};
}

std::optional<QString> RemoteTarget::remoteFolderOf(const QString &runDir)
{
    const auto record = RemoteRecord::read(runDir);
    if (!record || !record->has_value())
        return std::nullopt;
    return (*record)->dir;
}

Expected<void> RemoteTarget::fetchRankLogs(const QString &runDir)
{
    const auto record = RemoteRecord::read(runDir);
    if (!record)
        return record.error();
    if (!record->has_value())
        return Error{u"the run has no folder on a host yet"_s, runDir, 0, 0, {}};
    RemoteRun run(*m_shell, runDir);
    return run.fetchFolder(**record, u"ranks"_s);
}

Expected<void> RemoteTarget::removeRemoteFolder(const QString &runDir)
{
    const auto record = RemoteRecord::read(runDir);
    if (!record)
        return record.error();
    if (!record->has_value())
        return {};
    const QString folder = (*record)->dir;
    const auto spec = run::RunDirectory(runDir).readSpec();
    // remote.json is ours, but a wrong one must not empty a home: the run's own folder only.
    if (!spec || !folder.startsWith(u'/') || QFileInfo(folder).fileName() != spec->id || spec->id.isEmpty() ||
        folder.contains(u"/../"_s))
        return Error{u"the run's folder on %1 is recorded as '%2', which is not a folder named after the run; "
                     "not removed"_s.arg(m_shell->place(), folder),
                     run::RunDirectory(runDir).remoteRecordFile(), 0, 0,
                     u"remove it there by hand if it is the run's"_s};
    const ShellResult removed = m_shell->run({u"rm"_s, u"-rf"_s, u"--"_s, folder}, {}, 600000);
    if (!removed.ok())
        return Error{
            u"cannot remove the run's folder %1 on %2: %3"_s.arg(folder, m_shell->place(), removed.errorText()),
            {},
            0,
            0,
            u"try again once the host answers, or remove it there by hand"_s};
    return {};
}

Expected<RemoteTarget::Prepared> RemoteTarget::prepare(const QString &runDir, const run::RunSpec &spec,
                                                       const Shape &shape, int gpusOffered)
{
    if (const auto acceptable = checkSpecFor(spec, m_kind, m_place); !acceptable)
        return acceptable.error();
    // The secrets are read now: a missing one fails the run before anything is sent.
    const auto secretValues = run::readRunSecrets(spec);
    if (!secretValues)
        return secretValues.error();
    const run::RunDirectory dir(runDir);
    const auto claimed = dir.claim(spec);
    if (!claimed)
        return claimed.error();
    const run::RunSpec &absolute = *claimed;
    QFile log(dir.logFile()); // the local copy of the log, filled from the host's
    if (!log.open(QIODevice::WriteOnly | QIODevice::Append))
        return Error{u"cannot create the log: "_s + log.errorString(), dir.logFile(), 0, 0, {}};
    log.close();

    if (const auto accepted = acceptHostKeyFromOptions(*m_shell, spec.target); !accepted)
        return failStart(runDir, accepted.error());
    progress(u"probing %1"_s.arg(m_shell->place()));
    const auto host = probeHost(*m_shell);
    if (!host)
        return failStart(runDir, host.error());
    if (!shape && absolute.interpreter == u"python3"_s && host->python.isEmpty())
        return failStart(runDir, Error{u"%1 has no python3"_s.arg(m_shell->place()),
                                       {},
                                       0,
                                       0,
                                       u"install Python 3 there, or name an interpreter in the environment"_s});
    Prepared prepared;
    prepared.resources.cpus = host->cpus;
    prepared.resources.gpus = gpusOffered >= 0 ? gpusOffered : static_cast<int>(host->gpus.size());

    const QString root =
        spec.target.options.value(u"remoteDir"_s).toString(spec.isKernel() ? u".ferry/kernels"_s : u".ferry/runs"_s);
    RemoteRun run(*m_shell, runDir);
    const auto remoteDir = run.createRemoteDir(root, spec.id);
    if (!remoteDir)
        return failStart(runDir, remoteDir.error());
    prepared.record = RemoteRecord{spec.target.host, *remoteDir, {}};
    if (const auto written = prepared.record.write(runDir); !written)
        return failStart(runDir, written.error());
    prepared.host = *host;
    if (shape) {
        const auto made = shape(*remoteDir, *host, prepared.resources);
        if (!made)
            return failStart(runDir, made.error());
        prepared.parts = *made;
    }
    if (prepared.parts.command.isEmpty() && absolute.interpreter == u"python3"_s && host->python.isEmpty())
        return failStart(runDir, Error{u"%1 has no python3"_s.arg(m_shell->place()),
                                       {},
                                       0,
                                       0,
                                       u"install Python 3 there, or name an interpreter in the environment"_s});
    if (QFileInfo::exists(dir.exitFile())) // cancelled meanwhile: nothing to upload
        return cancelledStart(runDir, *remoteDir);
    progress(u"uploading the source and data to %1:%2"_s.arg(m_shell->place(), *remoteDir));
    int shown = -10; // every 10 %, not every read
    const auto uploaded =
        run.upload(absolute, *remoteDir, prepared.resources, prepared.parts, [this, &shown](int percent) {
            if (percent < shown || percent >= shown + 10 || (percent == 100 && shown != 100)) { // < : the next channel
                shown = percent;
                progress(u"uploading data: %1%"_s.arg(percent));
            }
        });
    if (!uploaded)
        return failStart(runDir, uploaded.error());
    // Sent by readyToLaunch(), right before the launch.
    if (!secretValues->isEmpty())
        prepared.secretPayload = secretEntryPayload(*secretValues, run::redactorOf(*secretValues));
    return prepared;
}

Expected<RunProbe> RemoteTarget::finish(const QString &runDir, RemoteRun &run, const RemoteRecord &record,
                                        run::ExitRecord exit)
{
    const auto collected = run.collect(record, std::move(exit));
    if (!collected && !QFileInfo::exists(run::RunDirectory(runDir).exitFile())) {
        RunProbe p;
        p.state = RunState::Running; // ended there, not here yet: fetched on the next probe
        p.detail = u"the run ended on %1; fetching its results failed: %2"_s.arg(m_shell->place(),
                                                                                 collected.error().toString());
        return p;
    }
    return probeCollectedRun(runDir);
}

Expected<RunProbe> RemoteTarget::probe(const QString &runDir)
{
    const run::RunDirectory dir(runDir);
    if (!QFileInfo::exists(dir.specFile()))
        return noRunFolder(dir);
    if (QFileInfo::exists(dir.exitFile()))
        return probeCollectedRun(runDir);
    const auto record = RemoteRecord::read(runDir);
    if (!record)
        return record.error();
    if (!record->has_value()) {
        RunProbe p;
        p.state = RunState::Lost;
        p.detail = u"the run never got a folder on %1"_s.arg(m_shell->place());
        return p;
    }
    Backoff &link = m_links[runDir];
    const qint64 now = run::nowMs();
    if (now < link.nextTryMs) {
        RunProbe p;
        p.state = RunState::Running;
        p.detail = u"%1; trying again in %2 s"_s.arg(link.lastError).arg((link.nextTryMs - now + 999) / 1000);
        return p;
    }
    RemoteRun run(*m_shell, runDir);
    ShellResult failure;
    const auto status = run.status(**record, &failure);
    if (!status) {
        // The run goes on without us: say why we cannot see it, and look again later.
        link.failures += 1;
        const int delay = std::min(kMaxBackoffMs, 1000 << std::min(link.failures - 1, 5));
        link.nextTryMs = now + delay;
        link.lastError = status.error().message;
        RunProbe p;
        p.state = RunState::Running;
        p.detail = u"%1; trying again in %2 s"_s.arg(link.lastError).arg(delay / 1000);
        return p;
    }
    link = Backoff{};
    link.moreLog = status->logBytes.size() >= RemoteRun::kChunkBytes;
    return judge(runDir, run, **record, *status);
}

Expected<run::LogChunk> RemoteTarget::readLog(const QString &runDir, qint64 offset, run::LogTail::Limits limits)
{
    Backoff &link = m_links[runDir];
    if (link.moreLog && !QFileInfo::exists(run::RunDirectory(runDir).exitFile())) {
        const auto record = RemoteRecord::read(runDir);
        if (record && record->has_value()) {
            RemoteRun run(*m_shell, runDir);
            const auto status = run.status(**record);
            link.moreLog = status && status->logBytes.size() >= RemoteRun::kChunkBytes;
        }
    }
    return Target::readLog(runDir, offset, limits);
}

} // namespace ferry::targets
