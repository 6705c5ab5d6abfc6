// A metric defined by a regex (SageMaker's MetricDefinitions), as a spec holds it.
#pragma once

#include <QString>

namespace ferry::run {

// A SageMaker MetricDefinitions entry: `Regex` has one capture group holding the value.
struct MetricDefinition {
    QString name;
    QString regex;
    bool operator==(const MetricDefinition &) const = default;
};

} // namespace ferry::run
