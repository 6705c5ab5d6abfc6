// Reads back the metric CSV that `ferry runs metrics --csv` writes, losslessly, as run bundles
// carry their points.
#pragma once

// Reads back what `ferry runs metrics --csv` writes (store/metricexport.h, MetricTextFormat::Csv):
// the header "name,step,wall_ms,value,epoch", then one point a line, names quoted as RFC 4180
// quotes them. Every number reads back as the double (or integer) that was written: a round trip
// through this text loses nothing but a NaN's sign and payload. What a run bundle carries its
// points in (tracking/runbundle.h).
#include "common/error.h"
#include "metrics/metricparser.h"

#include <QList>

#include <functional>

class QIODevice;

namespace ferry::run {

// Hands the points to `batch` in the file's order, a few thousand at a time; an error from it
// stops the reading. A malformed line is an Error naming `path` and the line, and so are a record
// longer than 4 KiB or 4 lines, a name that is no metric's and more names than a run may have
// (metrics/metricnames.h). Linear in the file's length. Returns the points read.
using MetricBatchSink = std::function<Expected<void>(QList<MetricPoint> points)>;
Expected<qint64> readMetricsCsv(QIODevice &device, const QString &path, const MetricBatchSink &batch);

} // namespace ferry::run
