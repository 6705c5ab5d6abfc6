// Early stopping of a sweep's trials: decides from every trial's live metric curve whether a
// running one should be cancelled.
#pragma once

// Early stopping of a sweep's trials from their live metric (docs/sweep-format.md): whether a
// running trial should be cancelled now, given every trial's curve so far.
#include "sweep/sweepfile.h"

#include <vector>

namespace ferry::sweep {

// One trial's values of the sweep's metric, made ones to minimise (Sampler::minimized), with
// the step each was written at, in step order.
struct TrialCurve {
    int trial = 0;
    std::vector<std::pair<double, double>> points; // (step, value)

    // The best value written at a step up to `step` (a noisy curve judged by its best, as the
    // rules of Vizier and AzureML do); NaN when none.
    double bestUpTo(double step) const;
    double lastStep() const { return points.empty() ? -1 : points.back().first; }
};

struct StoppingDecision {
    bool stop = false;
    QString reason; // for the trial's log and the sweep view: "worse than the median ..."
};

// Whether `trial` (running) should stop now, against `others` (every other trial of the sweep,
// running or finished). Never before the rule's min_steps, never on too few peers to judge:
//   median: its best so far is worse than the median of the others' best up to its step (at
//           least 3 others reached that step; when fewer did, at the furthest step of its own,
//           from min_steps on, that 3 others reached);
//   asha:   at the highest rung it has reached (rungs at min_steps x reduction_factor^k; the first
//           at min_steps, or 1), it is not in the best 1 / reduction_factor of the trials that
//           reached that rung (at least reduction_factor of them);
//   bandit: its best so far is worse than the best of all trials up to its step by more than
//           slack (a fraction of the best's magnitude).
StoppingDecision shouldStop(const EarlyStopping &rule, const TrialCurve &trial, const std::vector<TrialCurve> &others);

} // namespace ferry::sweep
