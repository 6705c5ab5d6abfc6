#include "tracking/runlabels.h"

#include <QJsonArray>
#include <QSet>

#include <algorithm>
#include <array>
#include <optional>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qsizetype kShortIdLength = 8;
constexpr qsizetype kNamedCandidates = 10;

std::optional<QString> valueOf(const QList<Hyperparameter> &params, const QString &name)
{
    for (const Hyperparameter &p : params) {
        if (p.name == name)
            return p.value;
    }
    return std::nullopt;
}

QString shortValue(const QString &value)
{
    return value.size() <= kNamedValueLength ? value : value.left(kNamedValueLength - 1) + u'…';
}

} // namespace

QString shortRunId(const QString &id)
{
    const qsizetype dash = id.lastIndexOf(u'-');
    if (dash < 0)
        return id;
    const QString end = id.mid(dash + 1);
    return end.isEmpty() ? id : end.right(kShortIdLength);
}

QList<Hyperparameter> runParameters(const RunRecord &record, const QList<Hyperparameter> &stored)
{
    if (!stored.isEmpty())
        return stored;
    QList<Hyperparameter> params;
    for (const QJsonValue &v : record.spec[u"hyperparameters"_s].toArray())
        params << Hyperparameter{v[u"name"_s].toString(), v[u"value"_s].toString()};
    return params;
}

QStringList differingParameters(const QList<NamedRun> &runs)
{
    if (runs.size() < 2)
        return {};
    QStringList names;
    QSet<QString> seen;
    for (const NamedRun &run : runs) {
        for (const Hyperparameter &p : run.params) {
            if (!seen.contains(p.name)) {
                seen.insert(p.name);
                names << p.name;
            }
        }
    }
    QStringList differing;
    for (const QString &name : std::as_const(names)) {
        const std::optional<QString> first = valueOf(runs.first().params, name);
        const bool differs = std::any_of(runs.cbegin() + 1, runs.cend(),
                                         [&](const NamedRun &run) { return valueOf(run.params, name) != first; });
        if (differs)
            differing << name;
    }
    return differing;
}

QHash<QString, QString> distinguishingNames(const QList<NamedRun> &runs)
{
    QHash<QString, QList<NamedRun>> byName;
    QStringList order;
    for (const NamedRun &run : runs) {
        const QString name = run.name.isEmpty() ? run.id : run.name;
        if (!byName.contains(name))
            order << name;
        byName[name] << run;
    }
    QHash<QString, QString> names;
    for (const QString &name : std::as_const(order)) {
        const QList<NamedRun> &group = byName.value(name);
        const QStringList differing = differingParameters(group);
        for (const NamedRun &run : group) {
            QStringList words{name};
            for (qsizetype i = 0; i < differing.size(); ++i) {
                if (i == kNamedParameters) {
                    words << u"…"_s;
                    break;
                }
                if (const auto value = valueOf(run.params, differing.at(i)))
                    words << differing.at(i) + u'=' + shortValue(*value);
            }
            names.insert(run.id, words.join(u' '));
        }
    }
    return names;
}

QStringList keyMetricNames(const QStringList &names, int count)
{
    static constexpr std::array kPreferred{"val_accuracy"_L1, "accuracy"_L1, "val_loss"_L1, "loss"_L1, "train_loss"_L1};
    QStringList chosen;
    for (const QLatin1StringView preferred : kPreferred) {
        if (chosen.size() < count && names.contains(preferred))
            chosen << QString(preferred);
    }
    QStringList rest = names;
    rest.sort();
    for (const QString &name : std::as_const(rest)) {
        if (chosen.size() >= count)
            break;
        if (!chosen.contains(name) && !name.startsWith(u"system/"_s))
            chosen << name;
    }
    return chosen;
}

Expected<RunRecord> resolveRun(const QList<RunRecord> &runs, const QString &text)
{
    QList<const RunRecord *> matches;
    for (const RunRecord &record : runs) {
        if (record.id == text)
            return record;
        if (!text.isEmpty() && (record.id.startsWith(text) || record.id.endsWith(text)))
            matches << &record;
    }
    if (matches.size() == 1)
        return *matches.first();
    if (matches.isEmpty())
        return Error{u"no run '%1' in this workspace"_s.arg(text),
                     {},
                     0,
                     0,
                     u"see 'ferry runs list'; a run is named by its id, its start or its end"_s};
    QStringList ids;
    for (qsizetype i = 0; i < matches.size() && i < kNamedCandidates; ++i)
        ids << matches.at(i)->id;
    if (matches.size() > kNamedCandidates)
        ids << u"…"_s;
    return Error{u"'%1' matches %2 runs: %3"_s.arg(text).arg(matches.size()).arg(ids.join(u", "_s)),
                 {},
                 0,
                 0,
                 u"give more of the id (its start or its end)"_s};
}

} // namespace ferry::run
