#include "run/workparameter.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

QStringList workParameterNames()
{
    return {u"max_steps"_s,
            u"max-steps"_s,
            u"num_steps"_s,
            u"num-steps"_s,
            u"total_steps"_s,
            u"steps"_s,
            u"max_iters"_s,
            u"iterations"_s,
            u"iters"_s,
            u"num_train_epochs"_s,
            u"num-train-epochs"_s,
            u"max_epochs"_s,
            u"max-epochs"_s,
            u"num_epochs"_s,
            u"num-epochs"_s,
            u"n_epochs"_s,
            u"epochs"_s};
}

bool isEpochParameter(const QString &name)
{
    return name.endsWith(u"epochs"_s);
}

std::optional<double> workValue(const RunSpec &spec, const QString &name)
{
    for (const Hyperparameter &h : spec.hyperparameters) {
        if (h.name != name)
            continue;
        bool ok = false;
        const double v = h.value.trimmed().toDouble(&ok);
        return ok && std::isfinite(v) && v > 0 ? std::optional<double>(v) : std::nullopt;
    }
    return std::nullopt;
}

std::optional<WorkParameter> workParameterOf(const RunSpec &spec)
{
    for (const QString &name : workParameterNames()) {
        if (const auto v = workValue(spec, name))
            return WorkParameter{name, *v};
    }
    return std::nullopt;
}

} // namespace ferry::run
