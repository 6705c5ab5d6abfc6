#include "sweep/sweepestimate.h"

#include "common/durationtext.h"
#include "cost/money.h"
#include "sweep/sampler.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

QList<cost::CostEstimate> estimateTrials(const SweepSpec &spec, const run::RunSpec &trialTemplate,
                                         const QList<run::RunRecord> &history, const cost::Rates &rates)
{
    QList<cost::CostEstimate> trials;
    const Sampler sampler(spec);
    const int planned = spec.plannedTrials();
    bool sweptWork = false;
    for (const Parameter &p : spec.parameters)
        sweptWork = sweptWork || cost::workParameterNames().contains(p.name);
    for (int n = 0; n < planned; ++n) {
        run::RunSpec trial = trialTemplate;
        std::optional<Point> point;
        if (spec.method != Method::Bayes || n < Sampler::kStartupTrials)
            point = sampler.sample(n, {});
        if (point)
            trial.hyperparameters << sampler.hyperparameters(*point);
        else if (sweptWork) { // its work is TPE's to choose: no estimate
            trials << cost::CostEstimate{cost::DurationEstimate{}, cost::rateFor(trial, rates)};
            continue;
        }
        trials << cost::estimateCost(trial, history, rates);
    }
    return trials;
}

QString sweepEstimateText(const SweepSpec &spec, const QList<cost::CostEstimate> &trials)
{
    const cost::TotalEstimate t = cost::totalEstimate(trials, spec.maxParallel);
    if (!t.complete())
        return u"estimate: no history for %1 of %2 trials (no comparable run has finished in this workspace, or TPE "
               u"picks their work): no total"_s.arg(t.trials - t.withHistory)
                   .arg(t.trials);
    const auto text = [](double seconds) { return ferry::durationText(qint64(std::llround(seconds * 1000))); };
    QString out =
        u"estimate: %1 trials, %2 at a time: about %3 until the last ends (%4 to %5), %6 of runs in all"_s.arg(t.trials)
            .arg(spec.maxParallel)
            .arg(text(t.typicalWallSeconds), text(t.lowWallSeconds), text(t.highWallSeconds), text(t.typicalSeconds));
    const cost::CostEstimate &first = trials.constFirst();
    if (t.typicalCost)
        out += u"\ncost: about %1 (%2 to %3) at %4"_s.arg(cost::moneyText(*t.typicalCost), cost::moneyText(*t.lowCost),
                                                          cost::moneyText(*t.highCost),
                                                          cost::appliedRateText(first.rate, run::RunSpec{}));
    else
        out += u"\ncost: unknown, the rate of the trials' target is unknown (ferry rates set TARGET AMOUNT/h)"_s;
    return out;
}

} // namespace ferry::sweep
