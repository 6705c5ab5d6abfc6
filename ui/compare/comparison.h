// Comparison: everything the compare view shows of two or more runs, read off the GUI thread.
#pragma once

// What the compare view shows of two or more runs, read off the GUI thread: the first run (the
// baseline) against each other one (tracking/rundiff.h: parameters, code, git, environment, what
// else differs, metrics last and best), the environments' changes as the environment editor's
// versions view shows them, and every metric's points, for the value at a chosen step and for
// the chart panels.
#include "env/environmentdiff.h"
#include "tracking/rundiff.h"

#include <QHash>
#include <QStringList>

#include <memory>
#include <optional>
#include <vector>

namespace ferry::ui {

class SeriesStore;

struct Comparison {
    QList<run::RunRecord> runs; // the baseline first
    QStringList names;          // each run's name for a person (run::distinguishingNames: "train lr=0.03"), in order
    QList<run::RunDiff> diffs;  // the baseline against runs[1], runs[2], ...
    QList<QList<env::EnvironmentChange>> environments; // the same pairs; empty where a run kept none
    QStringList metrics; // every metric of any run, sorted (the machine's samples left out)
    QHash<QString, std::vector<run::SeriesPoint>> points; // seriesKey(run, metric) -> its points by step
    std::shared_ptr<SeriesStore> chart;                   // the same points, for LossChartPanel

    static QString seriesKey(const QString &runId, const QString &metric) { return runId + u'\x1f' + metric; }
    // The run's last and best of a metric, as RunDiff has them (nullopt: none).
    std::optional<double> last(int run, const QString &metric) const;
    std::optional<double> best(int run, const QString &metric) const;
    // The run's value at `step`: its last point at or before the step (nullopt: none yet).
    std::optional<double> valueAt(int run, const QString &metric, double step) const;
    // The highest step of any point, for the step box's range.
    double lastStep() const;
};

// One row of the parameters table: the name and each run's value (nullopt: the run had none).
struct ComparedParameter {
    QString name;
    QList<std::optional<QString>> values; // one per run, the baseline first
    bool differs() const;
};
// Every parameter of the runs: the baseline's in its order, then the others' new ones.
QList<ComparedParameter> comparedParameters(const Comparison &comparison);

// Reads the runs from the store and compares them (the baseline is runIds' first). Blocking
// (the object store's files, every metric's points): make it off the GUI thread. An Error names
// a run that is not in the store or whose stored spec cannot be read.
Expected<Comparison> loadComparison(const run::RunStore &store, const QString &objectsDir, const QStringList &runIds);

} // namespace ferry::ui
