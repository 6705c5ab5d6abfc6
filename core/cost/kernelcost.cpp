#include "cost/kernelcost.h"

namespace ferry::cost {

run::RunRecord kernelRecord(const QString &id, const run::RunSpec &spec, qint64 startedMs, qint64 finishedMs)
{
    run::RunRecord record;
    record.id = id;
    record.name = id;
    record.target = spec.target.toString();
    record.spec = spec.toJson();
    record.createdMs = startedMs;
    record.startedMs = startedMs;
    record.finishedMs = finishedMs;
    record.status = finishedMs > 0 ? run::RunStatus::Succeeded : run::RunStatus::Running;
    return record;
}

} // namespace ferry::cost
