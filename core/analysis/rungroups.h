// Runs grouped by a hyperparameter, their tags, their sweep or their experiment, and each group's
// statistics of one metric at every step: `ferry runs aggregate` and the chart's groups.
#pragma once

// Groups of runs (docs/metrics.md, *Groups*): which runs go together, read from the store once
// for all runs, and the exact statistics of a metric over each group (analysis/curves.h). A view
// that keeps the runs' points in memory groups with groupRuns and aggregates its own columns with
// aggregateAt; the command line reads the points here, exactly.
#include "analysis/curves.h"
#include "analysis/xaxis.h"
#include "common/error.h"
#include "store/runstore.h"

#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <vector>

namespace ferry::run {

// What runs are grouped by.
struct GroupBy {
    enum class Kind {
        Param,      // hp.NAME: the parameter's value (text as stored)
        Tags,       // tag: the run's tags, all of them (a run tagged "a b" is in group "a b");
                    // tag:PREFIX: only its tags starting with PREFIX ("tag:method/")
        Sweep,      // sweep: the sweep the run is a trial of
        Experiment, // experiment: the run's experiment
    };
    Kind kind = Kind::Param;
    QString name; // Param: the parameter; Tags: the prefix (empty: every tag)

    // "hp.NAME", "tag", "tag:PREFIX", "sweep", "experiment"; an error says which forms there are.
    static Expected<GroupBy> parse(const QString &text);
    QString text() const; // what parse() reads back
    friend bool operator==(const GroupBy &, const GroupBy &) = default;
};

// One group: the runs with the same key, in the order they were given.
struct RunGroup {
    QString key;   // the parameter's value, the tags (space-separated), the sweep's id; empty: none
    QString label; // "lr=0.01", "tags: a b", "sweep 3f2c", "no lr", "no tags"...
    QStringList runIds;
};

// The runs in groups (blocking: one read of the store for a parameter, none for the others).
// Groups come in the order of their keys: as numbers when every key is one (0.001 before 0.01),
// else as text; the group of runs without a key (no such parameter, no tag, no sweep) last.
QList<RunGroup> groupRuns(const RunStore &store, const QList<RunRecord> &runs, const GroupBy &by);
// The same from the runs' values of the parameter in hand (`params`: run id -> the value of
// by.name; read only for GroupBy::Kind::Param): a view that holds the runs' parameters already
// (the chart) groups by the same rule without reading the store. Any thread.
QList<RunGroup> groupRuns(const QList<RunRecord> &runs, const GroupBy &by, const QHash<QString, QString> &params);

// A group's statistics of one metric: at every x of the union of its runs' x (exact), and the
// runs that have no point of it (left out).
struct GroupAggregate {
    RunGroup group;
    std::vector<GroupStats> points;
    QStringList runsWithoutMetric;
};

// Reads each group's runs' points of `metric` (all of them, exactly; blocking: a million points
// a run is a few milliseconds) against `axis` and aggregates them (analysis/curves.h,
// aggregate()), a group at a time, each handed to `take` as it is done: one group's curves and
// points are in memory at a time.
void aggregateGroups(const RunStore &store, const QList<RunRecord> &runs, const QList<RunGroup> &groups,
                     const QString &metric, const XAxis &axis, const std::function<void(GroupAggregate &&)> &take);
// The same, every group kept.
QList<GroupAggregate> aggregateGroups(const RunStore &store, const QList<RunRecord> &runs,
                                      const QList<RunGroup> &groups, const QString &metric, const XAxis &axis = {});

// A run's metric as a curve over `axis` (read from the store; blocking).
Curve runCurve(const RunStore &store, const RunRecord &run, const QString &metric, const XAxis &axis = {});

} // namespace ferry::run
