// One run across several nodes and tasks, read from and written to its target's options.
#pragma once

// One run across several processes (issue 20): N nodes with T tasks on each, as SageMaker's
// `instance_count` with `distribution={"torch_distributed": ...}` and AzureML's
// `distribution: {type: pytorch}` run a script. Held in the target's options ("nodes",
// "tasksPerNode", "gpusPerNode"); only a Slurm target runs it, every other refuses it. One node
// with one task is not distributed: the run is started as any other.
#include "common/error.h"
#include "run/runspec.h"

#include <QJsonObject>
#include <QString>

namespace ferry::run {

inline constexpr QLatin1StringView kNodesOption{"nodes"};
inline constexpr QLatin1StringView kTasksPerNodeOption{"tasksPerNode"};
inline constexpr QLatin1StringView kGpusPerNodeOption{"gpusPerNode"};

struct Distribution {
    int nodes = 1;
    int tasksPerNode = 1;
    int gpusPerNode = -1; // -1: none asked (the target's own "gpus", if any)

    bool isDistributed() const { return nodes > 1 || tasksPerNode > 1; }
    int worldSize() const { return nodes * tasksPerNode; }

    // From the target's options; an Error names the bad option (a count that is not 1 to 10000,
    // or a distribution on a target other than Slurm, with what to do instead).
    static Expected<Distribution> of(const TargetSpec &target);
    // The same, one node with one task where the options are not valid (the start refuses them).
    static Distribution orSingle(const TargetSpec &target);
    // Into the target's options (only what differs from one node, one task).
    void writeTo(QJsonObject &options) const;

    // SM_FRAMEWORK_PARAMS: the distribution as SageMaker's toolkit hands it to a script
    // ({"sagemaker_torch_distributed_enabled": true, "sagemaker_instance_count": N,
    // "sagemaker_processes_per_host": T}); a run that is not distributed gets {}.
    QJsonObject frameworkParams() const;
};

} // namespace ferry::run
