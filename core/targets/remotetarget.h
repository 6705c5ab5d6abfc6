// RemoteTarget: the probe, log mirroring and reconnect-with-backoff that SSH and Slurm targets
// share once a run started.
#pragma once

#include "targets/hostprobe.h"
#include "targets/remoterun.h"
#include "targets/remoteshell.h"
#include "targets/target.h"

#include <QHash>
#include <QString>

#include <functional>
#include <memory>
#include <optional>

namespace ferry::targets {

// What SSH and Slurm runs share once they are started: the local run folder mirrors the one
// on the host (log copied byte for byte from the stored offset, results and exit.json fetched
// at the end). A lost connection never ends a run: probe() says it is running and why it
// cannot look, and tries again after a growing pause (1 s, 2 s, 4 s ... 30 s); the log then
// continues from the local copy's end, so nothing is lost or doubled.
class RemoteTarget : public Target {
public:
    ~RemoteTarget() override;

    Expected<RunProbe> probe(const QString &runDir) override;
    Expected<run::LogChunk> readLog(const QString &runDir, qint64 offset, run::LogTail::Limits limits) override;

    // Progress messages while a run is being started ("uploading: 40%").
    void setProgress(std::function<void(const QString &)> progress) { m_progress = std::move(progress); }
    RemoteShell &shell() { return *m_shell; }
    // Deleting a run (`ferry runs delete --remote`, the window's delete): its folder on the host,
    // named by the local remote.json, is removed there. Only a folder named after the run id is
    // touched; a run that never got one there has nothing to remove (true).
    Expected<void> removeRemoteFolder(const QString &runDir);
    // The host folder of a run, if it has one (remote.json): for the question before a delete.
    static std::optional<QString> remoteFolderOf(const QString &runDir);
    // The logs of every rank but 0 of a run across nodes, as they are now on the host, into the
    // local run folder's ranks/ (collected at the end in any case).
    Expected<void> fetchRankLogs(const QString &runDir);

protected:
    RemoteTarget(std::unique_ptr<RemoteShell> shell, run::TargetKind kind, QString place);

    // The state of a run its host answered about (not collected yet).
    virtual Expected<RunProbe> judge(const QString &runDir, RemoteRun &run, const RemoteRecord &record,
                                     const RemoteStatus &status) = 0;

    // The start up to the upload: local folder and spec.json, host key, host probe, remote
    // folder, remote.json, upload. Returns the record and the host's resources for the run.
    struct Prepared {
        RemoteRecord record;
        run::Resources resources;
        HostInfo host;
        RunnerParts parts;
        QByteArray secretPayload; // secretEntryPayload(); empty: no secret variables
    };
    // `shape` gives the runner's parts for the run folder on the host, knowing the host and the
    // resources (which it may change); null: the script in the host's Python. `gpusOffered`
    // < 0: as many as the host has.
    using Shape =
        std::function<Expected<RunnerParts>(const QString &remoteDir, const HostInfo &host, run::Resources &resources)>;
    Expected<Prepared> prepare(const QString &runDir, const run::RunSpec &spec, const Shape &shape, int gpusOffered);
    // Right before the launch (runner or sbatch): refused when the run was cancelled meanwhile
    // (the local exit.json, which every cancel writes), else the secret variables go to the
    // host: last, so no failure before the launch leaves them there (review M1, M2).
    Expected<void> readyToLaunch(const QString &runDir, const Prepared &prepared);
    // Runs `launch` (one line of bash, "$1" the run folder on the host, "$2" the run's id) in the
    // run folder on the host, unless a cancel reached the host first (cancel-requested, exit.json):
    // then the secrets sent there go and the answer is "cancelled" (launchWasCancelled).
    ShellResult launchUnlessCancelled(const QString &remoteDir, const QString &runId, const QByteArray &launch);
    static bool launchWasCancelled(const ShellResult &result)
    {
        return result.ok() && result.out.trimmed() == "cancelled";
    }
    // A cancel came while the run was being started: nothing starts, the secrets on the host
    // go, the local exit.json says cancelled (unless the cancel wrote it already).
    Error cancelledStart(const QString &runDir, const QString &remoteDir);
    // The run could not start: recorded in exit.json, so it shows as failed, not lost; the
    // secrets sent to the host, if any, are removed there (best effort).
    Error failStart(const QString &runDir, Error error);
    // Best effort: `rm -rf -- REMOTEDIR/secrets` on the host.
    void removeRemoteSecrets(const QString &remoteDir);
    // Ended on the host (or stopped): everything fetched, then the collected probe.
    Expected<RunProbe> finish(const QString &runDir, RemoteRun &run, const RemoteRecord &record, run::ExitRecord exit);
    void progress(const QString &text) const;

    std::unique_ptr<RemoteShell> m_shell;
    run::TargetKind m_kind;
    QString m_place;

private:
    struct Backoff {
        int failures = 0;
        qint64 nextTryMs = 0;
        QString lastError;
        bool moreLog = false; // the last status call stopped at its size limit
    };
    QHash<QString, Backoff> m_links;
    std::function<void(const QString &)> m_progress;
};

// Accepts a host key when the spec's target options carry "acceptHostKey" (the CLI's
// --accept-host-key FINGERPRINT), for SSH shells only.
Expected<void> acceptHostKeyFromOptions(RemoteShell &shell, const run::TargetSpec &target);

} // namespace ferry::targets
