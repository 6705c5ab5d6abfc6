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

Expected<run::LogChunk> Target::readLog(const QString &runDir, qint64 offset, run::LogTail::Limits limits)
{
    return run::LogTail::read(run::RunDirectory(runDir).logFile(), offset, limits);
}

} // namespace ferry::targets
