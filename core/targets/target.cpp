#include "targets/target.h"

#include "run/supervisor.h"

#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::targets {

QString stateName(RunState state)
{
    switch (state) {
    case RunState::Running:
        return u"running"_s;
    case RunState::Succeeded:
        return u"succeeded"_s;
    case RunState::Failed:
        return u"failed"_s;
    case RunState::Cancelled:
        return u"cancelled"_s;
    case RunState::Lost:
        break;
    }
    return u"lost"_s;
}

RunState stateOf(const run::ExitRecord &exit)
{
    if (exit.cancelled)
        return RunState::Cancelled;
    return exit.succeeded() ? RunState::Succeeded : RunState::Failed;
}

QString pidList(const QList<qint64> &pids)
{
    QStringList words;
    for (const qint64 pid : pids)
        words << QString::number(pid);
    return words.join(u", "_s);
}

Error noRunFolder(const run::RunDirectory &dir)
{
    return Error{u"not a run folder: spec.json is missing"_s, dir.path(), 0, 0, u"name a folder under .ferry/runs"_s};
}

Expected<bool> runHasEnded(const run::RunDirectory &dir)
{
    if (!QFileInfo::exists(dir.specFile()))
        return noRunFolder(dir);
    const auto exit = dir.readExit();
    if (!exit)
        return exit.error();
    return exit->has_value();
}

Expected<RunProbe> probeSupervisedRun(const QString &runDir, const QString &who)
{
    const run::RunDirectory dir(runDir);
    if (!QFileInfo::exists(dir.specFile()))
        return noRunFolder(dir);
    const auto supervisor = dir.readSupervisor();
    const bool alive = supervisor && supervisor->has_value() && run::supervisorAlive(**supervisor);
    // Read after the liveness check: the process writes exit.json before it ends, so a run
    // whose process was gone above and has no exit record now has truly lost it.
    const auto exit = dir.readExit();
    if (!exit)
        return exit.error();

    RunProbe status;
    status.heartbeatMs = dir.heartbeatMs();
    if (exit->has_value()) {
        status.exit = **exit;
        status.state = stateOf(**exit);
        status.archived = QFileInfo::exists(dir.modelArchive()) && QFileInfo::exists(dir.outputArchive());
        if (!status.archived && !alive) { // it died while packing, or never got there
            const auto packed = run::finalize(dir.path());
            status.archived = packed.hasValue();
            if (!packed)
                status.detail = packed.error().toString();
        }
        return status;
    }
    if (alive) {
        status.state = RunState::Running;
        return status;
    }
    // Not over while any of its processes lives (M4): a start not confirmed yet, or a script
    // whose supervisor was killed. Ferry keeps following it, and a cancel stops what is left.
    if (supervisor && supervisor->has_value()) {
        const run::SupervisorRecord &s = **supervisor;
        const bool sameBoot = s.bootId.isEmpty() || s.bootId == run::currentBootId();
        const QList<qint64> left = sameBoot ? run::liveGroupMembers(s.processGroup, s.supervisorPid) : QList<qint64>();
        if (!left.isEmpty()) {
            status.state = RunState::Running;
            status.detail = u"%1 (pid %2) is gone, but the script's processes still run (%3): cancel stops them"_s.arg(
                who, QString::number(s.supervisorPid), pidList(left));
            return status;
        }
    } else if (supervisor) {
        const auto launch = dir.readLaunch();
        if (launch && launch->has_value() && run::launchedAlive(**launch)) {
            status.state = RunState::Running;
            status.detail = u"starting: %1 (pid %2) has not started the script yet"_s.arg(who).arg((*launch)->pid);
            return status;
        }
    }
    status.state = RunState::Lost;
    if (!supervisor)
        status.detail = supervisor.error().toString();
    else if (!supervisor->has_value())
        status.detail = u"%1 never reported: the run did not start"_s.arg(who);
    else
        status.detail = u"%1 (pid %2) is gone and left no exit record"_s.arg(who).arg((*supervisor)->supervisorPid);
    return status;
}

Expected<void> checkSpecFor(const run::RunSpec &spec, run::TargetKind kind, const QString &place)
{
    if (spec.target.kind != kind)
        return Error{
            u"run '%1' is for target '%2', not %3"_s.arg(spec.id, spec.target.toString(), place), {}, 0, 0, {}};
    const QList<Error> problems = run::validateRunSpec(spec);
    if (problems.isEmpty())
        return {};
    Error first = problems.first();
    if (problems.size() > 1)
        first.message += u" (and %1 more problems)"_s.arg(problems.size() - 1);
    return first;
}

Expected<run::LogChunk> Target::readLog(const QString &runDir, qint64 offset, run::LogTail::Limits limits)
{
    return run::LogTail::read(run::RunDirectory(runDir).logFile(), offset, limits);
}

} // namespace ferry::targets
