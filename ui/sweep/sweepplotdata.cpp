#include "ui/sweep/sweepplotdata.h"

#include "ui/chart/chartaxis.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <functional>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

std::vector<PlotAxis> sweepAxes(const sweep::SweepSpec &spec, const sweep::SweepState &state)
{
    using sweep::Distribution;
    std::vector<PlotAxis> axes;
    for (const sweep::Parameter &p : spec.parameters) {
        PlotAxis axis;
        axis.name = p.name;
        if (p.distribution == Distribution::Values) {
            axis.categories = p.values;
        } else {
            axis.log = p.distribution == Distribution::LogUniform || p.distribution == Distribution::LogIntUniform;
            axis.lo = axis.log ? std::log10(p.min) : p.min;
            axis.hi = axis.log ? std::log10(p.max) : p.max;
        }
        axes.push_back(axis);
    }
    // The objective's axis spans the values the trials reached.
    PlotAxis objective;
    objective.name = spec.metric;
    objective.emphasised = true;
    bool any = false;
    for (const sweep::Trial &t : state.trials) {
        if (!t.objective || !std::isfinite(*t.objective))
            continue;
        objective.lo = any ? std::min(objective.lo, *t.objective) : *t.objective;
        objective.hi = any ? std::max(objective.hi, *t.objective) : *t.objective;
        any = true;
    }
    axes.push_back(objective);
    return axes;
}

} // namespace

SweepPlotData::SweepPlotData(const sweep::SweepSpec &spec, const sweep::SweepState &state)
    : m_minimize(spec.goal == sweep::Goal::Minimize), m_metric(spec.metric)
{
    for (const sweep::Trial &t : state.trials) {
        if (t.objective && std::isfinite(*t.objective))
            m_sortedObjectives.push_back(*t.objective);
    }
    if (m_minimize)
        std::sort(m_sortedObjectives.begin(), m_sortedObjectives.end());
    else
        std::sort(m_sortedObjectives.begin(), m_sortedObjectives.end(), std::greater<>());
    std::vector<PlotAxis> axes = sweepAxes(spec, state);
    std::vector<PlotLine> lines;
    const auto best = state.best(spec.goal);
    for (const sweep::Trial &t : state.trials) {
        SweepPlotTrial trial;
        trial.number = t.number;
        trial.status = t.status;
        trial.objective = t.objective && std::isfinite(*t.objective) ? t.objective : std::nullopt;
        PlotLine line;
        line.key = QString::number(t.number);
        line.label = QCoreApplication::translate("ferry::ui::SweepPlotData", "trial %1").arg(t.number);
        for (const sweep::Parameter &p : spec.parameters) {
            const auto hp = std::find_if(t.hyperparameters.cbegin(), t.hyperparameters.cend(),
                                         [&](const run::Hyperparameter &h) { return h.name == p.name; });
            line.positions.push_back(hp == t.hyperparameters.cend() ? std::nullopt
                                                                    : axes[line.positions.size()].position(hp->value));
        }
        line.positions.push_back(trial.objective ? axes.back().position(*trial.objective) : std::nullopt);
        line.color = quality(trial);
        line.order = line.color.value_or(-1);
        if (best && *best == t.number)
            m_best = int(m_trials.size());
        m_trials.push_back(trial);
        lines.push_back(std::move(line));
    }
    ColorScale scale;
    scale.stops = ColorScale::worstToBest();
    if (const auto span = objectiveSpan()) {
        scale.title = QCoreApplication::translate("ferry::ui::SweepPlotData", "colour: %1, by rank").arg(m_metric);
        scale.lowLabel =
            QCoreApplication::translate("ferry::ui::SweepPlotData", "worst %1").arg(formatValue(span->first));
        scale.highLabel =
            QCoreApplication::translate("ferry::ui::SweepPlotData", "best %1").arg(formatValue(span->second));
    }
    static_cast<PlotTable &>(*this) = PlotTable(std::move(axes), std::move(lines), std::move(scale),
                                                QCoreApplication::translate("ferry::ui::SweepPlotData", "trials"));
    if (m_best)
        setHighlighted({QString::number(m_trials[std::size_t(*m_best)].number)});
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

QSet<int> SweepPlotData::passingTrials() const
{
    QSet<int> numbers;
    for (std::size_t i = 0; i < m_trials.size(); ++i) {
        if (passes(i))
            numbers.insert(m_trials[i].number);
    }
    return numbers;
}

} // namespace ferry::ui
