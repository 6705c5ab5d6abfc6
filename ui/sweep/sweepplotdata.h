// SweepPlotData: the sweep view's plots' axes and trial positions, made from a sweep's state and
// file.
#pragma once

// What the sweep view's plots draw (ui/sweep/sweepplots.h), made from a sweep's state and file:
// one axis per searched parameter and one for the objective, each trial a row of positions in
// [0, 1] on them (a numeric parameter by its value, on a log scale for log distributions; a
// list by the value's place in it), the trials a filter lets through, and the best.
#include "sweep/sweepstate.h"

#include <QList>
#include <QSet>
#include <QString>
#include <QStringList>

#include <optional>
#include <utility>
#include <vector>

namespace ferry::ui {

struct SweepAxis {
    QString name;
    bool log = false;
    double lo = 0, hi = 1;  // the numeric range (log10 of it on a log axis)
    QStringList categories; // a list parameter: its values, in order; empty: numeric
    bool isObjective = false;

    // A value's place on the axis, in [0, 1]; nullopt when it has none (not a number, not listed).
    std::optional<double> position(const QString &value) const;
    std::optional<double> position(double value) const;
    // The value at a place (numeric axes), for labels.
    double valueAt(double t) const;
};

struct SweepPlotTrial {
    int number = 0;
    sweep::TrialStatus status = sweep::TrialStatus::Starting;
    std::optional<double> objective;
    std::vector<std::optional<double>> positions; // one per axis, the objective's last
};

class SweepPlotData {
public:
    SweepPlotData() = default;
    SweepPlotData(const sweep::SweepSpec &spec, const sweep::SweepState &state);

    const std::vector<SweepAxis> &axes() const { return m_axes; }
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

    // The brushed ranges, per axis ([lo, hi] in axis positions); a trial passes when it lies
    // inside every one.
    void setRange(int axis, std::optional<std::pair<double, double>> range);
    std::optional<std::pair<double, double>> range(int axis) const;
    void clearRanges();
    bool passes(const SweepPlotTrial &trial) const;
    QSet<int> passingTrials() const; // trial numbers
    bool filtered() const;
    // Changes with every new data or range: what a plot's cached picture is keyed by.
    quint64 generation() const { return m_generation; }

private:
    static quint64 nextGeneration();
    quint64 m_generation = nextGeneration();
    std::vector<SweepAxis> m_axes;
    std::vector<SweepPlotTrial> m_trials;
    std::vector<std::optional<std::pair<double, double>>> m_ranges;
    std::optional<int> m_best;
    bool m_minimize = true;
    QString m_metric;
    double m_objectiveLo = 0, m_objectiveHi = 1;
    std::vector<double> m_sortedObjectives; // best first
};

} // namespace ferry::ui
