// An AzureML CLI v2 sweep job for a sweep (see sweepexport.h).
#include "cloud/azuremlparts.h"
#include "cloud/sweepexport.h"

#include "env/yamlsupport.h"

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cloud {

namespace {

using namespace ferry::sweep;
using namespace ferry::run::azureml;

constexpr int kMostChoices = 1000; // an integer range with more values is written as quniform

void emitBounds(YAML::Emitter &out, double min, double max)
{
    out << YAML::Key << "min_value" << YAML::Value << min << YAML::Key << "max_value" << YAML::Value << max;
}

// One parameter as an AzureML parameter expression. AzureML's loguniform and qloguniform take
// natural-log bounds; its randint only an upper bound (from 0).
void emitParameter(YAML::Emitter &out, const Parameter &p, QStringList &dropped)
{
    out << YAML::BeginMap;
    switch (p.distribution) {
    case Distribution::Values:
        out << YAML::Key << "type" << YAML::Value << "choice" << YAML::Key << "values" << YAML::Value << YAML::Flow
            << YAML::BeginSeq;
        for (const QString &v : p.values)
            emitHyperparameter(out, v);
        out << YAML::EndSeq;
        break;
    case Distribution::Uniform:
        out << YAML::Key << "type" << YAML::Value << "uniform";
        emitBounds(out, p.min, p.max);
        break;
    case Distribution::LogUniform:
        out << YAML::Key << "type" << YAML::Value << "loguniform";
        emitBounds(out, std::log(p.min), std::log(p.max));
        break;
    case Distribution::IntUniform: {
        const auto lo = static_cast<qint64>(p.min), hi = static_cast<qint64>(p.max);
        if (lo == 0) {
            out << YAML::Key << "type" << YAML::Value << "randint" << YAML::Key << "upper" << YAML::Value << hi + 1;
        } else if (hi - lo + 1 <= kMostChoices) {
            out << YAML::Key << "type" << YAML::Value << "choice" << YAML::Key << "values" << YAML::Value << YAML::Flow
                << YAML::BeginSeq;
            for (qint64 v = lo; v <= hi; ++v)
                out << v;
            out << YAML::EndSeq;
        } else {
            out << YAML::Key << "type" << YAML::Value << "quniform";
            emitBounds(out, p.min, p.max);
            out << YAML::Key << "q" << YAML::Value << 1;
            dropped << u"%1: AzureML's randint starts at 0, so the range is quniform (q 1): the script receives "
                       u"whole numbers written as floats (e.g. 32.0)"_s.arg(p.name);
        }
        break;
    }
    case Distribution::LogIntUniform:
        out << YAML::Key << "type" << YAML::Value << "qloguniform";
        emitBounds(out, std::log(p.min), std::log(p.max));
        out << YAML::Key << "q" << YAML::Value << 1;
        dropped << u"%1: a whole number on a log scale is qloguniform (q 1) in AzureML: the script receives "
                   u"whole numbers written as floats (e.g. 32.0)"_s.arg(p.name);
        break;
    }
    out << YAML::EndMap;
}

void emitSampling(YAML::Emitter &out, const SweepSpec &sweep, QStringList &dropped)
{
    out << YAML::Key << "sampling_algorithm" << YAML::Value;
    switch (sweep.method) {
    case Method::Grid:
        out << "grid";
        break;
    case Method::Random:
        out << YAML::BeginMap << YAML::Key << "type" << YAML::Value << "random" << YAML::Key << "seed" << YAML::Value
            << sweep.seed << YAML::EndMap;
        break;
    case Method::Bayes:
        out << "bayesian";
        dropped << u"method bayes: AzureML's Bayesian sampling is its own (not TPE) and takes no seed"_s;
        break;
    }
}

// AzureML's median_stopping and bandit policies; its delay_evaluation counts the metric's
// reports, where Ferry's min_steps counts steps. No ASHA; Bayesian sampling takes no policy.
void emitEarlyTermination(YAML::Emitter &out, const SweepSpec &sweep, QStringList &dropped)
{
    const EarlyStopping &e = sweep.earlyStopping;
    if (e.rule == StoppingRule::None)
        return;
    if (sweep.method == Method::Bayes) {
        dropped << u"early_stopping %1: AzureML's Bayesian sampling supports no early termination"_s.arg(
            stoppingRuleName(e.rule));
        return;
    }
    if (e.rule == StoppingRule::Asha) {
        dropped << u"early_stopping asha: AzureML has no ASHA policy (its nearest is truncation_selection); "
                   u"the trials run to their end"_s;
        return;
    }
    out << YAML::Key << "early_termination" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "type" << YAML::Value << (e.rule == StoppingRule::Median ? "median_stopping" : "bandit");
    if (e.rule == StoppingRule::Bandit)
        out << YAML::Key << "slack_factor" << YAML::Value << e.slack;
    out << YAML::Key << "evaluation_interval" << YAML::Value << 1;
    out << YAML::Key << "delay_evaluation" << YAML::Value << e.minSteps;
    out << YAML::EndMap;
    if (e.minSteps > 0)
        dropped << u"early_stopping min_steps %1: written as delay_evaluation, which AzureML counts in metric "
                   u"reports, not steps"_s.arg(e.minSteps);
}

} // namespace

Expected<SweepExport> writeAzureMlSweepJob(const SweepSpec &sweep, const run::RunSpec &trial,
                                           const std::optional<env::Environment> &environment,
                                           const run::HandoffOptions &options)
{
    if (const auto checked = checkJob(trial, environment, options); !checked)
        return checked.error();
    SweepExport result;
    const QString base = jobBase(options);
    const JobInputs inputs = jobInputs(trial); // the fixed hyperparameters and the channels
    JobCommand command = jobCommand(trial, environment, inputs);
    QStringList taken; // search-space names, unique among the inputs' too
    for (const auto &[hp, input] : inputs.hyper)
        taken << input;
    for (const auto &[channel, input] : inputs.channels)
        taken << input;
    QStringList keys;
    for (const Parameter &p : sweep.parameters) {
        keys << inputName(p.name, taken);
        taken << keys.last();
        command.words << shellWord(u"--"_s + p.name) << u"${{search_space.%1}}"_s.arg(keys.last());
    }

    YAML::Emitter out;
    out.SetIndent(2);
    out << YAML::BeginMap;
    out << YAML::Key << "$schema" << YAML::Value << "https://azuremlschemas.azureedge.net/latest/sweepJob.schema.json";
    out << YAML::Key << "type" << YAML::Value << "sweep";
    emitNames(out, trial, options);
    out << YAML::Key << "trial" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "code" << YAML::Value;
    env::yaml::emitString(out, relativeTo(base, trial.sourceDir));
    out << YAML::Key << "command" << YAML::Value;
    env::yaml::emitString(out, command.words.join(u' '));
    emitEnvironment(out, environment, options);
    emitVariables(out, command);
    const run::HandoffScale scale = run::handoffScale(trial, options);
    emitDistribution(out, scale); // each trial's
    out << YAML::EndMap;
    emitInputs(out, trial, inputs, options, base);
    emitOutputs(out);
    emitCompute(out, options);
    emitResources(out, scale);
    emitSampling(out, sweep, result.dropped);
    out << YAML::Key << "search_space" << YAML::Value << YAML::BeginMap;
    for (qsizetype i = 0; i < sweep.parameters.size(); ++i) {
        env::yaml::emitKey(out, keys[i]);
        out << YAML::Value;
        emitParameter(out, sweep.parameters[i], result.dropped);
    }
    out << YAML::EndMap;
    out << YAML::Key << "objective" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "goal" << YAML::Value << (sweep.goal == Goal::Minimize ? "minimize" : "maximize");
    out << YAML::Key << "primary_metric" << YAML::Value;
    env::yaml::emitString(out, sweep.metric);
    out << YAML::EndMap;
    result.dropped << u"metric %1: AzureML reads it from what the script logs with mlflow.log_metric(\"%1\", ...), "
                      u"not from its output lines"_s.arg(sweep.metric);
    if (sweep.summary == Summary::Best)
        result.dropped << u"metric %1 best: AzureML scores a trial by the metric as logged, not by its best value"_s
                              .arg(sweep.metric);
    out << YAML::Key << "limits" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "max_total_trials" << YAML::Value << sweep.plannedTrials();
    out << YAML::Key << "max_concurrent_trials" << YAML::Value << std::max(1, sweep.maxParallel);
    out << YAML::EndMap;
    emitEarlyTermination(out, sweep, result.dropped);
    out << YAML::EndMap;
    if (sweep.target != u"local"_s)
        result.dropped << u"target %1: the trials run on the AzureML compute %2"_s.arg(sweep.target, options.compute);
    result.text = env::yaml::toText(out) + u'\n';
    return result;
}

} // namespace ferry::cloud
