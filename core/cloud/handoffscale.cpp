#include "cloud/handoffscale.h"

#include "run/distribution.h"

using namespace Qt::StringLiterals;

namespace ferry::run {

HandoffScale handoffScale(const RunSpec &spec, const HandoffOptions &options)
{
    HandoffScale scale;
    const Distribution distribution = Distribution::orSingle(spec.target);
    scale.instances = options.instanceCount > 0 ? options.instanceCount : 1;
    if (!distribution.isDistributed())
        return scale;
    scale.distributed = true;
    scale.processesPerInstance = distribution.tasksPerNode;
    if (options.instanceCount <= 0) {
        scale.instances = distribution.nodes;
    } else if (options.instanceCount != distribution.nodes) {
        scale.note = u"%1 runs on %2 node(s) with %3 task(s) each; the job asks for %4 instance(s) (--instance-count), "
                     u"each starting %3 process(es): %5 in all"_s.arg(spec.id.isEmpty() ? u"the run"_s : spec.id)
                         .arg(distribution.nodes)
                         .arg(distribution.tasksPerNode)
                         .arg(options.instanceCount)
                         .arg(options.instanceCount * distribution.tasksPerNode);
    }
    return scale;
}

} // namespace ferry::run
