#include "sweep/earlystopping.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::sweep {

double TrialCurve::bestUpTo(double step) const
{
    double best = std::numeric_limits<double>::quiet_NaN();
    for (const auto &[s, v] : points) {
        if (s > step)
            break;
        if (!std::isnan(v) && !(best <= v))
            best = v;
    }
    return best;
}

namespace {

double median(std::vector<double> v)
{
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// The others' best up to `step`, of those that reached it.
std::vector<double> peersAt(const std::vector<TrialCurve> &others, double step)
{
    std::vector<double> values;
    for (const TrialCurve &o : others) {
        if (o.lastStep() < step)
            continue;
        const double v = o.bestUpTo(step);
        if (!std::isnan(v))
            values.push_back(v);
    }
    return values;
}

// Judged at the trial's step, or at the furthest step before it that three others reached (a
// trial ahead of its peers, or whose peers were stopped, is still judged where they can be).
StoppingDecision medianRule(const TrialCurve &trial, const std::vector<TrialCurve> &others, double step, double minStep)
{
    std::vector<double> reached;
    for (const TrialCurve &o : others) {
        if (!o.points.empty())
            reached.push_back(o.lastStep());
    }
    if (reached.size() < 3)
        return {};
    std::nth_element(reached.begin(), reached.begin() + 2, reached.end(), std::greater<>());
    const double at = std::min(step, reached[2]);
    if (at < minStep)
        return {};
    const double mine = trial.bestUpTo(at);
    const std::vector<double> peers = peersAt(others, at);
    if (std::isnan(mine) || peers.size() < 3)
        return {};
    const double m = median(peers);
    if (!(mine > m))
        return {};
    return {true, u"at step %1 its best (%2) is worse than the median of %3 other trials (%4)"_s.arg(at)
                      .arg(mine)
                      .arg(peers.size())
                      .arg(m)};
}

StoppingDecision ashaRule(const EarlyStopping &rule, const TrialCurve &trial, const std::vector<TrialCurve> &others,
                          double step)
{
    const double eta = rule.reductionFactor;
    // The highest rung the trial has reached.
    double rung = std::max<double>(1, double(rule.minSteps));
    if (step < rung)
        return {};
    while (rung * eta <= step)
        rung *= eta;
    const double mine = trial.bestUpTo(rung);
    std::vector<double> all = peersAt(others, rung);
    if (std::isnan(mine) || double(all.size() + 1) < eta)
        return {};
    all.push_back(mine);
    std::sort(all.begin(), all.end());
    const std::size_t kept = std::max<std::size_t>(1, std::size_t(std::floor(double(all.size()) / eta)));
    if (mine <= all[kept - 1])
        return {};
    return {true, u"at rung %1 it is not in the best %2 of %3 trials"_s.arg(rung).arg(kept).arg(all.size())};
}

StoppingDecision banditRule(const EarlyStopping &rule, const TrialCurve &trial, const std::vector<TrialCurve> &others,
                            double step)
{
    const double mine = trial.bestUpTo(step);
    double best = mine;
    for (const TrialCurve &o : others) {
        const double v = o.bestUpTo(step);
        if (!std::isnan(v) && !(best <= v))
            best = v;
    }
    if (std::isnan(mine) || std::isnan(best) || best == mine)
        return {};
    const double limit = best + std::abs(best) * rule.slack;
    if (!(mine > limit))
        return {};
    return {true, u"at step %1 its best (%2) is worse than the best trial's (%3) by more than %4%"_s.arg(step)
                      .arg(mine)
                      .arg(best)
                      .arg(rule.slack * 100)};
}

} // namespace

StoppingDecision shouldStop(const EarlyStopping &rule, const TrialCurve &trial, const std::vector<TrialCurve> &others)
{
    const double step = trial.lastStep();
    if (step < 0 || step < double(rule.minSteps))
        return {};
    switch (rule.rule) {
    case StoppingRule::None:
        return {};
    case StoppingRule::Median:
        return medianRule(trial, others, step, double(rule.minSteps));
    case StoppingRule::Asha:
        return ashaRule(rule, trial, others, step);
    case StoppingRule::Bandit:
        return banditRule(rule, trial, others, step);
    }
    return {};
}

} // namespace ferry::sweep
