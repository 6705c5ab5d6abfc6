#include "cost/estimate.h"

#include "common/durationtext.h"
#include "cost/money.h"
#include "run/workparameter.h"

#include <QDir>
#include <QJsonArray>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::cost {

namespace {

using run::workValue;

// The planned run's work parameter: the first of workParameterNames() it gives; empty: none.
QString workParameterName(const run::RunSpec &spec)
{
    const auto work = run::workParameterOf(spec);
    return work ? work->name : QString();
}

QString trainingData(const run::RunSpec &spec)
{
    for (const run::DataChannel &c : spec.channels) {
        if (c.name == u"training"_s)
            return QDir::cleanPath(c.path);
    }
    return {};
}

double median(std::vector<double> values)
{
    std::sort(values.begin(), values.end());
    const size_t n = values.size();
    return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2.0;
}

struct PastDuration {
    double seconds = 0;
    double work = 0; // the work parameter's value; 0 when there is none
    QString id;
};

// Theil–Sen: the median of the slopes between every two runs of different work, and the median
// of what is left at work 0 (robust to a run slowed by a neighbour on the machine).
std::pair<double, double> robustLine(const std::vector<PastDuration> &runs)
{
    std::vector<double> slopes;
    for (size_t i = 0; i < runs.size(); ++i) {
        for (size_t j = i + 1; j < runs.size(); ++j) {
            if (runs[i].work != runs[j].work)
                slopes.push_back((runs[j].seconds - runs[i].seconds) / (runs[j].work - runs[i].work));
        }
    }
    const double slope = median(slopes);
    std::vector<double> intercepts;
    intercepts.reserve(runs.size());
    for (const PastDuration &r : runs)
        intercepts.push_back(r.seconds - slope * r.work);
    return {slope, median(intercepts)};
}

// Each run's duration brought to the planned work `work`, and how.
std::vector<double> scaled(const std::vector<PastDuration> &runs, double work, DurationEstimate &estimate)
{
    std::vector<double> out;
    const bool sameWork = std::all_of(runs.begin(), runs.end(), [&](const PastDuration &r) { return r.work == work; });
    if (estimate.workParameter.isEmpty() || sameWork) {
        for (const PastDuration &r : runs)
            out.push_back(r.seconds);
        return out;
    }
    const bool varied =
        std::any_of(runs.begin(), runs.end(), [&](const PastDuration &r) { return r.work != runs[0].work; });
    if (runs.size() >= 3 && varied) {
        const auto [slope, intercept] = robustLine(runs);
        if (slope <= 0) { // the history shows no growth with the work: the durations as they were
            for (const PastDuration &r : runs)
                out.push_back(r.seconds);
            return out;
        }
        if (intercept >= 0) {
            estimate.scaling = Scaling::Linear;
            estimate.secondsPerUnit = slope;
            for (const PastDuration &r : runs)
                out.push_back(std::max(0.0, r.seconds + slope * (work - r.work)));
            return out;
        }
    }
    estimate.scaling = Scaling::Proportional;
    for (const PastDuration &r : runs)
        out.push_back(r.seconds * work / r.work);
    return out;
}

} // namespace

QStringList workParameterNames()
{
    return run::workParameterNames();
}

bool isComparable(const run::RunSpec &planned, const run::RunSpec &done, const run::RunRecord &record)
{
    if (record.status != run::RunStatus::Succeeded || record.startedMs <= 0 || record.finishedMs <= record.startedMs)
        return false;
    if (record.id == planned.id || done.isKernel() || planned.isKernel())
        return false;
    if (done.script != planned.script)
        return false;
    if (planned.script.isEmpty() ? trainingData(done) != trainingData(planned)
                                 : QDir::cleanPath(done.sourceDir) != QDir::cleanPath(planned.sourceDir))
        return false;
    if (QDir::cleanPath(done.environmentFile) != QDir::cleanPath(planned.environmentFile))
        return false;
    if (done.target.kind != planned.target.kind || done.target.host != planned.target.host)
        return false;
    if (planned.target.kind == run::TargetKind::Slurm &&
        done.target.options.value(u"partition"_s).toString() != planned.target.options.value(u"partition"_s).toString())
        return false;
    const QString work = workParameterName(planned);
    if (work.isEmpty())
        return workParameterName(done).isEmpty();
    return workValue(done, work).has_value();
}

DurationEstimate estimateDuration(const run::RunSpec &planned, const QList<run::RunRecord> &history, qint64 asOfMs)
{
    // Nearest to `asOfMs` first; as of now, the most recent first.
    const qint64 asOf = asOfMs > 0 ? asOfMs : std::numeric_limits<qint64>::max();
    QList<const run::RunRecord *> nearestFirst;
    for (const run::RunRecord &r : history)
        nearestFirst << &r;
    std::stable_sort(nearestFirst.begin(), nearestFirst.end(),
                     [asOf](const run::RunRecord *a, const run::RunRecord *b) {
                         return std::abs(asOf - a->startedMs) < std::abs(asOf - b->startedMs);
                     });
    DurationEstimate estimate;
    estimate.workParameter = workParameterName(planned);
    const double work = estimate.workParameter.isEmpty() ? 0 : *workValue(planned, estimate.workParameter);
    std::vector<PastDuration> runs;
    for (const run::RunRecord *r : std::as_const(nearestFirst)) {
        if (int(runs.size()) >= kEstimateMaxRuns)
            break;
        if (r->status != run::RunStatus::Succeeded) // before the spec is read: most runs end here
            continue;
        const auto done = run::RunSpec::fromJson(r->spec);
        if (!done || !isComparable(planned, *done, *r))
            continue;
        const double w = estimate.workParameter.isEmpty() ? 0 : *workValue(*done, estimate.workParameter);
        runs.push_back({double(r->finishedMs - r->startedMs) / 1000.0, w, r->id});
        estimate.runIds << r->id;
    }
    if (runs.empty())
        return DurationEstimate{};
    const std::vector<double> durations = scaled(runs, work, estimate);
    estimate.runs = int(runs.size());
    estimate.lowSeconds = *std::min_element(durations.begin(), durations.end());
    estimate.highSeconds = *std::max_element(durations.begin(), durations.end());
    const size_t typical = std::min(durations.size(), size_t(kEstimateTypicalRuns));
    estimate.typicalSeconds = median(std::vector<double>(durations.begin(), durations.begin() + long(typical)));
    return estimate;
}

CostEstimate estimateCost(const run::RunSpec &planned, const QList<run::RunRecord> &history, const Rates &rates)
{
    return CostEstimate{estimateDuration(planned, history), rateFor(planned, rates)};
}

double wallSeconds(const QList<double> &durations, int parallel)
{
    std::vector<double> freeAt(size_t(std::max(1, parallel)), 0.0); // when each place frees
    double end = 0;
    for (const double d : durations) {
        const auto place = std::min_element(freeAt.begin(), freeAt.end());
        *place += d;
        end = std::max(end, *place);
    }
    return end;
}

TotalEstimate totalEstimate(const QList<CostEstimate> &trials, int parallel)
{
    TotalEstimate total;
    total.trials = int(trials.size());
    QList<double> low, typical, high;
    bool priced = true;
    for (const CostEstimate &t : trials) {
        if (!t.duration.hasHistory())
            continue;
        ++total.withHistory;
        low << t.duration.lowSeconds;
        typical << t.duration.typicalSeconds;
        high << t.duration.highSeconds;
        priced = priced && t.rate.has_value();
    }
    if (!total.complete())
        return total;
    for (const CostEstimate &t : trials) {
        total.lowSeconds += t.duration.lowSeconds;
        total.typicalSeconds += t.duration.typicalSeconds;
        total.highSeconds += t.duration.highSeconds;
    }
    total.lowWallSeconds = wallSeconds(low, parallel);
    total.typicalWallSeconds = wallSeconds(typical, parallel);
    total.highWallSeconds = wallSeconds(high, parallel);
    if (priced) {
        total.lowCost = total.typicalCost = total.highCost = 0.0;
        for (const CostEstimate &t : trials) {
            *total.lowCost += t.lowCost();
            *total.typicalCost += t.typicalCost();
            *total.highCost += t.highCost();
        }
    }
    return total;
}

QJsonObject appliedRateJson(const AppliedRate &rate)
{
    return QJsonObject{
        {u"target"_s, rate.target},    {u"amount"_s, rate.rate.amount}, {u"unit"_s, unitName(rate.rate.unit)},
        {u"units"_s, rate.units},      {u"perHour"_s, rate.perHour()},  {u"source"_s, rate.rate.source},
        {u"default"_s, rate.isDefault}};
}

QJsonObject estimateJson(const CostEstimate &estimate)
{
    const DurationEstimate &d = estimate.duration;
    const auto range = [](double low, double typical, double high) {
        return QJsonObject{{u"low"_s, low}, {u"typical"_s, typical}, {u"high"_s, high}};
    };
    const QString scaling = d.scaling == Scaling::Linear         ? u"linear"_s
                            : d.scaling == Scaling::Proportional ? u"proportional"_s
                                                                 : u"none"_s;
    QJsonObject json{{u"runs"_s, d.runs},
                     {u"currency"_s, QString(kCurrency)},
                     {u"scaling"_s, scaling},
                     {u"workParameter"_s, d.workParameter.isEmpty() ? QJsonValue() : QJsonValue(d.workParameter)},
                     {u"basedOn"_s, QJsonArray::fromStringList(d.runIds)}};
    json[u"durationSeconds"_s] =
        d.hasHistory() ? QJsonValue(range(d.lowSeconds, d.typicalSeconds, d.highSeconds)) : QJsonValue();
    json[u"rate"_s] = estimate.rate ? QJsonValue(appliedRateJson(*estimate.rate)) : QJsonValue();
    json[u"cost"_s] = estimate.hasCost()
                          ? QJsonValue(range(estimate.lowCost(), estimate.typicalCost(), estimate.highCost()))
                          : QJsonValue();
    return json;
}

QString appliedRateText(const std::optional<AppliedRate> &rate, const run::RunSpec &spec)
{
    if (!rate) {
        const QString target = rateTargetsFor(spec).constLast();
        return u"unknown: no rate is set for %1 (ferry rates set %1 AMOUNT/h, or Settings, Rates)"_s.arg(target);
    }
    const QString source = rate->isDefault ? rate->rate.source : u"%1, %2"_s.arg(rate->target, rate->rate.source);
    if (rate->units == 1 && rate->rate.unit == RateUnit::Hour)
        return u"%1 (%2)"_s.arg(rateText(rate->rate), source);
    const QString units = rate->rate.unit == RateUnit::GpuHour ? u"GPUs"_s : u"nodes"_s;
    return u"%1 %2 × %3 = %4/h (%5)"_s.arg(QString::number(rate->units), units, rateText(rate->rate),
                                           priceText(rate->perHour()), source);
}

QString estimateText(const CostEstimate &estimate, const run::RunSpec &planned)
{
    const DurationEstimate &d = estimate.duration;
    const auto ms = [](double seconds) { return qint64(std::llround(seconds * 1000)); };
    QString text;
    if (!d.hasHistory()) {
        text = u"Duration: no history (no run of this script with this environment and target has finished "
               u"here yet)"_s;
    } else {
        text = u"Duration: about %1 (%2 to %3), from %4 comparable run%5"_s
                   .arg(durationText(ms(d.typicalSeconds)), durationText(ms(d.lowSeconds)),
                        durationText(ms(d.highSeconds)))
                   .arg(d.runs)
                   .arg(d.runs == 1 ? QString() : u"s"_s);
        if (d.scaling == Scaling::Linear)
            text += u", scaled by %1 (%2 a unit)"_s.arg(d.workParameter, durationText(ms(d.secondsPerUnit)));
        else if (d.scaling == Scaling::Proportional)
            text += u", scaled in proportion to %1"_s.arg(d.workParameter);
    }
    const QString rate = appliedRateText(estimate.rate, planned);
    if (!estimate.rate)
        return text + u"\nCost: unknown; the rate is "_s + rate;
    if (!d.hasHistory())
        return text + u"\nCost: unknown without a duration; the rate is "_s + rate;
    return text + u"\nCost: about %1 (%2 to %3) at %4"_s.arg(moneyText(estimate.typicalCost()),
                                                             moneyText(estimate.lowCost()),
                                                             moneyText(estimate.highCost()), rate);
}

} // namespace ferry::cost
