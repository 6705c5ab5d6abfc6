// A run's metric against another x than its step: wall time, time since the run started, or another
// metric of the same run joined on step (loss against tokens seen).
#pragma once

// What a chart's x axis can be for one run's metric (docs/metrics.md, *X axis*), and the points of
// the metric against it. The join on step and the value of the x metric between its points are
// the rule of analysis/curves.h (valueAt): one rule for groups and axes.
#include "analysis/curves.h"
#include "common/error.h"
#include "store/runstore.h"

#include <QString>

#include <vector>

namespace ferry::run {

struct XAxis {
    enum class Kind {
        Step,         // the point's step
        WallTime,     // when it was written: ms since the Unix epoch
        RelativeTime, // seconds since the run started (RunRecord::startedMs; a run that never
                      // started, or one imported without a start: since the metric's first point)
        Metric,       // another metric of the run at the point's step (`metric`)
    };
    Kind kind = Kind::Step;
    QString metric; // Kind::Metric: its name

    // "step", "wall", "time" (since start), or "metrics.NAME" (another metric; a bare NAME that is
    // none of the three words is taken as a metric too). An empty text is "step".
    static Expected<XAxis> parse(const QString &text);
    QString text() const;  // what parse() reads back
    QString label() const; // an axis title: "step", "wall time", "time since start (s)", "NAME"
    friend bool operator==(const XAxis &, const XAxis &) = default;
};

// One metric of one run against an x axis: the points in the order a line joins them (by step,
// stable; by wall time for the two time axes), steps kept beside to say where each point is from.
// A point without a step is left out on the step and metric axes; on a metric axis a point whose
// step lies outside the x metric's first to last step, or in one of its holes (see valueAt), is
// left out, and the x metric's value between two of its steps is interpolated linearly.
struct MetricAgainst {
    std::vector<double> steps, x, y;
    qsizetype size() const { return static_cast<qsizetype>(x.size()); }
};

// From points in memory: `points` the metric's (any order, as RunStore::series gives them),
// `xPoints` the x metric's (Kind::Metric only), `startedMs` the run's start (0: none).
MetricAgainst metricAgainst(const std::vector<SeriesPoint> &points, const XAxis &axis,
                            const std::vector<SeriesPoint> &xPoints = {}, qint64 startedMs = 0);
// The same read from the store (blocking: reads one or two series of the run).
MetricAgainst metricAgainst(const RunStore &store, const RunRecord &run, const QString &metric, const XAxis &axis);

// The points as a curve ascending in x (of equal x the later in line order kept), the form the
// groups aggregate (analysis/curves.h): on a metric axis such as tokens seen, which grows with the
// step, the same points; on one that does not, a curve over x all the same.
Curve curveOf(const MetricAgainst &points);

} // namespace ferry::run
