// RunStore's metric reads: series blocks (store/seriesblock.h) decoded straight into points.
#include "store/runstore.h"

#include "store/runstoreschema.h"
#include "store/seriesblock.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariant>

#include <algorithm>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

using runstoreschema::select;

double nullableDouble(const QVariant &v)
{
    return v.isNull() ? std::numeric_limits<double>::quiet_NaN() : v.toDouble();
}

// Appends head[skip..] to out: points or columns.
void appendTail(std::vector<SeriesPoint> &out, const std::vector<SeriesPoint> &head, size_t skip)
{
    out.insert(out.end(), head.begin() + static_cast<qsizetype>(skip), head.end());
}

void appendTail(SeriesColumns &out, const SeriesColumns &head, size_t skip)
{
    out.append(head, skip);
}

qsizetype sizeOf(const std::vector<SeriesPoint> &points)
{
    return static_cast<qsizetype>(points.size());
}

qsizetype sizeOf(const SeriesColumns &columns)
{
    return columns.size();
}

// Appends the points of series `id` from index `from` on, decoding only the blocks that hold them.
// A block that does not decode is said and skipped.
template <typename Out> void readSeries(const QString &connection, qint64 id, qint64 from, Out &out)
{
    QSqlQuery q = select(connection,
                         u"SELECT first, data FROM blocks WHERE series = ? AND first >= "
                         "(SELECT coalesce(max(first), 0) FROM blocks WHERE series = ? AND first <= ?) "
                         "ORDER BY first"_s,
                         {id, id, from});
    Out head;
    while (q.next()) {
        const qint64 first = q.value(0).toLongLong();
        const QByteArray data = q.value(1).toByteArray();
        const bool partly = first < from;
        Out &into = partly ? head : out;
        if (const auto decoded = seriesblock::decode(data, into); !decoded) {
            qWarning("run store: series %lld, points from %lld: %s", id, first, qPrintable(decoded.error().message));
            continue;
        }
        if (partly) {
            appendTail(out, head, static_cast<size_t>(std::min<qint64>(from - first, sizeOf(head))));
            head = Out();
        }
    }
}

// Points of one series by step (no step first, as SQL sorts NULL), equal steps in arrival order.
bool stepBefore(const SeriesPoint &a, const SeriesPoint &b)
{
    if (std::isnan(a.step))
        return !std::isnan(b.step);
    return !std::isnan(b.step) && a.step < b.step;
}

} // namespace

void orderByStep(std::vector<SeriesPoint> &points)
{
    if (!std::is_sorted(points.begin(), points.end(), stepBefore))
        std::stable_sort(points.begin(), points.end(), stepBefore);
}

std::vector<SeriesPoint> RunStore::series(const QString &runId, const QString &name) const
{
    const QString connection = readConnection();
    std::vector<SeriesPoint> points;
    if (connection.isEmpty())
        return points;
    QSqlDatabase db = QSqlDatabase::database(connection, false);
    db.transaction(); // the count and the blocks from one snapshot
    QSqlQuery q = select(connection, u"SELECT id, points FROM series WHERE run = ? AND name = ?"_s, {runId, name});
    if (q.next()) {
        const qint64 id = q.value(0).toLongLong();
        points.reserve(static_cast<size_t>(q.value(1).toLongLong()));
        q.finish();
        readSeries(connection, id, 0, points);
    }
    q.finish();
    db.commit();
    return points;
}

QList<MetricPoint> RunStore::metrics(const QString &runId, const QString &name) const
{
    const QStringList names = name.isEmpty() ? metricNames(runId) : QStringList{name};
    QList<MetricPoint> result;
    for (const QString &n : names) {
        std::vector<SeriesPoint> points = series(runId, n);
        orderByStep(points);
        result.reserve(result.size() + static_cast<qsizetype>(points.size()));
        for (const SeriesPoint &p : points)
            result.append(MetricPoint{n, p.step, p.value, p.wallMs, p.epoch});
    }
    return result;
}

QList<RunStore::SeriesUpdate> RunStore::metricsSince(const QString &runId, MetricCursor &cursor) const
{
    const QString connection = readConnection();
    QList<SeriesUpdate> updates;
    if (connection.isEmpty())
        return updates;
    QSqlDatabase db = QSqlDatabase::database(connection, false);
    db.transaction(); // every series from one snapshot
    QSqlQuery q = select(connection, u"SELECT id, name, points FROM series WHERE run = ? ORDER BY name"_s, {runId});
    QHash<qint64, qint64> seen;
    struct Pending {
        qint64 id, from, to;
        QString name;
    };
    QList<Pending> pending;
    while (q.next()) {
        const qint64 id = q.value(0).toLongLong(), points = q.value(2).toLongLong();
        const qint64 from = cursor.read.value(id, 0);
        seen.insert(id, points);
        if (points > from)
            pending.append(Pending{id, from, points, q.value(1).toString()});
    }
    q.finish();
    for (const Pending &p : pending) {
        SeriesUpdate update{p.name, {}};
        for (auto *column : {&update.columns.steps, &update.columns.wallMs, &update.columns.values})
            column->reserve(static_cast<size_t>(p.to - p.from));
        readSeries(connection, p.id, p.from, update.columns);
        if (update.columns.size() > 0)
            updates.append(std::move(update));
    }
    db.commit();
    cursor.read = std::move(seen); // series no longer there are forgotten
    return updates;
}

QStringList RunStore::metricNames(const QString &runId) const
{
    QStringList result;
    QSqlQuery q =
        select(readConnection(), u"SELECT name FROM series WHERE run = ? AND points > 0 ORDER BY name"_s, {runId});
    while (q.next())
        result.append(q.value(0).toString());
    return result;
}

qsizetype RunStore::metricCount(const QString &runId, const QString &name) const
{
    QSqlQuery q = select(readConnection(), u"SELECT points FROM series WHERE run = ? AND name = ?"_s, {runId, name});
    return q.next() ? q.value(0).toLongLong() : 0;
}

QMap<QString, double> RunStore::lastValues(const QString &runId) const
{
    QMap<QString, double> result;
    QSqlQuery q =
        select(readConnection(), u"SELECT name, last_value FROM series WHERE run = ? AND points > 0"_s, {runId});
    while (q.next())
        result.insert(q.value(0).toString(), nullableDouble(q.value(1)));
    return result;
}

} // namespace ferry::run

namespace ferry::run {

RunStore::Check RunStore::check() const
{
    Check c;
    const QString connection = readConnection();
    if (connection.isEmpty()) {
        c.problems << u"the run store is closed"_s;
        return c;
    }
    QSqlDatabase db = QSqlDatabase::database(connection, false);
    db.transaction(); // one snapshot, however long the check takes
    QSqlQuery integrity = select(connection, u"PRAGMA integrity_check"_s, {});
    while (integrity.next()) {
        if (const QString line = integrity.value(0).toString(); line != "ok"_L1)
            c.problems << u"SQLite integrity_check: "_s + line;
    }
    integrity.finish();
    const auto count = [&](const QString &sql) {
        QSqlQuery q = select(connection, sql, {});
        return q.next() ? q.value(0).toLongLong() : 0;
    };
    c.runs = count(u"SELECT count(*) FROM runs"_s);
    if (const qint64 orphans = count(u"SELECT count(*) FROM blocks WHERE series NOT IN (SELECT id FROM series)"_s))
        c.problems << u"%1 blocks belong to no series"_s.arg(orphans);
    if (const qint64 orphans = count(u"SELECT count(*) FROM series WHERE run NOT IN (SELECT id FROM runs)"_s))
        c.problems << u"%1 series belong to no run"_s.arg(orphans);
    QSqlQuery all = select(connection, u"SELECT id, run, name, points FROM series ORDER BY run, name"_s, {});
    std::vector<SeriesPoint> scratch;
    while (all.next()) {
        ++c.series;
        const qint64 id = all.value(0).toLongLong(), points = all.value(3).toLongLong();
        const QString where = u"run %1, metric %2"_s.arg(all.value(1).toString(), all.value(2).toString());
        QSqlQuery blocks =
            select(connection, u"SELECT first, count, data FROM blocks WHERE series = ? ORDER BY first"_s, {id});
        qint64 next = 0;
        while (blocks.next()) {
            ++c.blocks;
            const qint64 first = blocks.value(0).toLongLong(), n = blocks.value(1).toLongLong();
            const QByteArray data = blocks.value(2).toByteArray();
            c.bytes += data.size();
            if (first != next)
                c.problems << u"%1: the block at point %2 should start at %3"_s.arg(where).arg(first).arg(next);
            scratch.clear();
            if (const auto decoded = seriesblock::decode(data, scratch); !decoded)
                c.problems << u"%1: the block at point %2: %3"_s.arg(where).arg(first).arg(decoded.error().message);
            else if (static_cast<qint64>(scratch.size()) != n)
                c.problems << u"%1: the block at point %2 holds %3 points, its row says %4"_s.arg(where)
                                  .arg(first)
                                  .arg(scratch.size())
                                  .arg(n);
            next = first + n;
        }
        if (next != points)
            c.problems << u"%1: its blocks hold %2 points, the series says %3"_s.arg(where).arg(next).arg(points);
        c.points += next;
    }
    all.finish();
    db.commit();
    return c;
}

} // namespace ferry::run
