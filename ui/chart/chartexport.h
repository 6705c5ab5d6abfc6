#pragma once

#include <QString>

#include <vector>

class QImage;

namespace ferry::ui {

class SeriesStore;

// Every point of the given series, full resolution, as CSV with the header
// run,metric,step,wall_ms,value (numbers in the shortest form that reads back exactly).
// Written atomically; false with *error set when the file cannot be written.
bool writeSeriesCsv(const QString &path, const SeriesStore &store, const std::vector<int> &series, QString *error);
// The image as PNG, written atomically.
bool writePng(const QString &path, const QImage &image, QString *error);

} // namespace ferry::ui
