// Rates: what an hour of a target costs, as the user sets them per SSH host, Slurm cluster or
// partition, kernel target and this machine (docs/cost.md), and which one prices a run.
#pragma once

#include "common/error.h"
#include "cost/catalog.h"
#include "run/runspec.h"

#include <QList>
#include <QMap>
#include <QSettings>
#include <QString>

#include <optional>

namespace ferry::cost {

// Per hour of one machine (a node), or per hour of one GPU (a Slurm partition that charges so).
enum class RateUnit { Hour, GpuHour };

// An amount in kCurrency per unit, and where it came from (shown beside every amount priced at it).
struct Rate {
    double amount = 0;
    RateUnit unit = RateUnit::Hour;
    QString source;
    bool operator==(const Rate &) const = default;
};

// "3.60 USD/h", "1.20 USD/GPU-h".
QString rateText(const Rate &rate);
QString unitName(RateUnit unit); // "hour", "gpu-hour" (JSON)

// The source of a rate typed in (`ferry rates set`, Preferences).
inline constexpr QLatin1StringView kSetByYou{"set by you"};
// The source of this machine's rate while none is set: 0, known.
inline constexpr QLatin1StringView kLocalDefaultSource{"default: this machine costs nothing unless you set a rate"};

// What the user writes after the target: AMOUNT/h (per hour, a node-hour on Slurm), AMOUNT/gpu-h
// (per GPU-hour), with an optional "$" before or "USD" after the amount ("$3.60/h", "3.60 USD/h");
// a bare "0" is free. Or an instance of the catalog: CLOUD:TYPE[@REGION][:spot] ("aws:g5.xlarge",
// "gcp:a2-highgpu-1g@us-central1", "aws:p3.2xlarge:spot"), its price an hour with the catalog's
// instance, region and date as its source.
Expected<Rate> parseRate(const QString &text, const PriceCatalog &catalog);
// A catalog row's price as a rate (its spot price with `spot`); an Error when the row has none.
Expected<Rate> catalogRate(const CatalogEntry &entry, bool spot);

// The names rates are set for ("rate targets"):
//   local                  this machine: local, container and embedded runs (0 unless set)
//   ssh:HOST               an SSH host
//   slurm:HOST             every partition of a Slurm cluster
//   slurm:HOST/PARTITION   one partition (per hour of a node or per GPU-hour)
//   kernel:TARGET          kernels on TARGET (one of the above); a kernel without one takes TARGET's
// The target as written, checked; an Error says what is wrong and how to write it.
Expected<QString> checkRateTarget(const QString &text);
// The rate targets that may price `spec`, the most specific first (a kernel's own, a partition's,
// the cluster's; "local" for this machine).
QStringList rateTargetsFor(const run::RunSpec &spec);

using Rates = QMap<QString, Rate>; // by rate target

// The user's rates, kept in Ferry's settings (group "rates"). A value that cannot be read (an
// edited settings file) is left out and said.
struct RatesRead {
    Rates rates;
    QList<Error> problems;
};
RatesRead readRates(const QSettings &settings);
// Whether `rate` may be set for `target`: checkRateTarget, a finite amount from 0 to a million, a
// GPU-hour rate only for a Slurm cluster or partition. The target as checkRateTarget writes it.
Expected<QString> checkRate(const QString &target, const Rate &rate);
// Stores `rate` for `target`, checked by checkRate.
Expected<void> setRate(QSettings &settings, const QString &target, const Rate &rate);
void removeRate(QSettings &settings, const QString &target);

// The rate that prices a run, and how many of its units the run holds.
struct AppliedRate {
    QString target; // the rate target it was set for ("ssh:gpu1"), or "local" for the default
    Rate rate;
    bool isDefault = false; // this machine's 0 while no rate is set
    double units = 1;       // nodes (per hour) or GPUs (per GPU-hour) the run holds

    // What an hour of the run costs: the rate times its nodes or its GPUs.
    double perHour() const { return rate.amount * units; }
};
// The first of rateTargetsFor(spec) that has a rate; this machine's default 0 for a run here; nullopt
// when the rate is unknown (an SSH or Slurm target without one): never 0.
std::optional<AppliedRate> rateFor(const run::RunSpec &spec, const Rates &rates);

// The nodes and GPUs a run holds: nodes from its distribution (1 by default); GPUs: nodes times
// gpus-per-node, else the target's "gpus" option, else 0.
int nodesOf(const run::TargetSpec &target);
int gpusOf(const run::TargetSpec &target);

} // namespace ferry::cost
