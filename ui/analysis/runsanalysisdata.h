// What the analysis tab reads for a set of runs (off the GUI thread), and the plots' content made
// from it: the scatter's points, the parallel coordinates' lines, the colour scales.
#pragma once

// The analysis tab (ui/analysis/runsanalysisview.h) draws one value per run, as core/analysis
// gives it (analysis/runvalues.h: hp.NAME, metrics.NAME.last|best|min|max, metrics.NAME@STEP).
// Reading is blocking (readRuns, readValues: the view calls them through QtConcurrent); making a
// plot's content from what was read is not (scatterContent, parallelTable), so tests check the
// content against runValues directly.
#include "analysis/runvalues.h"
#include "store/runstore.h"
#include "ui/analysis/plottable.h"
#include "ui/analysis/scatterplot.h"

#include <QColor>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <optional>

namespace ferry::ui {

// The runs asked for, as the store has them, and the names a value can be chosen from.
struct RunsRead {
    QList<run::RunRecord> runs; // in the order asked; runs the store no longer has left out
    QStringList params;         // every parameter any of them has, sorted
    QStringList metrics;        // every metric any of them has, sorted; the machine's (system/) last
};
RunsRead readRuns(const run::RunStore &store, const QStringList &runIds);

// Each value (RunValueSpec::text()) of each run that has one: runValues per spec.
using RunValueColumns = QHash<QString, QHash<QString, run::RunValue>>;
RunValueColumns readValues(const run::RunStore &store, const QList<run::RunRecord> &runs, const QStringList &specs);

// How a value is named on an axis and in a menu: "lr", "val_loss (last)", "loss at step 500".
QString valueTitle(const run::RunValueSpec &spec);
// Whether a value's axis starts on a log scale: numbers, all above 0, spanning 100× or more
// (a learning rate drawn over its decades).
bool logByDefault(const QList<run::RunValue> &values);

// A run as the plots name and colour it.
struct RunLook {
    QString label; // its name in the runs table and the end of its id
    QColor color;  // its colour in the chart
};
using RunLooks = std::function<RunLook(const run::RunRecord &)>;

// The colour scale of a value over runs: viridis from the least to the greatest (log when the
// axis is), or one colour per category; and each run's place on it.
struct ValueColors {
    ColorScale scale;
    PlotAxis axis; // the value's axis: a run's place on the scale is its position on it
};
ValueColors valueColors(const run::RunValueSpec &spec, const QList<run::RunValue> &values);

// The scatter's points: each run with both x and y, placed by the axes fitted to the values (log
// as asked where the values allow), coloured by `color` (a run without that value grey) or, with
// none, in its own colour.
struct ScatterContent {
    PlotAxis x, y;
    std::vector<ScatterPoint> points;
    std::optional<ColorScale> scale;
    QStringList missing; // the labels of the runs without x or y: not drawn
};
ScatterContent scatterContent(const QList<run::RunRecord> &runs, const RunLooks &looks, const RunValueColumns &values,
                              const run::RunValueSpec &x, bool logX, const run::RunValueSpec &y, bool logY,
                              const std::optional<run::RunValueSpec> &color);

// Parallel coordinates over runs: an axis per chosen parameter (log by logByDefault) and the
// metric's last, lines coloured by the metric (viridis; the best drawn on top).
PlotTable parallelTable(const QList<run::RunRecord> &runs, const RunLooks &looks, const RunValueColumns &values,
                        const QList<run::RunValueSpec> &params, const run::RunValueSpec &metric);

} // namespace ferry::ui
