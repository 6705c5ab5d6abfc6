// SweepPlotData: the sweep view's plots' axes and trial positions, made from a sweep's state and
// file.
#pragma once

// What the sweep view's plots draw (ui/sweep/sweepplots.h, ui/analysis/parallelcoordinates.h),
// made from a sweep's state and file: a PlotTable (ui/analysis/plottable.h) with one axis per
// searched parameter and one for the objective, each trial a line of positions on them (a numeric
// parameter by its value, on a log scale for log distributions; a list by the value's place in
// it), coloured by its objective's rank (orange the worst, blue the best), the best highlighted;
// and beside each line its trial: number, status, objective.
#include "sweep/sweepstate.h"
#include "ui/analysis/plottable.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace ferry::ui {

struct SweepPlotTrial {
    int number = 0;
    sweep::TrialStatus status = sweep::TrialStatus::Starting;
    std::optional<double> objective;
};

class SweepPlotData : public PlotTable {
public:
    SweepPlotData() = default;
    SweepPlotData(const sweep::SweepSpec &spec, const sweep::SweepState &state);

    // One per line of the table, in the same order.
    const std::vector<SweepPlotTrial> &trials() const { return m_trials; }
    std::optional<int> best() const { return m_best; } // an index into trials()
    bool minimize() const { return m_minimize; }
    QString metric() const { return m_metric; }
    // How good an objective is among the trials, by its rank: 0 (the worst) to 1 (the best);
    // nullopt without one.
    std::optional<double> quality(const SweepPlotTrial &trial) const;
    // The worst and the best objective of the trials, the ends of the colour scale; none without
    // an objective.
    std::optional<std::pair<double, double>> objectiveSpan() const;

    QSet<int> passingTrials() const; // the numbers of the trials inside the brushed ranges

private:
    std::vector<SweepPlotTrial> m_trials;
    std::optional<int> m_best;
    bool m_minimize = true;
    QString m_metric;
    std::vector<double> m_sortedObjectives; // best first
};

} // namespace ferry::ui
