// How many instances and processes per instance a run handed to a cloud asks for, a multi-node
// run's nodes and tasks included.
#pragma once

// How big the job a run is handed off as (cloudhandoff.h) is: a run across nodes (issue 20,
// run/distribution.h) asks for its nodes as instances and starts its tasks per node on each, as
// AzureML's `distribution: {type: pytorch, process_count_per_instance: T}` and SageMaker's
// `distribution={"torch_distributed": {"enabled": True}}` do. Internal to core/cloud and the
// export command.
#include "cloud/cloudhandoff.h"

#include <QString>

namespace ferry::run {

struct HandoffScale {
    int instances = 1;
    int processesPerInstance = 1;
    bool distributed = false; // the job is a PyTorch-distributed one
    QString note;             // an instance count given that differs from the run's nodes, said
};

// The run's own nodes and tasks per node when it is distributed, else one process on the
// instance count given (default 1). An instance count given for a distributed run is honoured
// (each instance still starts the run's tasks per node), and said in `note` when it differs.
HandoffScale handoffScale(const RunSpec &spec, const HandoffOptions &options);

} // namespace ferry::run
