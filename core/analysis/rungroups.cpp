// Runs grouped by a parameter, tags, sweep or experiment, and each group's statistics of a metric.
#include "analysis/rungroups.h"

#include "tracking/runquery.h"

#include <QHash>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

Expected<GroupBy> GroupBy::parse(const QString &text)
{
    const QString t = text.trimmed();
    if (t.startsWith("hp."_L1) && t.size() > 3)
        return GroupBy{Kind::Param, t.mid(3)};
    if (t == "tag"_L1 || t == "tags"_L1)
        return GroupBy{Kind::Tags, {}};
    if (t.startsWith("tag:"_L1) && t.size() > 4)
        return GroupBy{Kind::Tags, t.mid(4)};
    if (t == "sweep"_L1)
        return GroupBy{Kind::Sweep, {}};
    if (t == "experiment"_L1)
        return GroupBy{Kind::Experiment, {}};
    return Error{u"cannot group by '%1'"_s.arg(text),
                 {},
                 0,
                 0,
                 u"group by hp.NAME (a parameter), tag, tag:PREFIX (the tags starting with PREFIX), sweep or "
                 "experiment"_s};
}

QString GroupBy::text() const
{
    switch (kind) {
    case Kind::Param:
        return u"hp."_s + name;
    case Kind::Tags:
        return name.isEmpty() ? u"tag"_s : u"tag:"_s + name;
    case Kind::Sweep:
        return u"sweep"_s;
    case Kind::Experiment:
        break;
    }
    return u"experiment"_s;
}

namespace {

QString groupKey(const RunRecord &r, const GroupBy &by, const QHash<QString, QString> &params)
{
    switch (by.kind) {
    case GroupBy::Kind::Param:
        return params.value(r.id);
    case GroupBy::Kind::Tags: {
        QStringList tags;
        for (const QString &tag : r.tags) {
            if (tag.startsWith(by.name))
                tags << tag;
        }
        return tags.join(u' '); // sorted already (RunRecord::tags)
    }
    case GroupBy::Kind::Sweep:
        return r.spec[u"sweep"_s][u"id"_s].toString();
    case GroupBy::Kind::Experiment:
        break;
    }
    return r.experiment;
}

QString groupLabel(const QString &key, const GroupBy &by)
{
    const bool none = key.isEmpty();
    switch (by.kind) {
    case GroupBy::Kind::Param:
        return none ? QString(u"no "_s + by.name) : QString(by.name + u'=' + key);
    case GroupBy::Kind::Tags:
        return none ? (by.name.isEmpty() ? u"no tags"_s : u"no %1 tag"_s.arg(by.name)) : QString(u"tags: "_s + key);
    case GroupBy::Kind::Sweep:
        return none ? u"no sweep"_s : QString(u"sweep "_s + key);
    case GroupBy::Kind::Experiment:
        break;
    }
    return none ? u"no experiment"_s : QString(u"experiment "_s + key);
}

// Numbers as numbers when every key is one, else text; the empty key (none) last.
void sortGroups(QList<RunGroup> &groups)
{
    const bool numeric = std::all_of(groups.cbegin(), groups.cend(), [](const RunGroup &g) {
        return g.key.isEmpty() || query::numberOf(g.key).has_value();
    });
    std::stable_sort(groups.begin(), groups.end(), [numeric](const RunGroup &a, const RunGroup &b) {
        if (a.key.isEmpty() || b.key.isEmpty())
            return !a.key.isEmpty() && b.key.isEmpty();
        if (numeric) {
            const double x = *query::numberOf(a.key), y = *query::numberOf(b.key);
            if (x != y)
                return x < y;
        }
        return a.key < b.key;
    });
}

} // namespace

QList<RunGroup> groupRuns(const RunStore &store, const QList<RunRecord> &runs, const GroupBy &by)
{
    return groupRuns(runs, by,
                     by.kind == GroupBy::Kind::Param ? store.paramOfRuns(by.name) : QHash<QString, QString>{});
}

QList<RunGroup> groupRuns(const QList<RunRecord> &runs, const GroupBy &by, const QHash<QString, QString> &params)
{
    QList<RunGroup> groups;
    QHash<QString, qsizetype> index; // key -> its group
    for (const RunRecord &r : runs) {
        const QString key = groupKey(r, by, params);
        auto it = index.constFind(key);
        if (it == index.cend()) {
            it = index.insert(key, groups.size());
            groups.append(RunGroup{key, groupLabel(key, by), {}});
        }
        groups[*it].runIds << r.id;
    }
    sortGroups(groups);
    return groups;
}

Curve runCurve(const RunStore &store, const RunRecord &run, const QString &metric, const XAxis &axis)
{
    if (axis.kind == XAxis::Kind::Step)
        return stepCurve(store.series(run.id, metric));
    return curveOf(metricAgainst(store, run, metric, axis));
}

void aggregateGroups(const RunStore &store, const QList<RunRecord> &runs, const QList<RunGroup> &groups,
                     const QString &metric, const XAxis &axis, const std::function<void(GroupAggregate &&)> &take)
{
    QHash<QString, const RunRecord *> byId;
    for (const RunRecord &r : runs)
        byId.insert(r.id, &r);
    for (const RunGroup &group : groups) {
        GroupAggregate g{group, {}, {}};
        std::vector<Curve> curves;
        for (const QString &id : group.runIds) {
            const RunRecord *record = byId.value(id);
            Curve c = record ? runCurve(store, *record, metric, axis) : Curve{};
            if (c.size() == 0)
                g.runsWithoutMetric << id;
            else
                curves.push_back(std::move(c));
        }
        std::vector<CurveView> views;
        views.reserve(curves.size());
        for (const Curve &c : curves)
            views.push_back(c.view());
        g.points = aggregate(views);
        take(std::move(g));
    }
}

QList<GroupAggregate> aggregateGroups(const RunStore &store, const QList<RunRecord> &runs,
                                      const QList<RunGroup> &groups, const QString &metric, const XAxis &axis)
{
    QList<GroupAggregate> result;
    aggregateGroups(store, runs, groups, metric, axis, [&](GroupAggregate &&g) { result.append(std::move(g)); });
    return result;
}

} // namespace ferry::run
