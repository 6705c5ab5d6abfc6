// `ferry runs list`'s table: each run's id, name, status and times, the parameters that tell the
// runs apart and their key metrics' last values.
#pragma once

#include "store/runstore.h"

#include <QHash>
#include <QMap>
#include <QString>

namespace ferry::cli {

// What the table shows of each run besides its record.
struct ListedRun {
    run::RunRecord record;
    QList<run::Hyperparameter> params; // run::runParameters
    QMap<QString, double> lastMetrics;
};

// At most this many parameter and metric columns: the rest are in `ferry runs show ID`.
inline constexpr int kListedParameters = 6;
inline constexpr int kListedMetrics = 4;

// The table, one line per run in the order given, a header first. The parameter columns are
// those whose values differ among the runs (run::differingParameters, the rule the window's names
// follow), or every parameter when none differs; the metric columns the runs' key metrics
// (run::keyMetricNames). A run without a value shows "-". Text from the runs (names, values) is
// printed as it comes: the caller shows it as a terminal would (run::terminalLines).
QString runListTable(const QList<ListedRun> &runs);

// The same columns' names, for --json and tests: the parameters, then the metrics.
QStringList listedParameters(const QList<ListedRun> &runs);
QStringList listedMetrics(const QList<ListedRun> &runs);

} // namespace ferry::cli
