// What SSH and Slurm runs share before and after they start: the host's run folder, upload, runner,
// status and results.
#pragma once

#include "common/error.h"
#include "common/untrustedtree.h"
#include "run/contract.h"
#include "run/rundirectory.h"
#include "run/runspec.h"
#include "targets/remoteshell.h"
#include "targets/target.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::targets {

// Where a run on a host is: remote.json in the local run folder.
struct RemoteRecord {
    QString host;  // the SSH host as the user named it, or "local"
    QString dir;   // the run folder on the host, absolute
    QString jobId; // Slurm's job id; empty for a plain SSH run

    Expected<void> write(const QString &runDir) const;
    static Expected<std::optional<RemoteRecord>> read(const QString &runDir);
};

// What one status call learnt about a run on its host (one round trip: state and new log bytes).
struct RemoteStatus {
    bool folderExists = false;
    bool started = false;                // the runner has written its pid (SSH runs)
    bool alive = false;                  // the runner process lives (SSH runs)
    std::optional<run::ExitRecord> exit; // exit.json on the host
    std::optional<qint64> heartbeatMs;
    int attempt = 0;          // Slurm restarts (SLURM_RESTART_COUNT) the runner has seen
    QString job;              // `scontrol show job -o` (Slurm runs)
    int queuePosition = 0;    // among pending jobs, 1 = next; 0 when not pending
    QString accounting;       // `sacct` State|ExitCode when scontrol no longer knows the job
    QByteArray logBytes;      // the log from the requested offset
    QByteArray logTimes;      // log.times (run/logtimes.h) from the local copy's end
    QByteArray systemSamples; // system.samples (metrics/systemsamples.h) from the local copy's end
    QByteArray hostFacts;     // host.txt (run/hostfacts.h), as the runner wrote it on the node
    // The script's metric files (tracking/metricsources.h): new bytes of each from the local
    // copy's size (an event file), or the whole file (a rewritten metrics.csv).
    struct MetricFile {
        QString path; // in the run folder
        qint64 offset = 0;
        bool whole = false;
        QByteArray bytes;
    };
    QList<MetricFile> metricFiles;
};

// How a backend shapes the runner: #SBATCH lines (Slurm), the command that runs the script
// (empty: the host's interpreter; else e.g. `docker run ... IMAGE`), and a local folder sent
// along (the image's build context) into `extraRemoteName` beside the runner.
struct RunnerParts {
    QStringList sbatchLines;
    QStringList command;
    QString extraLocalDir;
    QString extraRemoteName;
};

// Secret variables of an SSH or Slurm run (RunSpec::secretVariables): their values, read from
// the keychain here, travel on the stdin of one ssh call into `secrets/variables.json` of the
// run folder on the host (0700 folders, a 0600 file), never in a command line, the runner or
// any file here. The runner hands a copy to the entry program (secretEntryProgram(), in the
// host's Python or inside the image, where the folder is mounted), which deletes it, gives the
// script the values in its environment only and writes its output to the log redacted: the
// host's log holds no value, so the local byte-exact copy holds none. An SSH run's runner
// deletes variables.json as it starts; a Slurm job keeps it for a requeued attempt until the
// run ends. Cancel and the collection at the end remove the folder in any case.
inline constexpr char16_t kRemoteSecretsFolder[] = u"secrets";
inline constexpr char16_t kRemoteSecretsAttempt[] = u"attempt.json"; // the copy the entry takes
inline constexpr char16_t kRemoteSecretsMount[] = u"/run/ferry-secrets";
inline constexpr char16_t kRemoteEntryMount[] = u"/run/ferry-secret-entry.py";

// The part of an SSH or Slurm run that does not depend on how it is started: the run folder
// on the host (code/, input/, model/, output/, checkpoints/, log, heartbeat, exit.json), its
// upload, the runner script that gives the script the training contract and writes the exit
// record itself, the status call, the local copy of the log (a byte-exact prefix of the
// remote one, so stored offsets mean the same on both sides) and the results fetched back.
class RemoteRun {
public:
    RemoteRun(RemoteShell &shell, const QString &localRunDir);

    // The run folder on the host: `root` (relative to home, or absolute) + `/` + run id, made
    // there now; refused if it exists.
    Expected<QString> createRemoteDir(const QString &root, const QString &runId);
    // Copies the source folder (minus `excludes`), the data channels (with progress) and the
    // contract's config files into `remoteDir`, and writes `runner.sh` there.
    Expected<void> upload(const run::RunSpec &spec, const QString &remoteDir, const run::Resources &resources,
                          const RunnerParts &parts, const TransferProgress &progress);
    // Sends the secret variables' file (secretEntryPayload) into the run folder on the host, on
    // the stdin of one call. After upload().
    Expected<void> sendSecrets(const QString &remoteDir, const QByteArray &payload);
    // The runner script: `#SBATCH` lines (if any), then what every run does (see remotescripts.cpp).
    static Expected<QByteArray> runnerScript(const run::RunSpec &spec, const QString &remoteDir,
                                             const run::Resources &resources, const RunnerParts &parts);
    // The host's interpreter with the contract's variables: `env -- NAME=VALUE... python3 script args`
    // (a kernel's run: `python3 RUN/kernel/keeper.py run RUN/kernel ...`, run::runCommand); with
    // secret variables, behind the entry program (`python3 RUN/secret-entry.py ...`).
    static QStringList hostCommand(const run::RunSpec &spec, const QString &remoteDir, const run::Resources &resources);
    // The spec as the script sees it: channels already on the host (option remoteChannels) added.
    static run::RunSpec contractSpec(const run::RunSpec &spec);

    // One status call; the log bytes it returns are written to the local copy at once.
    // `jobId` set: Slurm's view of the job as well. Not reached: the shell's failure.
    Expected<RemoteStatus> status(const RemoteRecord &record, ShellResult *failure = nullptr);
    // Reads the rest of the remote log into the local copy.
    Expected<void> syncLogToEnd(const RemoteRecord &record);
    // After the run ended on the host (or was stopped): the whole log, model/ and output/ back,
    // then the local exit.json (`exit`, its error filled from the failure file), then the
    // archives. The local exit.json is written last: once it exists, everything is here.
    Expected<void> collect(const RemoteRecord &record, run::ExitRecord exit);
    // One folder of the run on the host (model, output, ranks) copied into the local run folder,
    // as collect() does: regular files only, no link, fifo or device (M10).
    Expected<void> fetchFolder(const RemoteRecord &record, const QString &folder);
    // Kills every process of the run on the host: the groups named by the runner's pid files
    // and any process carrying the run's marker (FERRY_RUN_ID) in its environment; TERM,
    // `graceMs`, KILL; checks nothing is left. Returns the pids that survived (none: empty).
    Expected<QList<qint64>> killRemote(const RemoteRecord &record, int graceMs);
    // Processes on the host carrying the run's marker.
    Expected<QList<qint64>> markedProcesses(const RemoteRecord &record);

    qint64 localLogSize() const;
    static constexpr qint64 kChunkBytes = 4 * 1024 * 1024;

private:
    Expected<void> stageKeeperFolder(const QString &stage) const;
    void writeLogBytes(qint64 offset, const QByteArray &bytes) const;
    QList<TreeFile> localMetricFiles() const;
    static RemoteStatus::MetricFile metricFileOf(bool whole, const QByteArray &value);
    void writeMetricFiles(const QList<RemoteStatus::MetricFile> &files) const;

    RemoteShell &m_shell;
    run::RunDirectory m_dir;
};

// The probe of a run whose local exit.json exists (collected): its state and archives.
Expected<RunProbe> probeCollectedRun(const QString &runDir);

} // namespace ferry::targets
