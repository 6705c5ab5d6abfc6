#include "targets/target.h"

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

Expected<bool> checkSpecFor(const run::RunSpec &spec, run::TargetKind kind, const QString &place)
{
    if (spec.target.kind != kind)
        return Error{
            u"run '%1' is for target '%2', not %3"_s.arg(spec.id, spec.target.toString(), place), {}, 0, 0, {}};
    const QList<Error> problems = run::validateRunSpec(spec);
    if (problems.isEmpty())
        return true;
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
