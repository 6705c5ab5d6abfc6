// The limits on a metric's name and on the number of series a run may have.
#pragma once

// What may name a metric, and how many series a run may have (security review M6: 200,000
// names or one 8 MiB name froze the window and took `runs show` 10 s). One rule for every way
// points come in: a bundle's metrics.csv (store/metriccsv.h), the log parser
// (metrics/metricparser.h), the files beside the log and what a follower stores (tracking/).
#include "metrics/metricparser.h"

#include <QSet>
#include <QString>
#include <QStringList>

namespace ferry::run {

inline constexpr qsizetype kMostMetricNameBytes = 256; // in UTF-8
inline constexpr qsizetype kMostSeriesPerRun = 10000;  // distinct names

// Why `name` cannot name a metric: empty, longer than kMostMetricNameBytes in UTF-8, or holding
// a control character (C0, DEL, C1: a line break, an escape sequence); empty when it can.
QString metricNameProblem(QStringView name);
inline bool isMetricName(QStringView name)
{
    return metricNameProblem(name).isEmpty();
}

// "metric name 'NAME' is not kept: PROBLEM", the name cut short and its control characters
// shown as U+FFFD: what is said instead of the points of a refused name.
QString refusedMetricName(QStringView name, const QString &problem);

// The names of one run's series as its points come: a point is kept when its name is a metric's
// and the run has it already or has fewer than kMostSeriesPerRun. Cheap for a name seen before
// (one hash lookup), so it can stand in front of every point.
class MetricNames {
public:
    // A name the run has already (stored before): kept from now on, and counted.
    void know(const QString &name) { m_names.insert(name); }

    // Empty when a point of `name` is kept (a new name is counted); else why not.
    QString admit(const QString &name);
    // Drops the points not kept; returns what to say about them: each kind of refusal (a name
    // that is no metric's, one past the cap) once in this object's life.
    QStringList filter(QList<MetricPoint> &points);

private:
    QSet<QString> m_names;
    bool m_saidName = false, m_saidCount = false;
};

} // namespace ferry::run
