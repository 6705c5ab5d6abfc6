// The sweep file (sweeps/NAME.yml): a script, its search space and the metric that scores the
// trials, read and written.
#pragma once

// A sweep file (sweeps/NAME.yml in a workspace; docs/sweep-format.md): one script run many times
// with its hyperparameters drawn from a search space, the trials scored by one metric.
#include "common/diagnostic.h"
#include "common/error.h"
#include "run/runspec.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace ferry::sweep {

inline constexpr int kSweepFormatVersion = 1;

enum class Method { Grid, Random, Bayes }; // Bayes: TPE (sweep/sampler.h)
enum class Goal { Minimize, Maximize };
// Which of a trial's values of the metric is its objective: the last it wrote or its best.
enum class Summary { Last, Best };

// How a parameter is drawn. Values: one of a list (grid and categorical); the others from
// [min, max], LogUniform and LogIntUniform uniformly in the logarithm.
enum class Distribution { Values, Uniform, LogUniform, IntUniform, LogIntUniform };

struct Parameter {
    QString name; // the script's option: --name value
    Distribution distribution = Distribution::Values;
    double min = 0, max = 0;
    QStringList values; // Distribution::Values: each as the script receives it
    int line = 0;       // where the file defines it, for later messages
    bool operator==(const Parameter &) const = default;

    static Parameter range(QString name, Distribution distribution, double min, double max)
    {
        return Parameter{std::move(name), distribution, min, max, {}, 0};
    }
    static Parameter list(QString name, QStringList values)
    {
        return Parameter{std::move(name), Distribution::Values, 0, 0, std::move(values), 0};
    }
};

enum class StoppingRule { None, Median, Asha, Bandit };

struct EarlyStopping {
    StoppingRule rule = StoppingRule::None;
    qint64 minSteps = 0;        // no trial is judged before this step
    double reductionFactor = 3; // ASHA: a rung keeps 1 / reductionFactor of the trials
    double slack = 0.1;         // bandit: stop when worse than the best by more than this fraction
    bool operator==(const EarlyStopping &) const = default;
};

// A sweep's budget (`budget:`, docs/cost.md): the trials' cost at their rates and their time on the
// machines, added up. No trial starts whose estimate would take the sweep past either; running
// trials finish. 0: no such cap.
struct SweepBudget {
    double maxCost = 0;    // max_cost: in the catalog's currency
    qint64 maxSeconds = 0; // max_time: H:MM:SS
    bool operator==(const SweepBudget &) const = default;
    bool any() const { return maxCost > 0 || maxSeconds > 0; }
};

struct SweepSpec {
    // What each trial runs: the same fields as a run.
    QString script;      // relative to the workspace
    QString environment; // an environment file, relative to the workspace; may be empty
    QString target = QStringLiteral("local");
    QJsonObject targetOptions;        // target_options: gpus, cpus, partition, time, mem, requeue, remoteDir...
    QStringList arguments;            // fixed arguments, before the hyperparameters
    QList<run::Hyperparameter> fixed; // hyperparameters every trial gets
    QList<run::DataChannel> data;     // channels, paths relative to the workspace
    // The search.
    Method method = Method::Random;
    QString metric;
    Goal goal = Goal::Minimize;
    Summary summary = Summary::Last;
    QList<Parameter> parameters;
    int maxTrials = 0; // 0 for a grid: every combination
    int maxParallel = 1;
    EarlyStopping earlyStopping;
    SweepBudget budget;
    quint64 seed = 0;
    bool operator==(const SweepSpec &) const = default;

    // The grid's size (the product of the value counts); 0 unless every parameter has values.
    qint64 gridSize() const;
    // The number of trials the sweep runs: max_trials, or for a grid without it, the grid.
    int plannedTrials() const;
};

struct SweepRead {
    SweepSpec spec;
    Diagnostics diagnostics; // every problem with its line; the spec is usable when none is an error
};

SweepRead parseSweepYaml(const QString &text, const QString &path);
SweepRead readSweepFile(const QString &path);
// The file the sweep form saves; parseSweepYaml reads it back to the same spec.
QString toSweepYaml(const SweepSpec &spec);

// The sweep form's one line of target options, "nodes=2 gpus-per-node=1 partition=gpu": the
// target_options keys (or the run's names), a count as a whole number, a flag as true or false.
// An unknown key or a value of the wrong kind is an error naming the pair; the ranges are the
// file's (parseSweepYaml says them at their line).
Expected<QJsonObject> targetOptionsFromText(const QString &text);
QString targetOptionsText(const QJsonObject &options);

QString methodName(Method method);
QString distributionName(Distribution distribution);
QString stoppingRuleName(StoppingRule rule);

} // namespace ferry::sweep
