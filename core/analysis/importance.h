// Which hyperparameters mattered for a set of runs: each parameter's correlation with a chosen
// metric and its importance in a random forest fitted to it, as W&B's parameter importance shows.
#pragma once

// Parameter importance (docs/metrics.md, *Parameter importance*): the runs' parameters made into
// features (numbers as they are; text one-hot), the chosen value of each run (analysis/runvalues.h)
// the target, then Pearson's correlation and a random forest's importance (analysis/randomforest.h)
// per feature. Deterministic: the same runs give the same numbers, in whatever order they come.
#include "analysis/randomforest.h"
#include "analysis/runvalues.h"
#include "common/error.h"
#include "store/runstore.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <vector>

namespace ferry::run {

// A text parameter with more values than this among the runs (a path, a name) is left out.
inline constexpr int kMostCategories = 32;

struct FeatureImportance {
    QString name;           // "lr", or a text parameter's one-hot column "optimizer=adam"
    QString param;          // the parameter
    QString category;       // the one-hot column's value; empty for a number
    double importance = 0;  // the forest's, the features' summing to 1 (0 each when the metric is constant)
    double correlation = 0; // Pearson's with the metric over the runs that have the parameter; NaN: undefined
    int runs = 0;           // runs that have the parameter
};

struct ImportanceReport {
    int runs = 0;                      // runs with a value of the metric: the forest's samples
    QList<FeatureImportance> features; // most important first (then by name)
    QStringList notes;                 // what was left out and why: "seed: the same in every run", runs without a value
};

// From values in memory: each run's parameters (name -> value as stored) and its value of the
// metric (finite), one per run in the same order. A parameter is a number when every run that has
// it gives one (hp.* of the run query: "1e-3" is 0.001); a run without it gets the mean of the
// others in the forest and is left out of its correlation. A text parameter (any value not a
// number) is one-hot: a 0/1 feature per value, named NAME=VALUE, a run without it 0 in all; with
// two values, every run having one, a single feature (NAME=the later value in text order). A
// parameter the same in every run, or a text one with more than kMostCategories values, is left
// out with a note. Fewer than two runs is an error.
Expected<ImportanceReport> parameterImportance(const QList<QHash<QString, QString>> &params,
                                               const std::vector<double> &metric, const ForestOptions &options = {});

// The same for runs of the store, against `metric` (RunValueSpec: e.g. metrics.val_loss.last):
// runs without a value of it are left out (said in the notes). Runs are taken in the order of
// their ids. Blocking: reads each run's parameters and the metric's values.
Expected<ImportanceReport> parameterImportance(const RunStore &store, const QList<RunRecord> &runs,
                                               const RunValueSpec &metric, const ForestOptions &options = {});

} // namespace ferry::run
