// The hyperparameters that measure a run's work (steps, epochs): what the estimate scales by and
// what a run's progress counts against.
#pragma once

#include "run/runspec.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::run {

// The names, the first a run gives (a positive number) being its work parameter: steps before
// epochs, as Hugging Face's max_steps overrides num_train_epochs (docs/cost.md).
QStringList workParameterNames();
// Whether `name` (one of workParameterNames) counts epochs rather than steps.
bool isEpochParameter(const QString &name);

// The value of the hyperparameter `name` as a positive finite number; nullopt when absent or not one.
std::optional<double> workValue(const RunSpec &spec, const QString &name);

struct WorkParameter {
    QString name;
    double value = 0;
};
// The run's work parameter: the first of workParameterNames() it gives; nullopt: none.
std::optional<WorkParameter> workParameterOf(const RunSpec &spec);

} // namespace ferry::run
