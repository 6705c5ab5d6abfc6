#include "ui/runs/runsmodel.h"

#include "tracking/runlabels.h"

#include <QSet>

#include <QtConcurrent/QtConcurrentRun>
#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

using run::RunRecord;

RunsLoader::RunsLoader(QObject *parent) : QObject(parent)
{
    connect(&m_timer, &QTimer::timeout, this, &RunsLoader::reload);
    connect(&m_watcher, &QFutureWatcher<Result>::finished, this, &RunsLoader::finished);
}

RunsLoader::~RunsLoader()
{
    m_watcher.waitForFinished();
}

void RunsLoader::setStore(run::RunStore *store)
{
    m_watcher.waitForFinished();
    m_store = store;
    m_cache.clear();
    reload();
}

void RunsLoader::start(int intervalMs)
{
    m_timer.start(intervalMs);
    reload();
}

void RunsLoader::stop()
{
    m_timer.stop();
}

void RunsLoader::reload()
{
    if (m_watcher.isRunning()) {
        m_again = true;
        return;
    }
    m_again = false;
    run::RunStore *store = m_store;
    MetricCache cache = m_cache;
    m_watcher.setFuture(QtConcurrent::run([store, cache, query = m_query]() mutable {
        Result result;
        if (store)
            result.rows = load(*store, cache, query);
        result.cache = std::move(cache);
        return result;
    }));
}

void RunsLoader::finished()
{
    Result result = m_watcher.result();
    m_cache = std::move(result.cache);
    Q_EMIT loaded(result.rows);
    if (m_again)
        reload();
}

void RunsLoader::setQuery(const run::RunQuery &query)
{
    m_query = query;
    reload();
}

QList<RunRow> RunsLoader::load(const run::RunStore &store, MetricCache &cache, const run::RunQuery &query)
{
    QList<RunRow> rows;
    MetricCache kept;
    const QList<RunRecord> records = store.runs();
    // The parameters of the runs not cached: one read of every run's when there are many (a
    // workspace opened), one read per run when they are the few still going.
    constexpr qsizetype kReadParamsOneByOne = 32;
    const qsizetype uncached = std::count_if(records.cbegin(), records.cend(), [&](const RunRecord &r) {
        return !run::isFinished(r.status) || !cache.contains(r.id);
    });
    const QHash<QString, QList<run::Hyperparameter>> allParams =
        uncached > kReadParamsOneByOne ? store.paramsOfRuns() : QHash<QString, QList<run::Hyperparameter>>();
    QList<run::NamedRun> named;
    for (const RunRecord &record : records) {
        RunRow row{record, {}};
        const bool finishedRun = run::isFinished(record.status);
        if (const auto it = cache.constFind(record.id); finishedRun && it != cache.cend()) {
            row.lastMetrics = it->lastMetrics;
            row.params = it->params;
        } else {
            row.lastMetrics = store.lastValues(record.id);
            row.params = run::runParameters(record, uncached > kReadParamsOneByOne ? allParams.value(record.id)
                                                                                   : store.params(record.id));
        }
        // A finished run's metrics no longer change, once it has some: one without any yet may
        // still get them (`ferry runs attach`, an import, a store written while this read it).
        if (finishedRun && !row.lastMetrics.isEmpty())
            kept.insert(record.id, CachedRun{row.lastMetrics, row.params});
        named << run::NamedRun{record.id, record.name, row.params};
        rows.append(std::move(row));
    }
    cache = std::move(kept);
    const QHash<QString, QString> names = run::distinguishingNames(named);
    for (RunRow &row : rows)
        row.displayName = names.value(row.record.id);
    if (!query.isEmpty()) {
        QSet<QString> selected;
        for (const RunRecord &record : query.filter(store, records))
            selected.insert(record.id);
        for (RunRow &row : rows)
            row.matches = selected.contains(row.record.id);
    }
    return rows;
}

} // namespace ferry::ui
