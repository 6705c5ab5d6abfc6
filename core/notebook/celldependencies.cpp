#include "notebook/celldependencies.h"

#include <QSet>

#include <algorithm>

namespace ferry::notebook {

void CellDependencies::started(const QString &cellId, const QString &source)
{
    m_runs.insert(cellId, {++m_order, source});
}

void CellDependencies::setNames(const QString &source, const CellNames &names)
{
    m_names.insert(source, names);
}

QStringList CellDependencies::sourcesWithoutNames() const
{
    QList<Run> runs = m_runs.values();
    std::sort(runs.begin(), runs.end(), [](const Run &a, const Run &b) { return a.order < b.order; });
    QStringList sources;
    for (const Run &run : std::as_const(runs)) {
        if (!m_names.contains(run.source) && !sources.contains(run.source))
            sources << run.source;
    }
    return sources;
}

void CellDependencies::clear()
{
    m_runs.clear();
    // The names of a source do not change with the kernel: kept.
}

const CellNames *CellDependencies::names(const QString &cellId) const
{
    const auto run = m_runs.constFind(cellId);
    if (run == m_runs.cend())
        return nullptr;
    const auto names = m_names.constFind(run->source);
    return names == m_names.cend() ? nullptr : &*names;
}

QHash<QString, QStringList> CellDependencies::stale(const QStringList &cellIds) const
{
    QHash<QString, QStringList> result;
    for (const QString &y : cellIds) {
        const CellNames *reader = names(y);
        if (!reader)
            continue;
        const int ranAt = m_runs.value(y).order;
        QSet<QString> changed;
        for (auto x = m_runs.cbegin(); x != m_runs.cend(); ++x) {
            if (x.key() == y || x->order <= ranAt)
                continue;
            if (const CellNames *writer = names(x.key()))
                changed.unite(QSet<QString>(writer->defines.cbegin(), writer->defines.cend()));
        }
        QStringList stale;
        for (const QString &name : reader->reads) {
            if (changed.contains(name))
                stale << name;
        }
        if (!stale.isEmpty())
            result.insert(y, stale);
    }
    return result;
}

QStringList CellDependencies::toRun(const QStringList &cellIds) const
{
    QSet<QString> chosen;
    const auto staleNow = stale(cellIds);
    for (auto it = staleNow.cbegin(); it != staleNow.cend(); ++it)
        chosen.insert(it.key());
    QSet<QString> bound; // what the chosen cells bind
    bool grew = !chosen.isEmpty();
    while (grew) {
        grew = false;
        for (const QString &id : chosen) {
            if (const CellNames *n = names(id))
                bound.unite(QSet<QString>(n->defines.cbegin(), n->defines.cend()));
        }
        for (const QString &id : cellIds) {
            const CellNames *n = names(id);
            if (chosen.contains(id) || !n)
                continue;
            for (const QString &name : n->reads) {
                if (bound.contains(name)) {
                    chosen.insert(id);
                    grew = true;
                    break;
                }
            }
        }
    }
    QStringList ordered;
    for (const QString &id : cellIds) {
        if (chosen.contains(id))
            ordered << id;
    }
    return ordered;
}

} // namespace ferry::notebook
