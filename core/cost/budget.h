// Budgets (docs/cost.md): the rate in force recorded on a run at launch, a run's caps prepared for
// its supervisor, and the workspace's monthly budget that refuses a launch once it is spent.
#pragma once

#include "common/error.h"
#include "common/setting.h"
#include "cost/rates.h"
#include "store/runstore.h"

#include <QJsonObject>
#include <QList>
#include <QSettings>
#include <QString>

#include <optional>

namespace ferry::cost {

// The rate recorded in a run's spec at its launch (estimate.h's appliedRateJson: target, amount, unit,
// units, perHour, source, default), read back; nullopt: none recorded, or not readable.
std::optional<AppliedRate> recordedRate(const QJsonObject &json);
// The rate a run is priced at: the one recorded at its launch, else rateFor(spec, rates) (a run of an
// earlier Ferry).
std::optional<AppliedRate> rateOfRun(const run::RunSpec &spec, const Rates &rates);

// The grace a run's caps give its script between SIGTERM and SIGKILL when `--grace` does not say:
// `ferry budget set grace SECONDS` (0 to 3600; 30 by default).
inline const Setting<int> kBudgetGraceSetting{"budget/graceSeconds", run::RunBudget::kDefaultGraceSeconds};
inline constexpr int kMaxGraceSeconds = 3600;
// kBudgetGraceSetting's value, the default for one out of range (an edited file).
int budgetGraceSeconds(const QSettings &settings);
// Parses a grace (`--grace`, `ferry budget set grace`): whole seconds from 0 to kMaxGraceSeconds.
Expected<int> parseGrace(const QString &text);

// Parses `--max-cost`: an amount ("0.50", "$0.50", "0.50 USD") above 0.
Expected<double> parseMaxCost(const QString &text);
// Parses `--max-time`: H:MM:SS, M:SS or seconds, above 0.
Expected<qint64> parseMaxTime(const QString &text);

// Records the rate in force in `spec` (spec.rate) and, for a money cap, when it is reached at that
// rate (spec.budget.costSeconds, perHour). A money cap needs a known rate, and a cap a target that
// holds it (local: the supervisor; SSH and Slurm: the runner on the host, and Slurm's --time): an Error otherwise.
Expected<void> recordRateAndBudget(run::RunSpec &spec, const Rates &rates);

// The time `maxCost` buys at `perHour`: ceil(maxCost / perHour × 3600) seconds; 0 (never reached)
// at a rate of 0. The one rule a money cap becomes a time by, at launch and for a hand-off.
qint64 secondsBought(double maxCost, double perHour);

// A run's caps priced for a cloud hand-off (a SageMaker job, docs/cost.md): the money cap as the
// time it buys at the catalog's price of the instance the job runs on, times its instances, not at
// the rate of the run's own target.
struct CatalogBudget {
    run::RunBudget budget;    // costSeconds and perHour at the instance's price
    std::optional<Rate> rate; // one instance's price an hour, its source naming the catalog's date;
                              // nullopt without a money cap (nothing priced)
    int instances = 1;
    QString instanceType;
    // "1 × ml.g5.xlarge at 1.408 USD/h each: sagemaker ml.g5.xlarge in us-east-1, on demand, catalog of
    // 2026-12-07"; empty without a money cap.
    QString priceText() const;
};
// The caps of `budget` with its money cap (if any) priced at `cloud`'s `instanceType` in `catalog`
// (its first row: the catalog's region) × `instances`. A money cap at an instance the catalog has no
// on-demand price for is refused (which instance, and what to do: cap the time, or name one it has),
// never priced at another rate.
Expected<CatalogBudget> budgetAtCatalogPrice(const run::RunBudget &budget, const QString &cloud,
                                             const QString &instanceType, int instances, const PriceCatalog &catalog);

// A workspace's budget for a calendar month (local time): an amount of money, or of hours of runs
// and kernels, each workspace counting its own. A workspace's own is kept in it (monthBudgetInForce);
// Ferry's settings (`budget/month`: "200 USD", "100h") hold the default for every workspace without.
struct MonthBudget {
    enum class Kind { Money, Time };
    Kind kind = Kind::Money;
    double amount = 0; // in kCurrency, or in hours
    bool operator==(const MonthBudget &) const = default;
};
inline const Setting<QString> kMonthBudgetSetting{"budget/month", QString()};
// "200", "$200", "200 USD" (money); "100h", "100 h" (hours). Above 0.
Expected<MonthBudget> parseMonthBudget(const QString &text);
QString monthBudgetText(const MonthBudget &budget); // "200.00 USD", "100 h"
// nullopt: none set; an Error for a value that cannot be read (an edited settings file).
Expected<std::optional<MonthBudget>> readMonthBudget(const QSettings &settings);
void setMonthBudget(QSettings &settings, const MonthBudget &budget);
void unsetMonthBudget(QSettings &settings);

// The month's budget in force in a workspace (`stateDir`: its .ferry folder): its own, from
// kWorkspaceBudgetFile there ({"month": "200 USD"}; "none": no budget there, whatever the default),
// else the default from Ferry's settings. The file is read as untrusted (4 KiB at most; a value
// that cannot be read is an Error naming the file).
inline constexpr QLatin1StringView kWorkspaceBudgetFile{"budget.json"};
struct MonthBudgetInForce {
    std::optional<MonthBudget> budget;
    bool workspaceOwn = false; // from the workspace's file, not the default
};
Expected<MonthBudgetInForce> monthBudgetInForce(const QString &stateDir, const QSettings &settings);
// A workspace's own month as written (its file, `ferry budget set month`, Settings › Rates): a
// budget as parseMonthBudget reads it, or "none" (nullopt: no budget there, whatever the default).
Expected<std::optional<MonthBudget>> parseOwnMonthBudget(const QString &text);
// The workspace's own (nullopt: "none", no budget there); unset: the default again.
Expected<void> setWorkspaceMonthBudget(const QString &stateDir, const std::optional<MonthBudget> &budget);
Expected<void> unsetWorkspaceMonthBudget(const QString &stateDir);
// The workspace's own as written in its file: nullopt when it has none (the default holds).
Expected<std::optional<std::optional<MonthBudget>>> workspaceMonthBudget(const QString &stateDir);

// A kernel's time (core/kernelhost: a folder per kernel with its spec.json, its heartbeat and its
// end): from its spec's writing to its end, or to its last heartbeat while it lives.
struct KernelTime {
    QString id;
    run::RunSpec spec;
    qint64 startedMs = 0;
    qint64 endedMs = 0;
};
// The kernels of `kernelsDir` (a workspace's .ferry/kernels).
QList<KernelTime> readKernelTimes(const QString &kernelsDir);

// What the month has spent so far: runs and kernels that started in it, each at its rate (a
// kernel: its kernel target's rate, through rateFor).
struct MonthSpending {
    qint64 monthStartMs = 0;
    QString monthName; // "December 2026"
    int runs = 0;
    int kernels = 0;
    double seconds = 0;
    double cost = 0;  // of those whose rate is known
    int unpriced = 0; // runs and kernels at an unknown rate: their time counted, their cost not
};
MonthSpending monthSpending(const QList<run::RunRecord> &records, const QList<KernelTime> &kernels, const Rates &rates,
                            qint64 nowMs);
// "31.20 USD of 200.00 USD spent in December 2026 (12 runs, 2 kernels; 1 at an unknown rate)".
QString monthSpendingText(const MonthSpending &spending, const MonthBudget &budget);
bool monthSpent(const MonthSpending &spending, const MonthBudget &budget);

// A sweep's budget (its file's `budget:`), judged before each trial is launched: the trials so far
// (those over as they took; those running as the longer of their time so far and one trial's
// estimate) plus the next trial's estimate must stay within max_cost and max_time. One trial's
// estimate: the next one's from history (estimateCost, typical), else the mean of the trials over
// so far, else none yet (the first trials start while nothing is spent). Returns why the next
// trial must not start ("budget: ..."), or empty when it fits.
QString sweepBudgetStop(double maxCost, qint64 maxSeconds, const QList<run::RunRecord> &trials,
                        const run::RunSpec &next, const QList<run::RunRecord> &history, const Rates &rates,
                        qint64 nowMs);

// Refuses a start (a run, a kernel) once the workspace's month is spent, with the numbers; nothing
// without a month's budget. `kernelsDir`: the workspace's kernels (<root>/.ferry/kernels: its own
// budget is read beside them, monthBudgetInForce).
Expected<void> checkMonthBudget(const run::RunStore &store, const QString &kernelsDir, const QSettings &settings,
                                qint64 nowMs);

// What launchRun does before it starts a run: records its rate and caps, and refuses it when the
// workspace's month is spent (the numbers in the Error). `kernelsDir`: the workspace's kernels.
Expected<void> prepareLaunch(run::RunSpec &spec, const run::RunStore &store, const QString &kernelsDir,
                             const QSettings &settings, qint64 nowMs);

} // namespace ferry::cost
