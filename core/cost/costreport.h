// After runs: each run's time and cost from its record and the rates, and the report of them
// grouped by target, sweep or tag (`ferry cost report`, docs/cost.md).
#pragma once

#include "cost/rates.h"
#include "store/runstore.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::cost {

// A run's time and money: one function of its record and the rates, at `nowMs` for a run still
// going (what a live view and a budget read too).
struct RunCost {
    QString run;
    QString target; // the record's target ("ssh:gpu1")
    QString sweep;  // empty: none
    QStringList tags;
    qint64 startedMs = 0;
    double seconds = 0;   // from its start to its end, or to now while it runs
    bool running = false; // not over yet: the seconds and the cost so far
    std::optional<AppliedRate> rate;

    // seconds × the rate an hour; nullopt when the rate is unknown (never 0 for unknown).
    std::optional<double> cost() const;
};
// The record's cost, at the rate recorded at its launch (budget.h: rateOfRun), or the rates now for
// a run without one; a run that never started costs nothing and takes 0 seconds.
RunCost costOf(const run::RunRecord &record, const Rates &rates, qint64 nowMs);

// The runs that started at `sinceMs` or later (0: all), oldest first, each priced.
QList<RunCost> costReport(const QList<run::RunRecord> &records, const Rates &rates, qint64 sinceMs, qint64 nowMs);

enum class Grouping { Target, Sweep, Tag, Month };
// "target", "sweep", "tag", "month"; nullopt for another word.
std::optional<Grouping> groupingFromText(const QString &text);

// One group: its runs, their seconds, the cost of those whose rate is known and how many are not.
struct CostGroup {
    QString name; // the target, the sweep id, the tag or the month of the start ("2026-12", local
                  // time); "(none)" for runs of no sweep or no tag
    int runs = 0;
    double seconds = 0;
    double cost = 0;
    int unpriced = 0; // runs at an unknown rate: their seconds counted, their cost not
};
// By target, sweep, tag (a run with several tags counts in each) or month, in name order.
QList<CostGroup> groupCosts(const QList<RunCost> &rows, Grouping grouping);
// All the rows as one group named "total".
CostGroup totalCost(const QList<RunCost> &rows);

// The CSV forms (docs/cost.md): one row per run, "run,target,seconds,rate,cost" (rate: the run's
// amount an hour, its nodes or GPUs counted; rate and cost empty when the rate is unknown), no
// summary row; and one row per group, "group,runs,seconds,cost,unpriced_runs".
QString costCsv(const QList<RunCost> &rows);
QString groupCsv(const QList<CostGroup> &groups);

} // namespace ferry::cost
