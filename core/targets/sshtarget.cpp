#include "targets/sshtarget.h"

#include "run/supervisor.h"
#include "targets/remoteimage.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QJsonObject>
#include <QThread>

#include <csignal>

using namespace Qt::StringLiterals;

namespace ferry::targets {

bool SshTarget::runsInImage(const run::RunSpec &spec)
{
    return !spec.environmentFile.isEmpty() && !spec.target.options.value(u"hostPython"_s).toBool();
}

SshTarget::SshTarget(const QString &host, SshOptions options, int startTimeoutMs)
    : RemoteTarget(std::make_unique<SshShell>(host, std::move(options)), run::TargetKind::Ssh,
                   u"host '%1'"_s.arg(host)),
      m_startTimeoutMs(startTimeoutMs)
{
}

Expected<void> SshTarget::start(const QString &runDir, const run::RunSpec &spec)
{
    const QJsonValue gpus = spec.target.options.value(u"gpus"_s);
    // With an environment, in its image (built there); else, or when asked, in the host's Python.
    const bool inImage = SshTarget::runsInImage(spec);
    std::optional<RemoteImage> image;
    const QString context = runDir + u"/image-context"_s;
    const auto shape = [&](const QString &remoteDir, const HostInfo &host,
                           run::Resources &resources) -> Expected<RunnerParts> {
        auto parts = remoteImageParts(spec, remoteDir, host, resources, context);
        if (!parts)
            return parts.error();
        image = parts->second;
        return parts->first;
    };
    const auto prepared = prepare(runDir, spec, inImage ? Shape(shape) : Shape(), gpus.isDouble() ? gpus.toInt() : -1);
    QDir(context).removeRecursively();
    if (!prepared)
        return prepared.error();
    const RemoteRecord &record = prepared->record;
    if (image) {
        progress(u"building image %1 on %2 (unless it is there)"_s.arg(image->reference, m_shell->place()));
        // Its output goes to the run's log (followed like the script's), not to the progress.
        const auto built = buildRemoteImage(*m_shell, record.dir, *image, {});
        if (!built)
            return failStart(runDir, built.error());
    }
    progress(u"starting the run on %1"_s.arg(m_shell->place()));
    // A cancel during the upload or the build: no launch, and the secrets are sent only now.
    if (const auto ready = readyToLaunch(runDir, *prepared); !ready)
        return ready.error();
    // setsid -f: a session of its own, so neither the end of this connection nor a logout
    // reaches it; its output goes to the log (the runner redirects it at once). The marker is in
    // its environment from the start, so the runner itself is found by it too. A cancel that
    // reached the host first (cancel-requested, exit.json) stops it here; one that comes after
    // this check finds the runner by its marker, or the runner finds the cancel (M1).
    const ShellResult launched = launchUnlessCancelled(
        record.dir, spec.id, "FERRY_RUN_ID=\"$2\" setsid -f bash \"$1/runner.sh\" </dev/null >/dev/null 2>&1");
    if (launchWasCancelled(launched))
        return cancelledStart(runDir, record.dir);
    if (!launched.ok())
        return failStart(
            runDir,
            Error{u"cannot start the run on %1: %2"_s.arg(m_shell->place(), launched.errorText()), {}, 0, 0, {}});
    RemoteRun run(*m_shell, runDir);
    const QDeadlineTimer deadline(m_startTimeoutMs);
    for (;;) {
        const auto status = run.status(record);
        if (status && (status->started || status->exit))
            return {};
        if (deadline.hasExpired())
            return Error{
                u"the run did not start on %1 within %2 s"_s.arg(m_shell->place()).arg(m_startTimeoutMs / 1000),
                runDir + u"/log"_s, 0, 0, u"probe the run later, or cancel it"_s};
        QThread::msleep(100);
    }
}

Expected<RunProbe> SshTarget::judge(const QString &runDir, RemoteRun &run, const RemoteRecord &record,
                                    const RemoteStatus &status)
{
    RunProbe p;
    p.heartbeatMs = status.heartbeatMs;
    if (status.exit)
        return finish(runDir, run, record, *status.exit);
    if (status.alive) {
        p.state = RunState::Running;
        if (!status.started) // a start not confirmed yet (M4): followed, and cancelled by its marker
            p.detail = u"starting: the runner on %1 has not started the script yet"_s.arg(m_shell->place());
        return p;
    }
    p.state = RunState::Lost;
    if (!status.folderExists)
        p.detail = u"the run folder %1 on %2 is gone"_s.arg(record.dir, m_shell->place());
    else if (!status.started)
        p.detail = u"the run never started on %1"_s.arg(m_shell->place());
    else
        p.detail = u"the run's process on %1 is gone and left no exit record (was the host restarted?)"_s.arg(
            m_shell->place());
    return p;
}

Expected<RunProbe> SshTarget::cancel(const QString &runDir, int graceMs)
{
    const run::RunDirectory dir(runDir);
    const auto start = cancelStart<RemoteRecord>(dir, [&] { return RemoteRecord::read(runDir); });
    if (!start)
        return start.error();
    if (start->ended)
        return probe(runDir);
    if (!start->record) {
        dir.recordEnd(run::ExitRecord{-1, 0, 0, true, u"cancelled before it started"_s});
        // The start may have made the host folder meanwhile: it checks the exit record after
        // it wrote remote.json, we read remote.json after we wrote the exit record (M1).
        const auto now = RemoteRecord::read(runDir);
        if (!now || !now->has_value())
            return probe(runDir);
        RemoteRun run(*m_shell, runDir);
        (void)run.killRemote(**now, graceMs);
        return probe(runDir);
    }
    RemoteRun run(*m_shell, runDir);
    const auto left = run.killRemote(*start->record, graceMs);
    if (!left)
        return left.error();
    if (!left->isEmpty()) {
        return Error{u"processes of the run survived SIGKILL on %1: %2"_s.arg(m_shell->place(), pidList(*left)),
                     {},
                     0,
                     0,
                     u"they may be stuck in the kernel (state D); check them with ps there"_s};
    }
    const auto status = run.status(*start->record);
    run::ExitRecord exit{-1, SIGTERM, 0, true, {}};
    if (status && status->exit) {
        exit = *status->exit;
        exit.cancelled = true;
    }
    return finish(runDir, run, *start->record, exit);
}

} // namespace ferry::targets
