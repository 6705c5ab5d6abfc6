// A run query's parsed tree, shared by its parser and its evaluation over the store; internal to
// core/tracking.
#pragma once

// A run query's parsed form, shared by its parser (runquery.cpp) and its evaluation over the
// store (runqueryfilter.cpp). Internal to core/tracking.
#include "tracking/runquery.h"

#include <QString>

#include <memory>
#include <optional>

namespace ferry::run {

namespace query {

enum class Field { Param, Metric, Tag, Status, Target, Id, Name, Script, Sweep, Experiment, Note, Created, Started };
enum class Aggregate { Last, Best, Min, Max };
enum class Op { Eq, Ne, Lt, Le, Gt, Ge, Contains };

} // namespace query

// One comparison, or `and`/`or` of two nodes, or `not` of one.
struct RunQuery::Node {
    enum Kind { And, Or, Not, Compare } kind = Compare;
    std::shared_ptr<const Node> left, right;
    query::Field field = query::Field::Id;
    QString name; // hp.NAME, metrics.NAME
    query::Aggregate aggregate = query::Aggregate::Last;
    query::Op op = query::Op::Eq;
    QString value;
    std::optional<double> number; // the value as a number, when it is one
    qint64 timeMs = 0;            // created, started
};

} // namespace ferry::run
