#include "cost/budget.h"

#include "common/durationtext.h"
#include "common/safefile.h"
#include "cost/costreport.h"
#include "cost/estimate.h"
#include "cost/money.h"
#include "run/rundirectory.h"

#include <QDate>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QRegularExpression>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::cost {

namespace {

// The largest cap or month budget Ferry takes: a typo of many digits is refused, not kept.
constexpr double kBudgetMaxAmount = 1e9;

// "0.50", "$0.50", "0.50 USD": an amount of money; nullopt for anything else.
std::optional<double> moneyAmount(const QString &text)
{
    static const QRegularExpression form(u"^\\$?\\s*([0-9]+(?:\\.[0-9]*)?|\\.[0-9]+)\\s*(?:USD)?$"_s,
                                         QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = form.match(text.trimmed());
    if (!match.hasMatch())
        return std::nullopt;
    const double amount = match.captured(1).toDouble();
    if (!std::isfinite(amount))
        return std::nullopt;
    return amount;
}

qint64 monthStartMs(qint64 nowMs)
{
    const QDate today = QDateTime::fromMSecsSinceEpoch(nowMs).date();
    return QDateTime(QDate(today.year(), today.month(), 1), QTime(0, 0)).toMSecsSinceEpoch();
}

} // namespace

std::optional<AppliedRate> recordedRate(const QJsonObject &json)
{
    if (json.isEmpty())
        return std::nullopt;
    const double amount = json.value(u"amount"_s).toDouble(-1);
    const double units = json.value(u"units"_s).toDouble(-1);
    const QString unit = json.value(u"unit"_s).toString();
    const bool knownUnit = unit == unitName(RateUnit::Hour) || unit == unitName(RateUnit::GpuHour);
    if (!std::isfinite(amount) || amount < 0 || !std::isfinite(units) || units < 0 || !knownUnit)
        return std::nullopt;
    AppliedRate rate;
    rate.target = json.value(u"target"_s).toString();
    rate.rate = Rate{amount, unit == unitName(RateUnit::GpuHour) ? RateUnit::GpuHour : RateUnit::Hour,
                     json.value(u"source"_s).toString()};
    rate.isDefault = json.value(u"default"_s).toBool();
    rate.units = units;
    return rate;
}

std::optional<AppliedRate> rateOfRun(const run::RunSpec &spec, const Rates &rates)
{
    if (auto recorded = recordedRate(spec.rate))
        return recorded;
    return rateFor(spec, rates);
}

int budgetGraceSeconds(const QSettings &settings)
{
    const int grace = kBudgetGraceSetting.get(settings);
    return grace >= 0 && grace <= kMaxGraceSeconds ? grace : run::RunBudget::kDefaultGraceSeconds;
}

Expected<int> parseGrace(const QString &text)
{
    bool ok = false;
    const int grace = text.trimmed().toInt(&ok);
    if (!ok || grace < 0 || grace > kMaxGraceSeconds)
        return Error{u"a grace of '%1' is not whole seconds from 0 to %2"_s.arg(text).arg(kMaxGraceSeconds),
                     {},
                     0,
                     0,
                     u"e.g. 30: the seconds between SIGTERM and SIGKILL at a cap"_s};
    return grace;
}

Expected<double> parseMaxCost(const QString &text)
{
    const auto amount = moneyAmount(text);
    if (!amount || *amount <= 0 || *amount > kBudgetMaxAmount)
        return Error{u"--max-cost '%1' is not an amount above 0"_s.arg(text),
                     {},
                     0,
                     0,
                     u"write an amount in %1, e.g. --max-cost 12.50"_s.arg(kCurrency)};
    return *amount;
}

Expected<qint64> parseMaxTime(const QString &text)
{
    const auto seconds = parseClockText(text);
    if (!seconds || *seconds <= 0)
        return Error{u"--max-time '%1' is not a time above 0"_s.arg(text),
                     {},
                     0,
                     0,
                     u"write H:MM:SS, e.g. --max-time 2:30:00"_s};
    return *seconds;
}

Expected<void> recordRateAndBudget(run::RunSpec &spec, const Rates &rates)
{
    // A cap is held by the local supervisor, by a container run's watcher (targets/containerbudget.h),
    // by an SSH run's runner on its host (targets/remotescripts.h) and by Slurm (its --time); the
    // embedded trainer runs inside Ferry's window, where it would be a promise nobody keeps.
    if (spec.budget.any() && spec.target.kind == run::TargetKind::Embedded)
        return Error{u"a run's --max-cost and --max-time are held on this machine (local or in a container), on SSH "
                     u"hosts and on Slurm, not for %1"_s.arg(spec.target.toString()),
                     {},
                     0,
                     0,
                     u"run it with --target local, container, ssh:HOST or slurm:HOST, or leave the cap out"_s};
    const auto rate = rateFor(spec, rates);
    if (rate)
        spec.rate = appliedRateJson(*rate); // the form --estimate --json gives
    run::RunBudget &budget = spec.budget;
    if (budget.maxCost <= 0)
        return {};
    if (!rate)
        return Error{u"--max-cost needs a rate for %1, and it has none"_s.arg(spec.target.toString()),
                     {},
                     0,
                     0,
                     u"set one (ferry rates set %1 AMOUNT/h, or Settings › Rates), or cap the time: --max-time "
                     u"H:MM:SS"_s.arg(rateTargetsFor(spec).constLast())};
    budget.perHour = rate->perHour();
    budget.costSeconds = secondsBought(budget.maxCost, budget.perHour);
    return {};
}

qint64 secondsBought(double maxCost, double perHour)
{
    // A rate of 0 never reaches the cap: the run is capped by its time alone, if it has one.
    if (maxCost <= 0 || perHour <= 0)
        return 0;
    return static_cast<qint64>(std::ceil(maxCost / perHour * 3600.0));
}

QString CatalogBudget::priceText() const
{
    if (!rate)
        return {};
    return u"%1 × %2 at %3 each: %4"_s.arg(QString::number(instances), instanceType, rateText(*rate), rate->source);
}

Expected<CatalogBudget> budgetAtCatalogPrice(const run::RunBudget &budget, const QString &cloud,
                                             const QString &instanceType, int instances, const PriceCatalog &catalog)
{
    CatalogBudget priced;
    priced.budget = budget;
    priced.instances = std::max(instances, 1);
    priced.instanceType = instanceType;
    if (budget.maxCost <= 0)
        return priced;
    const QString hint =
        u"cap the time instead (--max-time H:MM:SS), or name an instance the catalog prices "
        u"(ferry rates catalog --cloud %1), or add its row to %2/%1.csv"_s.arg(cloud, userCatalogDir());
    const CatalogEntry *entry = catalog.find(cloud, instanceType);
    if (!entry)
        return Error{u"--max-cost %1 cannot be priced on %2: the price catalog has no %2 instance '%3'"_s.arg(
                         moneyText(budget.maxCost), cloud, instanceType),
                     {},
                     0,
                     0,
                     hint};
    auto rate = catalogRate(*entry, false);
    if (!rate)
        return Error{
            u"--max-cost %1 cannot be priced on %2: %3"_s.arg(moneyText(budget.maxCost), cloud, rate.error().message),
            rate.error().path, rate.error().line, 0, hint};
    priced.rate = *rate;
    priced.budget.perHour = rate->amount * priced.instances;
    priced.budget.costSeconds = secondsBought(budget.maxCost, priced.budget.perHour);
    return priced;
}

Expected<MonthBudget> parseMonthBudget(const QString &text)
{
    static const QRegularExpression hours(u"^([0-9]+(?:\\.[0-9]*)?)\\s*h$"_s,
                                          QRegularExpression::CaseInsensitiveOption);
    const QRegularExpressionMatch match = hours.match(text.trimmed());
    MonthBudget budget;
    if (match.hasMatch()) {
        budget.kind = MonthBudget::Kind::Time;
        budget.amount = match.captured(1).toDouble();
    } else if (const auto amount = moneyAmount(text)) {
        budget.amount = *amount;
    } else {
        budget.amount = -1;
    }
    if (!std::isfinite(budget.amount) || budget.amount <= 0 || budget.amount > kBudgetMaxAmount)
        return Error{u"'%1' is not a month's budget"_s.arg(text),
                     {},
                     0,
                     0,
                     u"write an amount in %1 (200, $200, 200 USD) or hours (100h)"_s.arg(kCurrency)};
    return budget;
}

QString monthBudgetText(const MonthBudget &budget)
{
    if (budget.kind == MonthBudget::Kind::Time)
        return u"%1 h"_s.arg(plainAmount(budget.amount));
    return moneyText(budget.amount);
}

Expected<std::optional<MonthBudget>> readMonthBudget(const QSettings &settings)
{
    const QString text = kMonthBudgetSetting.get(settings);
    if (text.isEmpty())
        return std::optional<MonthBudget>();
    const auto budget = parseMonthBudget(text);
    if (!budget)
        return Error{u"the month's budget in the settings, '%1', cannot be read"_s.arg(text), settings.fileName(), 0, 0,
                     u"set it again: ferry budget set month AMOUNT (or HOURSh), or ferry budget unset month"_s};
    return std::optional<MonthBudget>(*budget);
}

namespace {

// How a month's budget is written where it is kept: "200 USD", "100h".
QString storedText(const MonthBudget &budget)
{
    return budget.kind == MonthBudget::Kind::Time ? QString(plainAmount(budget.amount) + u"h"_s)
                                                  : QString(plainAmount(budget.amount) + u' ' + kCurrency);
}

QString budgetFile(const QString &stateDir)
{
    return QDir(stateDir).filePath(kWorkspaceBudgetFile);
}

constexpr qint64 kBudgetFileMaxBytes = 4096;
const QString kNoBudget = u"none"_s;

} // namespace

void setMonthBudget(QSettings &settings, const MonthBudget &budget)
{
    kMonthBudgetSetting.set(settings, storedText(budget));
}

void unsetMonthBudget(QSettings &settings)
{
    kMonthBudgetSetting.reset(settings);
}

Expected<std::optional<MonthBudget>> parseOwnMonthBudget(const QString &text)
{
    if (text.trimmed() == kNoBudget)
        return std::optional<MonthBudget>();
    const auto budget = parseMonthBudget(text);
    if (!budget)
        return budget.error();
    return std::optional<MonthBudget>(*budget);
}

Expected<std::optional<std::optional<MonthBudget>>> workspaceMonthBudget(const QString &stateDir)
{
    using Own = std::optional<std::optional<MonthBudget>>;
    const QString path = budgetFile(stateDir);
    const auto bytes = readRegularFile(path, kBudgetFileMaxBytes);
    if (!bytes)
        return bytes.error();
    if (!bytes->has_value())
        return Own();
    const Error unreadable{u"the workspace's budget cannot be read"_s, path, 0, 0,
                           u"set it again (ferry budget set month AMOUNT, HOURSh or none) or remove the file"_s};
    QJsonParseError parsed{};
    const QJsonDocument json = QJsonDocument::fromJson(**bytes, &parsed);
    if (parsed.error != QJsonParseError::NoError || !json.isObject())
        return unreadable;
    const QJsonValue month = json.object().value(u"month"_s);
    if (month.isUndefined())
        return Own();
    if (!month.isString())
        return unreadable;
    const auto budget = parseOwnMonthBudget(month.toString());
    if (!budget) {
        Error e = budget.error();
        e.path = path;
        return e;
    }
    return Own(*budget);
}

Expected<MonthBudgetInForce> monthBudgetInForce(const QString &stateDir, const QSettings &settings)
{
    const auto own = workspaceMonthBudget(stateDir);
    if (!own)
        return own.error();
    if (own->has_value())
        return MonthBudgetInForce{**own, true};
    const auto fallback = readMonthBudget(settings);
    if (!fallback)
        return fallback.error();
    return MonthBudgetInForce{*fallback, false};
}

Expected<void> setWorkspaceMonthBudget(const QString &stateDir, const std::optional<MonthBudget> &budget)
{
    if (!QDir().mkpath(stateDir))
        return Error{u"cannot make the workspace's folder"_s, stateDir, 0, 0, u"check its permissions"_s};
    const QJsonObject json{{u"month"_s, budget ? storedText(*budget) : kNoBudget}};
    return replaceFileSafely(budgetFile(stateDir), QJsonDocument(json).toJson());
}

Expected<void> unsetWorkspaceMonthBudget(const QString &stateDir)
{
    const QString path = budgetFile(stateDir);
    if (QFileInfo(path).isSymLink() || QFileInfo::exists(path)) {
        if (!QFile::remove(path))
            return Error{u"cannot remove the workspace's budget"_s, path, 0, 0, u"check its permissions"_s};
    }
    return {};
}

QList<KernelTime> readKernelTimes(const QString &kernelsDir)
{
    QList<KernelTime> kernels;
    const QDir dir(kernelsDir);
    for (const QString &name : dir.entryList(QDir::Dirs | QDir::NoDotAndDotDot | QDir::NoSymLinks)) {
        const run::RunDirectory folder(dir.filePath(name));
        const auto spec = folder.readSpec();
        if (!spec || !spec->isKernel())
            continue;
        KernelTime k;
        k.id = name;
        k.spec = *spec;
        k.startedMs = QFileInfo(folder.specFile()).lastModified().toMSecsSinceEpoch();
        const auto exit = folder.readExit();
        if (exit && exit->has_value() && (*exit)->finishedMs > 0)
            k.endedMs = (*exit)->finishedMs;
        else
            k.endedMs = folder.heartbeatMs().value_or(k.startedMs);
        k.endedMs = std::max(k.endedMs, k.startedMs);
        kernels << k;
    }
    return kernels;
}

MonthSpending monthSpending(const QList<run::RunRecord> &records, const QList<KernelTime> &kernels, const Rates &rates,
                            qint64 nowMs)
{
    MonthSpending s;
    s.monthStartMs = monthStartMs(nowMs);
    s.monthName = QLocale::c().toString(QDateTime::fromMSecsSinceEpoch(nowMs).date(), u"MMMM yyyy"_s);
    for (const RunCost &c : costReport(records, rates, s.monthStartMs, nowMs)) {
        ++s.runs;
        s.seconds += c.seconds;
        if (const auto cost = c.cost())
            s.cost += *cost;
        else
            ++s.unpriced;
    }
    for (const KernelTime &k : kernels) {
        if (k.startedMs < s.monthStartMs)
            continue;
        ++s.kernels;
        const double seconds = double(k.endedMs - k.startedMs) / 1000.0;
        s.seconds += seconds;
        if (const auto rate = rateOfRun(k.spec, rates))
            s.cost += seconds / 3600.0 * rate->perHour();
        else
            ++s.unpriced;
    }
    return s;
}

QString monthSpendingText(const MonthSpending &s, const MonthBudget &budget)
{
    const QString spent =
        budget.kind == MonthBudget::Kind::Time ? u"%1 h"_s.arg(s.seconds / 3600.0, 0, 'f', 2) : moneyText(s.cost);
    QString text = u"%1 of %2 spent in %3 (%4 runs, %5 kernels"_s.arg(spent, monthBudgetText(budget), s.monthName)
                       .arg(s.runs)
                       .arg(s.kernels);
    if (s.unpriced > 0 && budget.kind == MonthBudget::Kind::Money)
        text += u"; %1 at an unknown rate, not counted"_s.arg(s.unpriced);
    return text + u')';
}

bool monthSpent(const MonthSpending &s, const MonthBudget &budget)
{
    return budget.kind == MonthBudget::Kind::Time ? s.seconds / 3600.0 >= budget.amount : s.cost >= budget.amount;
}

QString sweepBudgetStop(double maxCost, qint64 maxSeconds, const QList<run::RunRecord> &trials,
                        const run::RunSpec &next, const QList<run::RunRecord> &history, const Rates &rates,
                        qint64 nowMs)
{
    if (maxCost <= 0 && maxSeconds <= 0)
        return {};
    const auto rate = rateFor(next, rates);
    if (maxCost > 0 && !rate)
        return u"budget: max_cost needs a rate for %1, and it has none (ferry rates set)"_s.arg(next.target.toString());
    // One trial's time: the next one's estimate from history, else the mean of the trials over.
    double estimate = 0;
    QString basis;
    const CostEstimate fromHistory = estimateCost(next, history, rates);
    if (fromHistory.duration.hasHistory()) {
        estimate = fromHistory.duration.typicalSeconds;
        basis = u"its estimate from %1 runs"_s.arg(fromHistory.duration.runs);
    } else {
        double sum = 0;
        int over = 0;
        for (const run::RunRecord &r : trials) {
            if (!run::isFinished(r.status) || r.startedMs <= 0 || r.finishedMs < r.startedMs)
                continue;
            sum += double(r.finishedMs - r.startedMs) / 1000.0;
            ++over;
        }
        if (over > 0) {
            estimate = sum / over;
            basis = u"the mean of the %1 trials over"_s.arg(over);
        }
    }
    const double perHour = rate ? rate->perHour() : 0;
    double seconds = 0;
    double spent = 0;
    for (const run::RunRecord &r : trials) {
        const RunCost c = costOf(r, rates, nowMs);
        const double counted = c.running ? std::max(c.seconds, estimate) : c.seconds;
        seconds += counted;
        const double trialPerHour = c.rate ? c.rate->perHour() : perHour;
        spent += counted / 3600.0 * trialPerHour;
    }
    const double nextCost = estimate / 3600.0 * perHour;
    // A target without a rate: its cost is unknown, never 0 (a rate of 0 is a known one).
    const QString nextText =
        basis.isEmpty() ? QString()
                        : u"the next trial (%1, %2: %3)"_s.arg(clockText(qRound64(estimate)),
                                                               rate ? moneyText(nextCost) : u"cost unknown"_s, basis);
    if (maxSeconds > 0 && seconds + estimate > double(maxSeconds))
        return u"budget: max_time %1 would be passed: %2 taken or committed by %3 trials%4"_s.arg(
            clockText(maxSeconds), clockText(qRound64(seconds)), QString::number(trials.size()),
            nextText.isEmpty() ? QString() : QString(u", and "_s + nextText));
    if (maxCost > 0 && spent + nextCost > maxCost)
        return u"budget: max_cost %1 would be passed: %2 spent or committed by %3 trials%4"_s.arg(
            moneyText(maxCost), moneyText(spent), QString::number(trials.size()),
            nextText.isEmpty() ? QString() : QString(u", and "_s + nextText));
    return {};
}

Expected<void> checkMonthBudget(const run::RunStore &store, const QString &kernelsDir, const QSettings &settings,
                                qint64 nowMs)
{
    const auto inForce = monthBudgetInForce(QFileInfo(kernelsDir).path(), settings); // <root>/.ferry
    if (!inForce)
        return inForce.error();
    if (!inForce->budget)
        return {};
    const MonthBudget &month = *inForce->budget;
    // The store's runs are read only when there is a month's budget to judge.
    const RatesRead rates = readRates(settings);
    const MonthSpending spending = monthSpending(store.runs(), readKernelTimes(kernelsDir), rates.rates, nowMs);
    if (!monthSpent(spending, month))
        return {};
    return Error{u"the workspace's budget for the month is spent: %1"_s.arg(monthSpendingText(spending, month)),
                 {},
                 0,
                 0,
                 u"raise it (ferry budget set month AMOUNT, or Settings › Rates) or wait for next month"_s};
}

Expected<void> prepareLaunch(run::RunSpec &spec, const run::RunStore &store, const QString &kernelsDir,
                             const QSettings &settings, qint64 nowMs)
{
    if (const auto recorded = recordRateAndBudget(spec, readRates(settings).rates); !recorded)
        return recorded;
    return checkMonthBudget(store, kernelsDir, settings, nowMs);
}

} // namespace ferry::cost
