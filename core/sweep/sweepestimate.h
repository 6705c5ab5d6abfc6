// A sweep's estimate before it starts: each planned trial's time and cost (cost/estimate.h) and
// their total, for `ferry sweep plan` and the sweep dialog alike.
#pragma once

#include "cost/estimate.h"
#include "sweep/sweepfile.h"

#include <QList>
#include <QString>

namespace ferry::sweep {

// One estimate per planned trial: the trial template (sweepcontroller.h's trialTemplate) with the
// trial's parameters; a TPE trial past the first ones is estimated from the fixed parameters
// alone, unless the sweep searches its work parameter (then it has none).
QList<cost::CostEstimate> estimateTrials(const SweepSpec &spec, const run::RunSpec &trialTemplate,
                                         const QList<run::RunRecord> &history, const cost::Rates &rates);

// The total in words, two lines: "estimate: 12 trials, 2 at a time: about 5m 00s until the last
// ends (...), ... of runs in all" and the cost at the trials' rate; or why there is no total.
QString sweepEstimateText(const SweepSpec &spec, const QList<cost::CostEstimate> &trials);

} // namespace ferry::sweep
