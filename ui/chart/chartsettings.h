// The chart's settings of one workspace (.ferry/chart.json): groups, x axis, log scales, smoothing
// and the panels hidden, kept from one start to the next.
#pragma once

#include "common/error.h"

#include <QString>
#include <QStringList>

namespace ferry::ui {

// What LossChartPanel keeps per workspace. Every field has the default a new workspace starts with.
struct ChartSettings {
    QString groupBy;                        // run::GroupBy::text() ("hp.lr", "tag", "sweep"); empty: no groups
    bool median = false;                    // the groups' line: the median, else the mean
    bool minMaxBand = false;                // the groups' band: min to max, else ± std
    QString xAxis = QStringLiteral("step"); // "step", "epoch", "time", "wall" or "metrics.NAME"
    bool logX = false, logY = false;
    int smoothing = 0;        // the slider's 0..99 (EMA weight × 100)
    QStringList hiddenPanels; // MetricPanel keys

    friend bool operator==(const ChartSettings &, const ChartSettings &) = default;
};

// Reads the file (none: the defaults). A file too large, not JSON or not an object is an Error
// that says to delete it; a field of the wrong type is its default.
Expected<ChartSettings> readChartSettings(const QString &path);
// Writes it atomically.
Expected<void> writeChartSettings(const QString &path, const ChartSettings &settings);

} // namespace ferry::ui
