#include "ui/compare/comparison.h"

#include "env/environmentfile.h"
#include "tracking/runlabels.h"
#include "ui/chart/seriesstore.h"

#include <algorithm>
#include <new>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// The metric of the pair that holds run `run` (0: the baseline, A of the first pair).
const run::RunDiff::Metric *metricOf(const Comparison &c, int run, const QString &metric, bool &isA)
{
    if (c.diffs.isEmpty() || run < 0 || run >= c.runs.size())
        return nullptr;
    const run::RunDiff &diff = c.diffs.at(std::max(0, run - 1));
    isA = run == 0;
    const auto it = std::find_if(diff.metrics.cbegin(), diff.metrics.cend(),
                                 [&](const run::RunDiff::Metric &m) { return m.name == metric; });
    return it == diff.metrics.cend() ? nullptr : &*it;
}

QList<env::EnvironmentChange> environmentChanges(const run::RunRecord &a, const run::RunRecord &b)
{
    const auto specA = run::RunSpec::fromJson(a.spec), specB = run::RunSpec::fromJson(b.spec);
    if (!specA || !specB || specA->environmentSpec.isEmpty() || specB->environmentSpec.isEmpty())
        return {};
    return env::diffEnvironments(env::parseEnvironmentYaml(specA->environmentSpec, u"run "_s + a.id).environment,
                                 env::parseEnvironmentYaml(specB->environmentSpec, u"run "_s + b.id).environment);
}

} // namespace

std::optional<double> Comparison::last(int run, const QString &metric) const
{
    bool isA = false;
    const run::RunDiff::Metric *m = metricOf(*this, run, metric, isA);
    if (!m)
        return std::nullopt;
    return isA ? m->lastA : m->lastB;
}

std::optional<double> Comparison::best(int run, const QString &metric) const
{
    bool isA = false;
    const run::RunDiff::Metric *m = metricOf(*this, run, metric, isA);
    if (!m)
        return std::nullopt;
    return isA ? m->bestA : m->bestB;
}

std::optional<double> Comparison::valueAt(int run, const QString &metric, double step) const
{
    if (run < 0 || run >= runs.size())
        return std::nullopt;
    const auto it = points.constFind(seriesKey(runs.at(run).id, metric));
    if (it == points.constEnd())
        return std::nullopt;
    const std::vector<run::SeriesPoint> &p = *it;
    const auto after = std::upper_bound(p.cbegin(), p.cend(), step,
                                        [](double s, const run::SeriesPoint &point) { return s < point.step; });
    if (after == p.cbegin())
        return std::nullopt;
    return std::prev(after)->value;
}

double Comparison::lastStep() const
{
    double most = 0;
    for (const std::vector<run::SeriesPoint> &p : points) {
        if (!p.empty())
            most = std::max(most, p.back().step);
    }
    return most;
}

bool ComparedParameter::differs() const
{
    return std::any_of(values.cbegin(), values.cend(), [&](const auto &v) { return v != values.first(); });
}

QList<ComparedParameter> comparedParameters(const Comparison &comparison)
{
    QList<ComparedParameter> rows;
    const qsizetype runs = comparison.runs.size();
    const auto rowOf = [&](const QString &name) -> ComparedParameter & {
        for (ComparedParameter &row : rows) {
            if (row.name == name)
                return row;
        }
        rows << ComparedParameter{name, QList<std::optional<QString>>(runs)};
        return rows.last();
    };
    for (qsizetype i = 0; i < comparison.diffs.size(); ++i) {
        for (const run::RunDiff::Parameter &p : comparison.diffs.at(i).parameters) {
            ComparedParameter &row = rowOf(p.name);
            row.values[0] = p.a;
            row.values[i + 1] = p.b;
        }
    }
    return rows;
}

namespace {

Expected<Comparison> compareRuns(const run::RunStore &store, const QString &objectsDir, const QStringList &runIds)
{
    Comparison c;
    for (const QString &id : runIds) {
        auto record = store.run(id);
        if (!record)
            return Error{u"run %1 is not in this workspace's run store"_s.arg(id), {}, 0, 0, {}};
        c.runs << *record;
    }
    QList<run::NamedRun> named;
    for (const run::RunRecord &record : std::as_const(c.runs))
        named << run::NamedRun{record.id, record.name, run::runParameters(record, store.params(record.id))};
    const QHash<QString, QString> names = run::distinguishingNames(named);
    for (const run::RunRecord &record : std::as_const(c.runs))
        c.names << names.value(record.id);
    for (qsizetype i = 1; i < c.runs.size(); ++i) {
        auto diff = run::diffRuns(store, objectsDir, c.runs.first(), c.runs.at(i));
        if (!diff)
            return diff.error();
        c.diffs << *diff;
        c.environments << environmentChanges(c.runs.first(), c.runs.at(i));
    }
    c.chart = std::make_shared<SeriesStore>();
    for (const run::RunRecord &record : std::as_const(c.runs)) {
        for (const QString &metric : store.metricNames(record.id)) {
            if (metric.startsWith(u"system/"_s)) // the machine's samples: by wall time, not steps
                continue;
            std::vector<run::SeriesPoint> points = store.series(record.id, metric);
            run::orderByStep(points);
            c.chart->append(c.chart->series(record.id, metric), points);
            c.points.emplace(Comparison::seriesKey(record.id, metric), std::move(points));
            c.metrics << metric;
        }
    }
    c.metrics.removeDuplicates();
    c.metrics.sort();
    return c;
}

} // namespace

Expected<Comparison> loadComparison(const run::RunStore &store, const QString &objectsDir, const QStringList &runIds)
{
    // Runs from elsewhere may ask for more memory than there is (review M4): said, never an
    // exception that QtConcurrent would rethrow on the GUI thread.
    try {
        return compareRuns(store, objectsDir, runIds);
    } catch (const std::bad_alloc &) {
        return run::notEnoughMemoryToCompare(runIds);
    }
}

} // namespace ferry::ui
