#include "cost/costreport.h"

#include "cost/budget.h"
#include "cost/money.h"
#include "data/csvsyntax.h"

#include <QDateTime>
#include <QMap>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::cost {

namespace {

const QString kNoGroup = u"(none)"_s;

// The spec the rate needs; a record whose spec cannot be read is priced by its target alone.
run::RunSpec specOf(const run::RunRecord &record)
{
    if (auto spec = run::RunSpec::fromJson(record.spec))
        return *spec;
    run::RunSpec spec;
    if (const auto target = run::TargetSpec::parse(record.target))
        spec.target = *target;
    return spec;
}

QString secondsText(double seconds)
{
    return QString::number(seconds, 'f', 3);
}

} // namespace

std::optional<double> RunCost::cost() const
{
    if (!rate)
        return std::nullopt;
    return seconds / 3600.0 * rate->perHour();
}

RunCost costOf(const run::RunRecord &record, const Rates &rates, qint64 nowMs)
{
    const run::RunSpec spec = specOf(record);
    RunCost c;
    c.run = record.id;
    c.target = record.target;
    c.sweep = spec.sweep;
    c.tags = record.tags;
    c.startedMs = record.startedMs;
    c.running = !run::isFinished(record.status);
    if (record.startedMs > 0) {
        const qint64 end = record.finishedMs > 0 ? record.finishedMs : (c.running ? nowMs : record.startedMs);
        c.seconds = double(std::max<qint64>(0, end - record.startedMs)) / 1000.0;
    }
    c.rate = rateOfRun(spec, rates); // the rate at its launch, when it was recorded
    return c;
}

QList<RunCost> costReport(const QList<run::RunRecord> &records, const Rates &rates, qint64 sinceMs, qint64 nowMs)
{
    QList<RunCost> rows;
    for (const run::RunRecord &r : records) {
        if (r.startedMs <= 0 || r.startedMs < sinceMs)
            continue;
        rows << costOf(r, rates, nowMs);
    }
    std::stable_sort(rows.begin(), rows.end(), [](const RunCost &a, const RunCost &b) {
        return a.startedMs != b.startedMs ? a.startedMs < b.startedMs : a.run < b.run;
    });
    return rows;
}

std::optional<Grouping> groupingFromText(const QString &text)
{
    if (text == u"target"_s)
        return Grouping::Target;
    if (text == u"sweep"_s)
        return Grouping::Sweep;
    if (text == u"tag"_s)
        return Grouping::Tag;
    if (text == u"month"_s)
        return Grouping::Month;
    return std::nullopt;
}

QList<CostGroup> groupCosts(const QList<RunCost> &rows, Grouping grouping)
{
    QMap<QString, CostGroup> groups;
    for (const RunCost &row : rows) {
        QStringList names;
        if (grouping == Grouping::Target)
            names << row.target;
        else if (grouping == Grouping::Sweep)
            names << (row.sweep.isEmpty() ? kNoGroup : row.sweep);
        else if (grouping == Grouping::Month)
            names << QDateTime::fromMSecsSinceEpoch(row.startedMs).toLocalTime().toString(u"yyyy-MM"_s);
        else
            names = row.tags.isEmpty() ? QStringList{kNoGroup} : row.tags;
        for (const QString &name : std::as_const(names)) {
            CostGroup &g = groups[name];
            g.name = name;
            ++g.runs;
            g.seconds += row.seconds;
            if (const auto cost = row.cost())
                g.cost += *cost;
            else
                ++g.unpriced;
        }
    }
    return groups.values();
}

CostGroup totalCost(const QList<RunCost> &rows)
{
    CostGroup total{u"total"_s, 0, 0, 0, 0};
    for (const RunCost &row : rows) {
        ++total.runs;
        total.seconds += row.seconds;
        if (const auto cost = row.cost())
            total.cost += *cost;
        else
            ++total.unpriced;
    }
    return total;
}

QString costCsv(const QList<RunCost> &rows)
{
    QString csv = u"run,target,seconds,rate,cost\n"_s;
    for (const RunCost &row : rows) {
        const auto cost = row.cost();
        csv +=
            QStringList{data::csv::quotedField(row.run), data::csv::quotedField(row.target), secondsText(row.seconds),
                        row.rate ? plainAmount(row.rate->perHour()) : QString(), cost ? plainAmount(*cost) : QString()}
                .join(u',') +
            u'\n';
    }
    return csv;
}

QString groupCsv(const QList<CostGroup> &groups)
{
    QString csv = u"group,runs,seconds,cost,unpriced_runs\n"_s;
    for (const CostGroup &g : groups)
        csv += QStringList{data::csv::quotedField(g.name), QString::number(g.runs), secondsText(g.seconds),
                           plainAmount(g.cost), QString::number(g.unpriced)}
                   .join(u',') +
               u'\n';
    return csv;
}

} // namespace ferry::cost
