// SeriesWriter: appends metric points to the store's series blocks inside the caller's transaction.
#pragma once

#include "common/error.h"
#include "metrics/metricparser.h"
#include "store/seriesblock.h"

#include <QHashFunctions>
#include <QList>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <span>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ferry::run {

// Writes metric points into the store's series blocks (store/seriesblock.h): a series (one
// metric of one run) is a row of `series` and blocks of as many points as fill a database page,
// the last of which, the open block, is rewritten as points arrive. Everything happens inside the
// caller's transaction, so the points commit with the log offset or file position they came
// with. The open blocks of the series written lately are kept decoded in memory; flush() writes
// them before the caller commits. Used by RunStore's writer thread and by the migration of an
// older store; one connection, one thread.
class SeriesWriter {
public:
    explicit SeriesWriter(const QSqlDatabase &db);
    Expected<void> prepare(); // once the schema has the series tables

    // Appends in arrival order; each point to its metric's series (made when new).
    Expected<void> append(const QString &runId, const QList<MetricPoint> &points);
    Expected<void> append(const QString &runId, const QString &name, std::span<const SeriesPoint> points);
    // Removes a series or all of a run's, blocks and all.
    Expected<void> dropSeries(const QString &runId, const QString &name);
    Expected<void> dropRun(const QString &runId);
    // Writes the open blocks and the counts of the series appended to since the last flush.
    Expected<void> flush();
    // Forgets what is kept in memory: after a rollback, or when another connection has written.
    void forget();
    // After a commit: keeps memory bounded when many series were written.
    void trim();

private:
    struct Series {
        qint64 id = 0;
        qint64 points = 0;    // in the series, the open block's included
        qint64 openFirst = 0; // the open block's first point
        std::vector<SeriesPoint> open;
        qsizetype target = seriesblock::kBlockPoints; // the open block's point count when it is next tried for sealing
        bool dirty = false;
        double lastStep = 0;
        double lastValue = 0;
    };
    Expected<Series *> series(const QString &runId, const QString &name);
    Expected<void> push(Series &s, const SeriesPoint &point);
    Expected<void> sealIfFull(Series &s);
    Expected<void> writeBlock(const Series &s, qsizetype count, const QByteArray &data);

    QSqlDatabase m_db;
    qsizetype m_pageBytes = 4096;
    QSqlQuery m_find, m_insert, m_lastBlock, m_putBlock, m_update, m_dropBlocks, m_drop, m_dropRunBlocks, m_dropRun;
    struct Key {
        QString run, name;
        bool operator==(const Key &) const = default;
    };
    struct KeyHash {
        size_t operator()(const Key &k) const { return qHashMulti(0, k.run, k.name); }
    };
    std::unordered_map<Key, Series, KeyHash> m_series; // node-based: a Series stays where it is
};

} // namespace ferry::run
