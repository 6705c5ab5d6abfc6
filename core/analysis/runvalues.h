// One value per run for a scatter or parallel coordinates: a parameter, or a metric's last, best,
// least, greatest or value at a step.
#pragma once

// What a chart of runs (not of steps) plots for each run (docs/metrics.md, *Values of runs*): the
// text forms are those of the run query (docs/run-queries.md: hp.NAME, metrics.NAME.last|best|
// min|max) and metrics.NAME@STEP.
#include "common/error.h"
#include "store/runstore.h"

#include <QHash>
#include <QList>
#include <QString>

#include <optional>

namespace ferry::run {

struct RunValueSpec {
    enum class Kind {
        Param,  // hp.NAME: the parameter (a number when its text is one)
        Last,   // metrics.NAME.last: the value at the highest step (the later of equal ones)
        Best,   // metrics.NAME.best: max when more is better, else min
        Min,    // metrics.NAME.min: the least finite value
        Max,    // metrics.NAME.max: the greatest finite value
        AtStep, // metrics.NAME@STEP: the value at STEP by the rule of analysis/curves.h (valueAt)
    };
    Kind kind = Kind::Last;
    QString name;
    double step = 0; // AtStep
    // Best: whether more is better; none: by the metric's name (tracking/rundiff.h,
    // higherIsBetter), as the run query and the diff say. A sweep's goal can say it instead.
    std::optional<bool> higherIsBetter;

    // "hp.NAME", "metrics.NAME.last", ".best", ".min", ".max", "metrics.NAME@STEP"; a bare NAME
    // (no hp. or metrics. before it) is metrics.NAME.last. An error says which forms there are.
    static Expected<RunValueSpec> parse(const QString &text);
    QString text() const; // what parse() reads back
    bool isMetric() const { return kind != Kind::Param; }
    bool higher() const; // Best: whether it is the greatest value
};

// A run's value: a number (a metric's, a numeric parameter's) and its text (the parameter's as
// stored, a metric's as the shortest text that reads back as it).
struct RunValue {
    QString text;
    std::optional<double> number; // finite; none for a parameter that is not a number
};

// The value of each run that has one (blocking: a parameter or a metric's last value is one read
// for all runs; best, min, max and @STEP read each run's series). A run without the parameter,
// without a finite point of the metric, or, for @STEP, whose steps do not reach STEP (or whose
// point there is NaN) has none. A metric's last value that is NaN or an infinity is none too.
QHash<QString, RunValue> runValues(const RunStore &store, const QList<RunRecord> &runs, const RunValueSpec &spec);

} // namespace ferry::run
