// A SageMaker SDK launcher with a HyperparameterTuner for a sweep (see sweepexport.h).
#include "cloud/sagemakerparts.h"
#include "cloud/sweepexport.h"

#include <QRegularExpression>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::cloud {

namespace {

using namespace ferry::sweep;
using run::sagemaker::py;

QString number(double value)
{
    return QString::number(value, 'g', 17);
}

// One parameter as a SageMaker range; SageMaker passes every hyperparameter as --name value.
QString range(const Parameter &p)
{
    switch (p.distribution) {
    case Distribution::Values: {
        QStringList values;
        for (const QString &v : p.values)
            values << py(v);
        return u"CategoricalParameter([%1])"_s.arg(values.join(u", "_s));
    }
    case Distribution::Uniform:
        return u"ContinuousParameter(%1, %2)"_s.arg(number(p.min), number(p.max));
    case Distribution::LogUniform:
        return u"ContinuousParameter(%1, %2, scaling_type=\"Logarithmic\")"_s.arg(number(p.min), number(p.max));
    case Distribution::IntUniform:
        return u"IntegerParameter(%1, %2)"_s.arg(number(p.min), number(p.max));
    case Distribution::LogIntUniform:
        return u"IntegerParameter(%1, %2, scaling_type=\"Logarithmic\")"_s.arg(number(p.min), number(p.max));
    }
    return {};
}

// The lines Ferry reads a metric from, as one regex for SageMaker's log scraping: a JSON
// record ("val_loss": 0.3), name=value or name: value.
QString objectiveRegex(const QString &metric)
{
    return u"[\"']?%1[\"']?\\s*[:=]\\s*([-+]?[0-9]*\\.?[0-9]+(?:[eE][-+]?[0-9]+)?)"_s.arg(
        QRegularExpression::escape(metric));
}

QString strategy(const SweepSpec &sweep, QStringList &dropped)
{
    switch (sweep.method) {
    case Method::Grid:
        if (sweep.maxTrials > 0 && sweep.maxTrials < sweep.gridSize())
            dropped << u"max_trials %1: SageMaker's grid search runs the whole grid (%2 trials)"_s.arg(sweep.maxTrials)
                           .arg(sweep.gridSize());
        return u"Grid"_s;
    case Method::Random:
        return u"Random"_s;
    case Method::Bayes:
        dropped << u"method bayes: SageMaker's Bayesian strategy is its own (not TPE)"_s;
        return u"Bayesian"_s;
    }
    return {};
}

// SageMaker has one early-stopping rule, Auto (a median rule of its own), with no parameters.
QString earlyStopping(const SweepSpec &sweep, QStringList &dropped)
{
    const EarlyStopping &e = sweep.earlyStopping;
    if (e.rule == StoppingRule::None)
        return u"Off"_s;
    if (e.rule != StoppingRule::Median)
        dropped << u"early_stopping %1: SageMaker's only rule is Auto, a median rule of its own"_s.arg(
            stoppingRuleName(e.rule));
    if (e.minSteps > 0)
        dropped << u"early_stopping min_steps %1: SageMaker's Auto rule decides when to judge"_s.arg(e.minSteps);
    return u"Auto"_s;
}

} // namespace

Expected<SweepExport> writeSageMakerTuner(const SweepSpec &sweep, const run::RunSpec &trial,
                                          const std::optional<env::Environment> &environment,
                                          const run::HandoffOptions &options)
{
    run::RunSpec spec = trial;
    const bool defined = std::any_of(spec.metricDefinitions.cbegin(), spec.metricDefinitions.cend(),
                                     [&](const run::MetricDefinition &m) { return m.name == sweep.metric; });
    if (!defined)
        spec.metricDefinitions.append({sweep.metric, objectiveRegex(sweep.metric)});
    auto s = run::sagemaker::estimatorLines(spec, environment, options, u"sweep "_s + trial.id);
    if (!s)
        return s.error();
    SweepExport result;
    const QString chosen = strategy(sweep, result.dropped);
    const QString stopping = earlyStopping(sweep, result.dropped);
    if (sweep.summary == Summary::Best)
        result.dropped << u"metric %1 best: SageMaker scores a training job by the metric's last value"_s.arg(
            sweep.metric);
    if (sweep.target != u"local"_s)
        result.dropped << u"target %1: the trials run on SageMaker instances"_s.arg(sweep.target);
    QString tuningName = options.jobName.isEmpty() ? u"ferry-"_s + trial.id : options.jobName;
    tuningName.replace(u'_', u'-');

    QStringList &t = *s;
    t << QString()
      << u"from sagemaker.tuner import CategoricalParameter, ContinuousParameter, HyperparameterTuner, "
         u"IntegerParameter"_s
      << QString();
    t << u"HYPERPARAMETER_RANGES = {"_s;
    for (const Parameter &p : sweep.parameters)
        t << u"    %1: %2,"_s.arg(py(p.name), range(p));
    t << u"}"_s << QString();
    t << u"tuner = HyperparameterTuner("_s;
    t << u"    estimator,"_s;
    t << u"    objective_metric_name=%1,"_s.arg(py(sweep.metric));
    t << u"    hyperparameter_ranges=HYPERPARAMETER_RANGES,"_s;
    t << u"    metric_definitions=METRIC_DEFINITIONS,"_s;
    t << u"    objective_type=%1,"_s.arg(py(sweep.goal == Goal::Minimize ? u"Minimize"_s : u"Maximize"_s));
    t << u"    strategy=%1,"_s.arg(py(chosen));
    if (sweep.method != Method::Grid)
        t << u"    max_jobs=%1,"_s.arg(sweep.plannedTrials());
    t << u"    max_parallel_jobs=%1,"_s.arg(std::max(1, sweep.maxParallel));
    t << u"    early_stopping_type=%1,"_s.arg(py(stopping));
    if (sweep.method == Method::Random)
        t << u"    random_seed=%1,"_s.arg(sweep.seed);
    t << u"    base_tuning_job_name=%1,"_s.arg(py(tuningName.left(32)));
    t << u")"_s;
    t << u"tuner.fit(inputs or None, wait=not args.no_wait)"_s;
    t << u"print(tuner.latest_tuning_job.name)"_s;
    result.text = t.join(u'\n') + u'\n';
    return result;
}

} // namespace ferry::cloud
