#include "targets/localtarget.h"

#include "run/contract.h"
#include "run/supervisor.h"

#include <QDeadlineTimer>
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QThread>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::targets {

namespace {

using run::ExitRecord;
using run::RunDirectory;
using run::SupervisorRecord;

constexpr int kPollMs = 20;
constexpr int kKillWaitMs = 10000;       // for the kernel to take down what got SIGKILL
constexpr int kSupervisorExitMs = 30000; // for the supervisor to record the end once its script is gone

template <typename Condition> bool waitUntil(Condition done, int timeoutMs)
{
    const QDeadlineTimer deadline(timeoutMs);
    for (;;) {
        if (done())
            return true;
        if (deadline.hasExpired())
            return false;
        QThread::msleep(kPollMs);
    }
}

// Stops a run whose supervisor has not reported (a start not confirmed in time, M4): the end is
// recorded first, so a supervisor that goes on never starts the script; then the supervisor and
// anything in its session (a script it started meanwhile) get TERM, `graceMs`, then KILL.
Expected<void> stopUnconfirmed(const RunDirectory &dir, int graceMs)
{
    dir.recordEnd(ExitRecord{-1, 0, 0, true, u"cancelled before it started"_s});
    const auto launch = dir.readLaunch();
    if (!launch)
        return launch.error();
    if (!launch->has_value())
        return {}; // nothing was started (or a Ferry older than launch.json started it)
    const run::LaunchRecord &l = **launch;
    const auto signalAll = [&](int signal) -> Expected<void> {
        for (const qint64 pid : run::liveSessionMembers(l)) {
            if (::kill(static_cast<pid_t>(pid), signal) != 0 && errno != ESRCH)
                return Error{u"cannot signal the run's process %1: %2"_s.arg(pid).arg(errnoText()), dir.path(), 0, 0,
                             u"it may belong to another user"_s};
        }
        return {};
    };
    const auto gone = [&] { return run::liveSessionMembers(l).isEmpty(); };
    if (gone())
        return {};
    // CONT after TERM, as a shell does for a stopped job: a stopped supervisor acts on it.
    for (const int signal : {SIGTERM, SIGCONT}) {
        if (const auto sent = signalAll(signal); !sent)
            return sent;
    }
    if (waitUntil(gone, std::max(0, graceMs)))
        return {};
    if (const auto sent = signalAll(SIGKILL); !sent)
        return sent;
    if (!waitUntil(gone, kKillWaitMs))
        return Error{u"processes of the run survived SIGKILL: %1"_s.arg(pidList(run::liveSessionMembers(l))),
                     dir.path(), 0, 0, u"they may be stuck in the kernel (state D); check them with ps"_s};
    return {};
}

// A run that has ended while its supervisor still packs its archives: TERM stops packing at once
// (the supervisor's finalize asks between chunks, review L1); waits for the supervisor to leave
// its (empty) archives and end.
void stopPacking(const RunDirectory &dir)
{
    const auto supervisor = dir.readSupervisor();
    if (!supervisor || !supervisor->has_value() || !run::supervisorAlive(**supervisor))
        return;
    if (QFile::exists(dir.modelArchive()) && QFile::exists(dir.outputArchive()))
        return;
    const SupervisorRecord &s = **supervisor;
    if (::kill(static_cast<pid_t>(s.supervisorPid), SIGTERM) != 0)
        return;
    waitUntil([&] { return !run::supervisorAlive(s); }, kSupervisorExitMs);
}

} // namespace

Expected<RunProbe> LocalTarget::cancelUnconfirmed(const RunDirectory &dir, int graceMs)
{
    if (const auto stopped = stopUnconfirmed(dir, graceMs); !stopped)
        return stopped.error();
    if (const auto packed = run::finalize(dir.path()); !packed)
        return packed.error();
    return probe(dir.path());
}

LocalTarget::LocalTarget(QString ferryProgram, int startTimeoutMs)
    : m_ferryProgram(std::move(ferryProgram)), m_startTimeoutMs(startTimeoutMs)
{
}

Expected<void> LocalTarget::start(const QString &runDir, const run::RunSpec &spec)
{
    if (const auto acceptable = checkSpecFor(spec, run::TargetKind::Local, u"this machine"_s); !acceptable)
        return acceptable;
    // The supervisor runs in the run folder: the claim makes the spec's paths absolute.
    const RunDirectory dir(runDir);
    if (const auto claimed = dir.claim(spec); !claimed)
        return claimed.error();

    QProcess process;
    process.setProgram(m_ferryProgram);
    process.setArguments({u"__supervise"_s, dir.path()});
    process.setWorkingDirectory(dir.path());
    process.setStandardInputFile(QProcess::nullDevice());
    process.setStandardOutputFile(dir.logFile(), QIODevice::Append);
    process.setStandardErrorFile(dir.logFile(), QIODevice::Append);
    qint64 pid = 0;
    if (!process.startDetached(&pid)) {
        const Error error{u"cannot start the run supervisor '%1': %2"_s.arg(m_ferryProgram, process.errorString()),
                          {},
                          0,
                          0,
                          u"reinstall Ferry"_s};
        dir.recordEnd(ExitRecord{-1, 0, 0, false, error.toString()});
        return error;
    }
    const quint64 ticks = run::processState(pid).value_or(run::ProcessState{}).startTicks;
    // Before it reports: a start that is not confirmed in time is still followed and cancelled by it.
    if (const auto launched = dir.writeLaunch(run::LaunchRecord{pid, ticks, run::currentBootId()}); !launched)
        qWarning("%s", qPrintable(launched.error().toString()));

    // supervisor.json appears once the script runs (however soon it ends); exit.json without
    // it means the script never started. The supervisor writes them in that order, so each
    // check reads supervisor.json first.
    const auto scriptStarted = [&] {
        const auto supervisor = dir.readSupervisor();
        return supervisor && supervisor->has_value();
    };
    const QDeadlineTimer deadline(m_startTimeoutMs);
    for (;;) {
        if (scriptStarted())
            return {};
        const auto exit = dir.readExit();
        if (exit && exit->has_value()) {
            if (scriptStarted())
                return {};
            const ExitRecord &e = **exit;
            const QString why =
                e.error.isEmpty() ? u"the run ended as it started (exit code %1)"_s.arg(e.exitCode) : e.error;
            return Error{why, dir.logFile(), 0, 0, {}};
        }
        if (!run::isSameLiveProcess(pid, ticks)) {
            // It may have written its records just before it ended: look once more.
            if (scriptStarted())
                return {};
            if (const auto last = dir.readExit(); last && last->has_value())
                continue;
            const Error error{u"the run supervisor ended without starting the script"_s, dir.logFile(), 0, 0,
                              u"see the log"_s};
            dir.recordEnd(ExitRecord{-1, 0, 0, false, error.toString()});
            return error;
        }
        if (deadline.hasExpired())
            return Error{u"the run supervisor did not start the script within %1 s"_s.arg(m_startTimeoutMs / 1000),
                         dir.logFile(), 0, 0, u"probe the run later, or cancel it"_s};
        QThread::msleep(kPollMs);
    }
}

Expected<RunProbe> LocalTarget::probe(const QString &runDir)
{
    return probeSupervisedRun(runDir, u"the run's supervisor"_s);
}

Expected<RunProbe> LocalTarget::cancel(const QString &runDir, int graceMs)
{
    const RunDirectory dir(runDir);
    const auto start = cancelStart<SupervisorRecord>(dir, [&] { return dir.readSupervisor(); });
    if (!start)
        return start.error();
    if (start->ended) { // it has ended already; what is left is packing
        stopPacking(dir);
        return probe(runDir);
    }
    if (!start->record)
        return cancelUnconfirmed(dir, graceMs);
    const SupervisorRecord &s = *start->record;
    const bool sameBoot = s.bootId.isEmpty() || s.bootId == run::currentBootId();
    const bool alive = run::supervisorAlive(s);
    // The group and its session (the supervisor's pid) identify the script's processes even
    // once the supervisor or the group's leader is gone.
    const auto members = [&] {
        return sameBoot ? run::liveGroupMembers(s.processGroup, s.supervisorPid) : QList<qint64>();
    };

    // The supervisor first, so it knows the end is a cancel before its script dies.
    if (alive && ::kill(static_cast<pid_t>(s.supervisorPid), SIGTERM) != 0 && errno != ESRCH)
        return Error{u"cannot signal the run supervisor (pid %1): %2"_s.arg(s.supervisorPid).arg(errnoText()),
                     dir.path(), 0, 0, u"it may belong to another user"_s};
    int lastSignal = 0;
    const auto signalGroup = [&](int signal) -> Expected<void> {
        lastSignal = signal;
        if (::kill(static_cast<pid_t>(-s.processGroup), signal) != 0 && errno != ESRCH)
            return Error{u"cannot signal the run's processes (group %1): %2"_s.arg(s.processGroup).arg(errnoText()),
                         dir.path(), 0, 0, u"they may belong to another user"_s};
        return {};
    };
    // A live supervisor forwards the TERM itself: the script gets it once.
    if (alive) {
        lastSignal = SIGTERM;
    } else if (!members().isEmpty()) {
        if (const auto sent = signalGroup(SIGTERM); !sent)
            return sent.error();
    }
    if (!waitUntil([&] { return members().isEmpty(); }, std::max(0, graceMs))) {
        if (const auto sent = signalGroup(SIGKILL); !sent)
            return sent.error();
        if (!waitUntil([&] { return members().isEmpty(); }, kKillWaitMs))
            return Error{u"processes of the run survived SIGKILL: %1"_s.arg(pidList(members())), dir.path(), 0, 0,
                         u"they may be stuck in the kernel (state D); check them with ps"_s};
    }

    const auto ended = [&] {
        const auto e = dir.readExit();
        return e && e->has_value();
    };
    if (alive && waitUntil([&] { return ended() || !run::supervisorAlive(s); }, kSupervisorExitMs) && ended())
        return probe(runDir); // the supervisor recorded it, and packs the archives
    dir.recordEnd(ExitRecord{-1, lastSignal, 0, true, dir.failureText()});
    if (!run::supervisorAlive(s)) {
        if (const auto packed = run::finalize(dir.path()); !packed)
            return packed.error();
    }
    return probe(runDir);
}

} // namespace ferry::targets
