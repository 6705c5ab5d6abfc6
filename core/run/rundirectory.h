// A run's folder and the records in it (spec, launch, supervisor, exit), read and written.
#pragma once

#include "common/error.h"
#include "common/processclock.h"
#include "run/runspec.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::run {

// What the supervisor records once the script has started (supervisor.json). Start ticks
// (field 22 of /proc/<pid>/stat) and the boot id tell a live process of ours from a reused pid.
struct SupervisorRecord {
    qint64 supervisorPid = 0;
    quint64 supervisorStartTicks = 0;
    qint64 childPid = 0;
    qint64 processGroup = 0; // the script's own group; its session is the supervisor's pid
    quint64 childStartTicks = 0;
    QString bootId;
    bool operator==(const SupervisorRecord &) const = default;
};

// Who was started to supervise the run (launch.json), written by the starter as soon as the
// process exists, before it reports: a start that is not confirmed in time is still followed,
// and can be cancelled, by this record. The supervisor's session bears its pid.
struct LaunchRecord {
    qint64 pid = 0;
    quint64 startTicks = 0;
    QString bootId;
    bool operator==(const LaunchRecord &) const = default;
};

// How the run ended (exit.json), written once, atomically.
struct ExitRecord {
    int exitCode = -1; // the script's exit status; -1 when a signal ended it or it never started
    int signal = 0;    // the signal that ended it, 0 if none
    qint64 finishedMs = 0;
    bool cancelled = false;
    QString error; // the contract's failure file, or why the script could not start
    // Why the place it ran ended it, as a word (Slurm's: "time-limit", "out-of-memory",
    // "node-failure", "preempted"); empty when it ended by itself or was cancelled.
    QString cause = {};
    bool operator==(const ExitRecord &) const = default;

    bool succeeded() const { return !cancelled && exitCode == 0 && signal == 0; }
};

// One run's folder, `<workspace>/.ferry/runs/<id>/`: the files every target writes there,
// read and written in one place.
class RunDirectory {
public:
    explicit RunDirectory(const QString &path);
    static QString pathFor(const QString &workspace, const QString &runId);

    QString path() const { return m_path; }
    QString specFile() const { return file(u"spec.json"); }
    QString logFile() const { return file(u"log"); }
    // Beside the log, named here once: readers that open them below the run folder use the names.
    static constexpr const char16_t *kLogTimesName = u"log.times";           // run/logtimes.h
    static constexpr const char16_t *kSystemSamplesName = u"system.samples"; // metrics/systemsamples.h
    QString logTimesFile() const { return file(kLogTimesName); }
    QString systemSamplesFile() const { return file(kSystemSamplesName); }
    QString supervisorFile() const { return file(u"supervisor.json"); }
    QString launchFile() const { return file(u"launch.json"); }
    QString heartbeatFile() const { return file(u"heartbeat"); }
    QString exitFile() const { return file(u"exit.json"); }
    QString modelArchive() const { return file(u"model.tar.gz"); }
    QString outputArchive() const { return file(u"output.tar.gz"); }
    // The targets' own records: the container a run runs in, the host folder of an SSH or Slurm run.
    QString containerRecordFile() const { return file(u"container.json"); }
    QString remoteRecordFile() const { return file(u"remote.json"); }
    // Why a sweep stopped the run early (core/sweep), written before it is cancelled: a follower
    // that sees the cancel stores it as `stopped early` with this reason.
    QString stopReasonFile() const { return file(u"stop-reason"); }
    // Left by whoever said the 80 % word of the run's budget (run/budgetclock.h): said once.
    QString budgetWarnedFile() const { return file(u"budget-warned"); }

    // Every file that says the folder holds or held a run: the records above, the log and the
    // archives. One list, so that no target refuses a used folder by fewer of them.
    QStringList markerFiles() const;
    // Takes the folder for a new run, the one way every target does: the spec's local paths
    // made absolute (the supervisor and the targets work from elsewhere), the folder created,
    // refused when anything is at a marker's name (a link included), spec.json written
    // atomically. The spec as written.
    Expected<RunSpec> claim(const RunSpec &spec) const;

    Expected<void> writeSpec(const RunSpec &spec) const;
    Expected<RunSpec> readSpec() const;
    Expected<void> writeSupervisor(const SupervisorRecord &record) const;
    // Empty when the file does not exist yet; an Error when it exists but cannot be read.
    Expected<std::optional<SupervisorRecord>> readSupervisor() const;
    // Fails if exit.json exists already: the first writer wins, so a run ends exactly once.
    Expected<void> writeLaunch(const LaunchRecord &record) const;
    Expected<std::optional<LaunchRecord>> readLaunch() const; // empty when there is none
    Expected<void> writeExit(const ExitRecord &record) const;
    // A target records an end the supervisor could not (it never started, was cancelled before it
    // did, its container vanished): finished now; the first exit record written stands, and a
    // failure to write one is logged (there is no one else to tell).
    void recordEnd(ExitRecord exit) const;
    Expected<std::optional<ExitRecord>> readExit() const;
    Expected<void> touchHeartbeat(qint64 nowMs) const;
    std::optional<qint64> heartbeatMs() const;
    // Appends to `log`; a link or anything but a regular file at the name is refused.
    Expected<void> appendToLog(const QByteArray &bytes) const;
    // The script's failure message (the contract's output/failure), trimmed; empty when there is
    // none. Read (its first kMaxFailureBytes) only if it is a regular file: otherwise the text
    // says why it was not read (a link planted there never makes Ferry read its target).
    QString failureText() const;
    Expected<void> writeStopReason(const QString &reason) const;
    QString stopReason() const; // empty when the run was not stopped early

    static constexpr qint64 kMaxFailureBytes = 64 * 1024;

private:
    QString file(const char16_t *name) const;

    QString m_path;
};

// /proc/<pid>/stat, read in one place (common/processclock.h).
using ferry::ProcessState;
using ferry::processState;
QString currentBootId();
// The process with this pid is alive (not a zombie) and is the one that started at these ticks.
bool isSameLiveProcess(qint64 pid, quint64 startTicks);
bool supervisorAlive(const SupervisorRecord &record);
bool launchedAlive(const LaunchRecord &record); // the started supervisor lives (same boot, same process)
// Live processes of this session (the supervisor's, named by its pid) that started no earlier
// than it did on this boot: what an unconfirmed start may have left, the supervisor included.
QList<qint64> liveSessionMembers(const LaunchRecord &record);
// Live (non-zombie) processes whose process group and session are these: the script and
// everything it started that stayed in its group.
QList<qint64> liveGroupMembers(qint64 processGroup, qint64 session);

qint64 nowMs();

} // namespace ferry::run
