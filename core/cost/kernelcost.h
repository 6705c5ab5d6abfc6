// A kernel session as the cost report prices it: the time its kernel ran on its target, at the
// kernel's rate (kernel:TARGET, else TARGET's; docs/cost.md).
#pragma once

#include "run/runspec.h"
#include "store/runstore.h"

namespace ferry::cost {

// The record costOf prices for a kernel (kernelhost's KernelSummary: its id and spec, its start,
// its end or 0 while it runs): its id, target and spec, running or over. Kernels are no runs of
// the store; the report lists them with the runs (`ferry cost report`, the Costs view).
run::RunRecord kernelRecord(const QString &id, const run::RunSpec &spec, qint64 startedMs, qint64 finishedMs);

} // namespace ferry::cost
