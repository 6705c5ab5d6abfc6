#include "ui/session/chartfeeder.h"

#include "store/runstore.h"
#include "training/training.h"
#include "ui/chart/losschart.h"
#include "ui/chart/seriesstore.h"

#include <QHash>
#include <QThread>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentMap>

#include <algorithm>
#include <atomic>
#include <numeric>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::ui {

// Lives on the feeder's thread: all store reads, all cursors.
class ChartFeeder::Worker : public QObject {
    Q_OBJECT
public:
    std::atomic<int> generation{0};

    void load(int gen, run::RunStore *store, std::shared_ptr<SeriesStore> series, const QStringList &runs)
    {
        if (gen != generation.load())
            return;
        m_store = store;
        m_series = std::move(series);
        m_cursors.clear();
        // The runs are read and made into chart series on every core (the store reads on each
        // thread's own connection); they are handed to the chart in the selection's order.
        struct Loaded {
            run::RunStore::MetricCursor cursor;
            std::vector<std::unique_ptr<SeriesData>> series;
        };
        std::vector<Loaded> done(static_cast<std::size_t>(runs.size()));
        std::vector<qsizetype> order(done.size());
        std::iota(order.begin(), order.end(), 0);
        QtConcurrent::blockingMap(&m_pool, order, [&](qsizetype i) {
            if (gen != generation.load())
                return; // a newer selection came: this one is abandoned
            Loaded &l = done[static_cast<std::size_t>(i)];
            for (run::RunStore::SeriesUpdate &update : store->metricsSince(runs[i], l.cursor)) {
                auto data = std::make_unique<SeriesData>(SeriesKey{runs[i], update.name});
                data->append(std::move(update.columns));
                data->prepare();
                l.series.push_back(std::move(data));
            }
        });
        if (gen != generation.load())
            return;
        for (qsizetype i = 0; i < runs.size(); ++i) {
            Loaded &l = done[static_cast<std::size_t>(i)];
            for (std::unique_ptr<SeriesData> &data : l.series) {
                const int id = m_series->series(runs[i], data->key().metric);
                m_series->append(id, std::move(data));
            }
            m_cursors.emplace(runs[i], std::move(l.cursor));
        }
        Q_EMIT loaded(gen, runs);
    }

    void update(int gen, const QStringList &runs)
    {
        if (gen != generation.load() || !m_store)
            return;
        for (const QString &id : runs) {
            auto it = m_cursors.find(id);
            if (it == m_cursors.end())
                continue;
            append(id, m_store->metricsSince(id, it.value()));
        }
    }

Q_SIGNALS:
    void loaded(int generation, const QStringList &runs);

private:
    void append(const QString &runId, QList<run::RunStore::SeriesUpdate> updates)
    {
        for (run::RunStore::SeriesUpdate &update : updates)
            m_series->append(m_series->series(runId, update.name), std::move(update.columns));
    }

    QThreadPool m_pool; // the first load's readers
    run::RunStore *m_store = nullptr;
    std::shared_ptr<SeriesStore> m_series;
    QHash<QString, run::RunStore::MetricCursor> m_cursors;
};

ChartFeeder::ChartFeeder(LossChart *chart, QObject *parent)
    : QObject(parent), m_chart(chart), m_thread(new QThread(this)), m_worker(new Worker)
{
    m_worker->moveToThread(m_thread);
    connect(m_thread, &QThread::finished, m_worker, &QObject::deleteLater);
    connect(m_worker, &Worker::loaded, this, [this](int generation, const QStringList &runs) {
        if (generation == m_generation)
            Q_EMIT loaded(runs);
    });
    m_thread->setObjectName(u"chart feeder"_s);
    m_thread->start();
}

ChartFeeder::~ChartFeeder()
{
    m_worker->generation = -1;
    m_thread->quit();
    m_thread->wait();
}

void ChartFeeder::setStore(run::RunStore *store)
{
    setRuns({}, {}); // a new generation: a read under way stops at its next run
    // Wait until the worker has let go of the old store (it may be closed next).
    QMetaObject::invokeMethod(
        m_worker, [] {}, Qt::BlockingQueuedConnection);
    m_store = store;
}

void ChartFeeder::setRuns(const QStringList &runIds, const QHash<QString, QString> &labels)
{
    m_runs = runIds;
    const int generation = ++m_generation;
    m_worker->generation = generation;
    // A fresh series store per selection: runs no longer selected simply are not in it.
    m_series = std::make_shared<SeriesStore>();
    for (auto it = labels.begin(); it != labels.end(); ++it)
        m_chart->setRunLabel(it.key(), it.value());
    m_chart->setStore(m_series);
    if (!m_store || runIds.isEmpty())
        return;
    QMetaObject::invokeMethod(m_worker, [worker = m_worker, generation, store = m_store, series = m_series, runIds] {
        worker->load(generation, store, series, runIds);
    });
}

void ChartFeeder::reloadRuns(const QStringList &runIds)
{
    const bool shown =
        std::any_of(runIds.begin(), runIds.end(), [this](const QString &id) { return m_runs.contains(id); });
    if (shown)
        setRuns(m_runs, {}); // read again from the start: the labels stay the chart's
}

void ChartFeeder::runsChanged(const QStringList &runIds)
{
    QStringList shown;
    for (const QString &id : runIds) {
        if (m_runs.contains(id))
            shown << id;
    }
    if (shown.isEmpty())
        return;
    QMetaObject::invokeMethod(
        m_worker, [worker = m_worker, generation = m_generation, shown] { worker->update(generation, shown); });
}

} // namespace ferry::ui

#include "chartfeeder.moc"
