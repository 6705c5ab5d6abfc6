// A run query evaluated over the store: which runs match (tracking/runquery.h).
#include "tracking/rundiff.h"
#include "tracking/runquery.h"
#include "tracking/runquerynode.h"

#include <QHash>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;
using namespace ferry::run::query;

namespace ferry::run {

namespace {

using Node = RunQuery::Node;

template <typename T> bool ordered(Op op, const T &a, const T &b)
{
    switch (op) {
    case Op::Eq:
        return a == b;
    case Op::Ne:
        return a != b;
    case Op::Lt:
        return a < b;
    case Op::Le:
        return a <= b;
    case Op::Gt:
        return a > b;
    case Op::Ge:
        return a >= b;
    case Op::Contains:
        break;
    }
    return false;
}

// A field that is text: `~` contains (ignoring case), the others compare as text.
bool compareText(const Node &n, const QString &text)
{
    if (n.op == Op::Contains)
        return text.contains(n.value, Qt::CaseInsensitive);
    return ordered(n.op, QString::compare(text, n.value), 0);
}

// A field with several values (a run's tags, a status and its label): = and ~ hold when one
// value does, != when none is equal.
bool compareAny(const Node &n, const QStringList &values)
{
    if (n.op == Op::Ne)
        return !values.contains(n.value);
    return std::any_of(values.cbegin(), values.cend(), [&](const QString &v) { return compareText(n, v); });
}

// What a query reads of the store, each read once: a parameter or a metric's last value of every
// run, a series' best, min and max of one run.
class Facts {
public:
    explicit Facts(const RunStore &store) : m_store(store) {}

    std::optional<QString> param(const QString &runId, const QString &name)
    {
        auto it = m_params.find(name);
        if (it == m_params.end())
            it = m_params.insert(name, m_store.paramOfRuns(name));
        if (const auto value = it->constFind(runId); value != it->cend())
            return *value;
        return std::nullopt;
    }

    std::optional<double> metric(const QString &runId, const QString &name, Aggregate aggregate)
    {
        double value = std::nan("");
        if (aggregate == Aggregate::Last) {
            auto it = m_last.find(name);
            if (it == m_last.end())
                it = m_last.insert(name, m_store.lastValueOfRuns(name));
            value = it->value(runId, std::nan(""));
        } else {
            const auto [min, max] = range(runId, name);
            const bool higher = aggregate == Aggregate::Max || (aggregate == Aggregate::Best && higherIsBetter(name));
            value = higher ? max : min;
        }
        return std::isnan(value) ? std::nullopt : std::optional<double>(value);
    }

private:
    // The least and the greatest finite value of one series (bestOf; NaN, NaN: none).
    std::pair<double, double> range(const QString &runId, const QString &name)
    {
        const QString key = runId + u'\n' + name;
        if (const auto it = m_ranges.constFind(key); it != m_ranges.cend())
            return *it;
        const std::vector<SeriesPoint> points = m_store.series(runId, name);
        const std::pair<double, double> r{bestOf(points, false).value_or(std::nan("")),
                                          bestOf(points, true).value_or(std::nan(""))};
        m_ranges.insert(key, r);
        return r;
    }

    const RunStore &m_store;
    QHash<QString, QHash<QString, QString>> m_params; // name -> run -> value
    QHash<QString, QHash<QString, double>> m_last;    // name -> run -> last value
    QHash<QString, std::pair<double, double>> m_ranges;
};

std::optional<QString> textOf(const RunRecord &r, Field field)
{
    QString text;
    switch (field) {
    case Field::Target:
        text = r.target;
        break;
    case Field::Id:
        text = r.id;
        break;
    case Field::Name:
        text = r.name;
        break;
    case Field::Script:
        text = r.spec[u"script"_s].toString();
        break;
    case Field::Sweep:
        text = r.spec[u"sweep"_s][u"id"_s].toString();
        break;
    case Field::Experiment:
        text = r.experiment;
        break;
    default: // Note
        text = r.note;
        break;
    }
    return text.isEmpty() ? std::nullopt : std::optional<QString>(text);
}

bool compare(const Node &n, const RunRecord &r, Facts &facts)
{
    switch (n.field) {
    case Field::Param: {
        const auto value = facts.param(r.id, n.name);
        if (!value)
            return false;
        if (const auto number = numberOf(*value); number && n.number && n.op != Op::Contains)
            return ordered(n.op, *number, *n.number);
        return compareText(n, *value);
    }
    case Field::Metric: {
        const auto value = facts.metric(r.id, n.name, n.aggregate);
        return value && ordered(n.op, *value, *n.number);
    }
    case Field::Tag:
        return compareAny(n, r.tags);
    case Field::Status:
        return compareAny(n, {runStatusText(r.status), runStatusLabel(r)});
    case Field::Created:
    case Field::Started: {
        const qint64 ms = n.field == Field::Created ? r.createdMs : r.startedMs;
        return ms > 0 && ordered(n.op, ms, n.timeMs);
    }
    default: {
        const auto text = textOf(r, n.field);
        return text && compareText(n, *text);
    }
    }
}

bool evaluate(const Node &n, const RunRecord &r, Facts &facts)
{
    switch (n.kind) {
    case Node::And:
        return evaluate(*n.left, r, facts) && evaluate(*n.right, r, facts);
    case Node::Or:
        return evaluate(*n.left, r, facts) || evaluate(*n.right, r, facts);
    case Node::Not:
        return !evaluate(*n.left, r, facts);
    case Node::Compare:
        break;
    }
    return compare(n, r, facts);
}

} // namespace

QList<RunRecord> RunQuery::filter(const RunStore &store, const QList<RunRecord> &runs) const
{
    if (!m_root)
        return runs;
    Facts facts(store);
    QList<RunRecord> result;
    for (const RunRecord &r : runs) {
        if (evaluate(*m_root, r, facts))
            result.append(r);
    }
    return result;
}

} // namespace ferry::run
