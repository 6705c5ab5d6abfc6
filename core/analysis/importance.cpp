// Parameter importance: the runs' parameters as features, their correlation with a metric and a
// random forest's importance.
#include "analysis/importance.h"

#include "tracking/runquery.h"

#include <QSet>

#include <algorithm>
#include <cmath>
#include <numeric>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// One feature: its description and its value in each run (the forest's column, imputed), and
// which runs have it (its correlation's).
struct FeatureColumn {
    FeatureImportance info;
    std::vector<double> values;
    std::vector<bool> present;
};

std::optional<double> finiteNumber(const QString &text)
{
    const auto number = query::numberOf(text);
    return number && std::isfinite(*number) ? number : std::nullopt;
}

double correlationOver(const FeatureColumn &c, const std::vector<double> &metric)
{
    std::vector<double> a, b;
    for (std::size_t i = 0; i < metric.size(); ++i) {
        if (c.present[i]) {
            a.push_back(c.values[i]);
            b.push_back(metric[i]);
        }
    }
    return pearson(a, b);
}

// A parameter every run that has it gives as a number: one feature, the mean where a run lacks it.
void numberFeature(const QString &name, const QList<QHash<QString, QString>> &params, QList<FeatureColumn> &columns,
                   QStringList &notes)
{
    FeatureColumn c{{name, name, {}, 0, 0, 0},
                    std::vector<double>(std::size_t(params.size())),
                    std::vector<bool>(std::size_t(params.size()))};
    double sum = 0;
    QSet<double> distinct;
    for (qsizetype i = 0; i < params.size(); ++i) {
        const auto it = params[i].constFind(name);
        if (it == params[i].cend())
            continue;
        const double v = *finiteNumber(*it);
        c.values[std::size_t(i)] = v;
        c.present[std::size_t(i)] = true;
        sum += v;
        distinct.insert(v);
        ++c.info.runs;
    }
    if (distinct.size() < 2) {
        notes << (c.info.runs == params.size() ? u"%1: the same in every run"_s
                                               : u"%1: the same in every run that has it"_s)
                     .arg(name);
        return;
    }
    const double mean = sum / c.info.runs;
    for (std::size_t i = 0; i < c.values.size(); ++i) {
        if (!c.present[i])
            c.values[i] = mean;
    }
    columns.append(std::move(c));
}

// A text parameter: a 0/1 feature per value (one when there are two and every run has one).
void categoryFeatures(const QString &name, const QList<QHash<QString, QString>> &params, QList<FeatureColumn> &columns,
                      QStringList &notes)
{
    QSet<QString> seen;
    int having = 0;
    for (const auto &p : params) {
        if (const auto it = p.constFind(name); it != p.cend()) {
            seen.insert(*it);
            ++having;
        }
    }
    QStringList categories(seen.cbegin(), seen.cend());
    categories.sort();
    const bool missing = having < params.size();
    if (categories.size() > kMostCategories) {
        notes << u"%1: %2 different values, more than %3: left out"_s.arg(name)
                     .arg(categories.size())
                     .arg(kMostCategories);
        return;
    }
    if (categories.size() + (missing ? 1 : 0) < 2) {
        notes << u"%1: the same in every run"_s.arg(name);
        return;
    }
    if (categories.size() == 2 && !missing)
        categories.removeFirst();
    for (const QString &category : std::as_const(categories)) {
        FeatureColumn c{{name + u'=' + category, name, category, 0, 0, having},
                        std::vector<double>(std::size_t(params.size())),
                        std::vector<bool>(std::size_t(params.size()), true)};
        for (qsizetype i = 0; i < params.size(); ++i)
            c.values[std::size_t(i)] = params[i].value(name) == category && params[i].contains(name) ? 1.0 : 0.0;
        columns.append(std::move(c));
    }
}

} // namespace

Expected<ImportanceReport> parameterImportance(const QList<QHash<QString, QString>> &params,
                                               const std::vector<double> &metric, const ForestOptions &options)
{
    const qsizetype n = std::min<qsizetype>(params.size(), qsizetype(metric.size()));
    if (n < 2)
        return Error{u"parameter importance needs two runs or more with a value of the metric, not %1"_s.arg(n),
                     {},
                     0,
                     0,
                     u"choose more runs, or a metric they have"_s};
    const QList<QHash<QString, QString>> runs = params.first(n);
    const std::vector<double> target(metric.begin(), metric.begin() + n);
    QSet<QString> names;
    for (const auto &p : runs) {
        for (auto it = p.cbegin(); it != p.cend(); ++it)
            names.insert(it.key());
    }
    QStringList sorted(names.cbegin(), names.cend());
    sorted.sort();
    ImportanceReport report;
    report.runs = int(n);
    QList<FeatureColumn> columns;
    for (const QString &name : std::as_const(sorted)) {
        const bool numeric = std::all_of(runs.cbegin(), runs.cend(), [&](const QHash<QString, QString> &p) {
            const auto it = p.constFind(name);
            return it == p.cend() || finiteNumber(*it).has_value();
        });
        if (numeric)
            numberFeature(name, runs, columns, report.notes);
        else
            categoryFeatures(name, runs, columns, report.notes);
    }
    if (columns.isEmpty()) {
        report.notes << u"no parameter differs between the runs"_s;
        return report;
    }
    const auto p = columns.size();
    std::vector<double> x(std::size_t(n * p));
    for (qsizetype f = 0; f < p; ++f) {
        for (qsizetype i = 0; i < n; ++i)
            x[std::size_t(i * p + f)] = columns[f].values[std::size_t(i)];
    }
    const RandomForest forest = RandomForest::fit(x, p, target, options);
    for (qsizetype f = 0; f < p; ++f) {
        FeatureImportance info = columns[f].info;
        info.importance = forest.importance()[std::size_t(f)];
        info.correlation = correlationOver(columns[f], target);
        report.features.append(info);
    }
    std::stable_sort(report.features.begin(), report.features.end(),
                     [](const FeatureImportance &a, const FeatureImportance &b) {
                         if (a.importance != b.importance)
                             return a.importance > b.importance;
                         return a.name < b.name;
                     });
    return report;
}

Expected<ImportanceReport> parameterImportance(const RunStore &store, const QList<RunRecord> &runs,
                                               const RunValueSpec &metric, const ForestOptions &options)
{
    QList<RunRecord> ordered = runs;
    std::sort(ordered.begin(), ordered.end(), [](const RunRecord &a, const RunRecord &b) { return a.id < b.id; });
    const QHash<QString, RunValue> values = runValues(store, ordered, metric);
    QList<QHash<QString, QString>> params;
    std::vector<double> target;
    QStringList without;
    for (const RunRecord &r : std::as_const(ordered)) {
        const auto it = values.constFind(r.id);
        if (it == values.cend() || !it->number) {
            without << r.id;
            continue;
        }
        QHash<QString, QString> p;
        for (const Hyperparameter &hp : store.params(r.id))
            p.insert(hp.name, hp.value);
        params.append(p);
        target.push_back(*it->number);
    }
    auto report = parameterImportance(params, target, options);
    if (!report) {
        QString message = report.error().message;
        return Error{message.replace(u"the metric"_s, metric.text()), {}, 0, 0, report.error().hint};
    }
    if (!without.isEmpty())
        report->notes.prepend(u"%1 of %2 runs have no value of %3, left out: %4"_s.arg(without.size())
                                  .arg(ordered.size())
                                  .arg(metric.text(), without.join(u", "_s)));
    return report;
}

} // namespace ferry::run
