// Exports charted series as full-resolution CSV and the chart as a PNG, both written atomically.
#pragma once

#include "common/error.h"

#include <QString>

#include <vector>

class QImage;

namespace ferry::ui {

class SeriesStore;

// Every point of the given series, full resolution, as CSV with the header
// run,metric,step,wall_ms,value (numbers in the shortest form that reads back exactly).
// Written atomically; the Error says why the file cannot be written.
Expected<void> writeSeriesCsv(const QString &path, const SeriesStore &store, const std::vector<int> &series);
// The image as PNG, written atomically.
Expected<void> writePng(const QString &path, const QImage &image);

} // namespace ferry::ui
