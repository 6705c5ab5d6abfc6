// Before a run: how long it will take, from the durations of comparable runs in the workspace's
// store, and what it will cost at its rate (docs/cost.md says the method exactly).
#pragma once

#include "cost/rates.h"
#include "run/runspec.h"
#include "store/runstore.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::cost {

// The hyperparameters that measure a run's work, the first the planned run has (a positive
// number) being the one that scales: steps before epochs, as Hugging Face's max_steps overrides
// num_train_epochs.
QStringList workParameterNames();

// At most this many comparable runs, the most recent, make an estimate: its range and how its
// durations are brought to the planned work.
inline constexpr int kEstimateMaxRuns = 20;
// Its typical value comes from the most recent of them alone: the machine as it is now (another
// user's jobs, a thermal limit) weighs more than a fit over the whole history.
inline constexpr int kEstimateTypicalRuns = 3;

// How the comparable runs' durations were brought to the planned run's work.
enum class Scaling {
    None,         // no work parameter: each run's duration as it was
    Proportional, // duration × planned work / the run's work
    Linear,       // duration + slope × (planned work − the run's work): a fixed start-up and a time per unit
};

// A duration range from history; `runs` 0 is "no history", and the durations then mean nothing.
struct DurationEstimate {
    int runs = 0;
    double lowSeconds = 0, typicalSeconds = 0, highSeconds = 0;
    QString workParameter; // "epochs"; empty: none
    Scaling scaling = Scaling::None;
    double secondsPerUnit = 0; // Linear: the slope
    QStringList runIds;        // the runs it rests on, the nearest in time first (as of now: the newest)

    bool hasHistory() const { return runs > 0; }
};

// Whether `record` is a run comparable to `planned`: it succeeded with a start and an end; the
// same script in the same folder (a run without a script, the embedded trainer's: the same
// training data), the same environment file and the same target (kind, host and, on Slurm, the
// partition); and the same work parameter given to both or to neither.
bool isComparable(const run::RunSpec &planned, const run::RunSpec &done, const run::RunRecord &record);

// The estimate for `planned` from `history` (a store's runs, any order; the planned run's own id
// is skipped). Each of the kEstimateMaxRuns comparable runs that started nearest to `asOfMs` (0:
// now, so the most recent) gives one duration brought to the planned work (Scaling); low and high
// are their least and greatest, typical the median of the kEstimateTypicalRuns nearest.
// (`asOfMs` is for measuring: tests/bench/estimate.sh estimates each run of a history as of its
// own start.)
DurationEstimate estimateDuration(const run::RunSpec &planned, const QList<run::RunRecord> &history, qint64 asOfMs = 0);

// The estimate with what it costs: the durations times the run's rate an hour (its nodes or GPUs
// counted). `rate` nullopt: the rate is unknown, and so is the cost.
struct CostEstimate {
    DurationEstimate duration;
    std::optional<AppliedRate> rate;

    bool hasCost() const { return duration.hasHistory() && rate.has_value(); }
    double lowCost() const { return cost(duration.lowSeconds); }
    double typicalCost() const { return cost(duration.typicalSeconds); }
    double highCost() const { return cost(duration.highSeconds); }
    double cost(double seconds) const { return rate ? seconds / 3600.0 * rate->perHour() : 0; }
};
CostEstimate estimateCost(const run::RunSpec &planned, const QList<run::RunRecord> &history, const Rates &rates);

// A sweep's trials together (`ferry sweep plan`): their time on the machines (the sum) and the
// time until the last ends with `parallel` trials at once (each trial, in order, starts when a
// place frees: list scheduling), for the low, typical and high durations; the cost is the sum
// of the trials'. Only when every trial has history (`withHistory` == `trials`): never a total
// of some trials shown as the whole.
struct TotalEstimate {
    int trials = 0;
    int withHistory = 0;
    double lowSeconds = 0, typicalSeconds = 0, highSeconds = 0;             // the sum
    double lowWallSeconds = 0, typicalWallSeconds = 0, highWallSeconds = 0; // with the parallelism
    std::optional<double> lowCost, typicalCost, highCost;                   // nullopt: a rate is unknown

    bool complete() const { return trials > 0 && withHistory == trials; }
};
TotalEstimate totalEstimate(const QList<CostEstimate> &trials, int parallel);
// The time until the last of `durations` ends, each started in order when one of `parallel` places frees.
double wallSeconds(const QList<double> &durations, int parallel);

// The machine-readable form (docs/cost.md): {"runs": N, "durationSeconds": {"low", "typical",
// "high"} or null, "workParameter", "scaling", "rate": {...} or null, "cost": {"low", "typical",
// "high"} or null, "currency": "USD", "basedOn": [run ids]}.
QJsonObject estimateJson(const CostEstimate &estimate);
QJsonObject appliedRateJson(const AppliedRate &rate);

// The estimate in words, as the launch dialog and `ferry run --estimate` show it: the range with
// the number of runs, or "no history"; then the cost at the rate with its source, or why unknown.
QString estimateText(const CostEstimate &estimate, const run::RunSpec &planned);
// The rate in words: "3.60 USD/h (local, set by you)", "2 × 1.20 USD/GPU-h (slurm:hpc/gpu, ...)",
// or that it is unknown and how to set it.
QString appliedRateText(const std::optional<AppliedRate> &rate, const run::RunSpec &spec);

} // namespace ferry::cost
