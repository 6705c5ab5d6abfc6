#include "ui/sweep/sweepplotdata.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <functional>

using namespace Qt::StringLiterals;

namespace ferry::ui {

quint64 SweepPlotData::nextGeneration()
{
    static std::atomic<quint64> next{1};
    return next++;
}

std::optional<double> SweepAxis::position(const QString &value) const
{
    if (!categories.isEmpty()) {
        const qsizetype i = categories.indexOf(value);
        if (i < 0)
            return std::nullopt;
        return (double(i) + 0.5) / double(categories.size());
    }
    bool ok = false;
    const double v = value.toDouble(&ok);
    return ok ? position(v) : std::nullopt;
}

std::optional<double> SweepAxis::position(double value) const
{
    if (!std::isfinite(value) || (log && value <= 0))
        return std::nullopt;
    const double v = log ? std::log10(value) : value;
    if (hi <= lo)
        return 0.5;
    return std::clamp((v - lo) / (hi - lo), 0.0, 1.0);
}

double SweepAxis::valueAt(double t) const
{
    const double v = lo + t * (hi - lo);
    return log ? std::pow(10.0, v) : v;
}

SweepPlotData::SweepPlotData(const sweep::SweepSpec &spec, const sweep::SweepState &state)
    : m_minimize(spec.goal == sweep::Goal::Minimize), m_metric(spec.metric)
{
    using sweep::Distribution;
    for (const sweep::Parameter &p : spec.parameters) {
        SweepAxis axis;
        axis.name = p.name;
        if (p.distribution == Distribution::Values) {
            axis.categories = p.values;
        } else {
            axis.log = p.distribution == Distribution::LogUniform || p.distribution == Distribution::LogIntUniform;
            axis.lo = axis.log ? std::log10(p.min) : p.min;
            axis.hi = axis.log ? std::log10(p.max) : p.max;
        }
        m_axes.push_back(axis);
    }
    // The objective's axis spans the values the trials reached.
    bool any = false;
    for (const sweep::Trial &t : state.trials) {
        if (!t.objective || !std::isfinite(*t.objective))
            continue;
        m_objectiveLo = any ? std::min(m_objectiveLo, *t.objective) : *t.objective;
        m_objectiveHi = any ? std::max(m_objectiveHi, *t.objective) : *t.objective;
        any = true;
    }
    SweepAxis objective;
    objective.name = spec.metric;
    objective.isObjective = true;
    objective.lo = m_objectiveLo;
    objective.hi = m_objectiveHi;
    m_axes.push_back(objective);
    m_ranges.resize(m_axes.size());

    for (const sweep::Trial &t : state.trials) {
        if (t.objective && std::isfinite(*t.objective))
            m_sortedObjectives.push_back(*t.objective);
    }
    if (m_minimize)
        std::sort(m_sortedObjectives.begin(), m_sortedObjectives.end());
    else
        std::sort(m_sortedObjectives.begin(), m_sortedObjectives.end(), std::greater<>());
    const auto best = state.best(spec.goal);
    for (const sweep::Trial &t : state.trials) {
        SweepPlotTrial row;
        row.number = t.number;
        row.status = t.status;
        row.objective = t.objective && std::isfinite(*t.objective) ? t.objective : std::nullopt;
        for (const sweep::Parameter &p : spec.parameters) {
            const auto hp = std::find_if(t.hyperparameters.cbegin(), t.hyperparameters.cend(),
                                         [&](const run::Hyperparameter &h) { return h.name == p.name; });
            row.positions.push_back(hp == t.hyperparameters.cend() ? std::nullopt
                                                                   : m_axes[row.positions.size()].position(hp->value));
        }
        row.positions.push_back(row.objective ? m_axes.back().position(*row.objective) : std::nullopt);
        if (best && *best == t.number)
            m_best = int(m_trials.size());
        m_trials.push_back(std::move(row));
    }
}

std::optional<double> SweepPlotData::quality(const SweepPlotTrial &trial) const
{
    if (!trial.objective)
        return std::nullopt;
    if (m_sortedObjectives.size() < 2)
        return 1.0;
    const auto at = m_minimize
                        ? std::lower_bound(m_sortedObjectives.cbegin(), m_sortedObjectives.cend(), *trial.objective)
                        : std::lower_bound(m_sortedObjectives.cbegin(), m_sortedObjectives.cend(), *trial.objective,
                                           std::greater<>());
    const double rank = double(at - m_sortedObjectives.cbegin());
    return 1.0 - rank / double(m_sortedObjectives.size() - 1);
}

std::optional<std::pair<double, double>> SweepPlotData::objectiveSpan() const
{
    if (m_sortedObjectives.empty())
        return std::nullopt;
    return std::pair{m_sortedObjectives.back(), m_sortedObjectives.front()};
}

void SweepPlotData::setRange(int axis, std::optional<std::pair<double, double>> range)
{
    if (axis < 0 || axis >= int(m_ranges.size()))
        return;
    if (range && range->first > range->second)
        std::swap(range->first, range->second);
    m_ranges[std::size_t(axis)] = range;
    m_generation = nextGeneration();
}

std::optional<std::pair<double, double>> SweepPlotData::range(int axis) const
{
    if (axis < 0 || axis >= int(m_ranges.size()))
        return std::nullopt;
    return m_ranges[std::size_t(axis)];
}

void SweepPlotData::clearRanges()
{
    std::fill(m_ranges.begin(), m_ranges.end(), std::nullopt);
    m_generation = nextGeneration();
}

bool SweepPlotData::filtered() const
{
    return std::any_of(m_ranges.cbegin(), m_ranges.cend(), [](const auto &r) { return r.has_value(); });
}

bool SweepPlotData::passes(const SweepPlotTrial &trial) const
{
    for (std::size_t a = 0; a < m_ranges.size(); ++a) {
        if (!m_ranges[a])
            continue;
        const auto &p = trial.positions[a];
        if (!p || *p < m_ranges[a]->first || *p > m_ranges[a]->second)
            return false;
    }
    return true;
}

QSet<int> SweepPlotData::passingTrials() const
{
    QSet<int> numbers;
    for (const SweepPlotTrial &t : m_trials) {
        if (passes(t))
            numbers.insert(t.number);
    }
    return numbers;
}

} // namespace ferry::ui
