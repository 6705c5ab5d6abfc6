// The Python pieces (literals, the PyTorch estimator) that SageMaker training and tuning launchers
// share; internal to core/cloud.
#pragma once

// The parts of a SageMaker SDK launcher that a training job (sagemakerlauncher.cpp) and a
// tuning job (sagemakertuner.cpp) share. Internal to core/cloud.
#include "cloud/cloudhandoff.h"

#include <QString>
#include <QStringList>

namespace ferry::run::sagemaker {

// A Python string literal: double quotes, backslash escapes, \uXXXX for control characters.
QString py(const QString &text);
// A hyperparameter as a Python literal, typed as SageMaker decodes it.
QString pyValue(const QString &value);
// The launcher up to its PyTorch estimator (`estimator = PyTorch(...)`): the header naming
// `what` ("run ID", "sweep ID"), the hyperparameters, metric definitions, channels (`inputs`),
// the --role and --no-wait options (`args`). Refused: fixed arguments, a bad instance type.
Expected<QStringList> estimatorLines(const RunSpec &spec, const std::optional<env::Environment> &environment,
                                     const HandoffOptions &options, const QString &what);

} // namespace ferry::run::sagemaker
