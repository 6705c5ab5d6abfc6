// RunStore's range reads: a step range of a series, and a chart's per-pixel summaries, decoded
// block by block without keeping the series' points.
#include "store/runstore.h"

#include "store/runstoreschema.h"
#include "store/seriesblock.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QVariant>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

using runstoreschema::select;

// Hands each block of the series whose bounds meet [lo, hi] (on the named columns: min_step and
// max_step, or min_wall and max_wall; none: every block), decoded, to `take`.
template <typename Take>
void forEachBlock(const QString &connection, const QString &runId, const QString &name, const QString &bounds,
                  double lo, double hi, Take take)
{
    QSqlDatabase db = QSqlDatabase::database(connection, false);
    db.transaction();
    QVariantList values{runId, name};
    QString where;
    if (!bounds.isEmpty()) {
        where = u" AND b.max_%1 >= ? AND b.min_%1 <= ?"_s.arg(bounds);
        values << lo << hi;
    }
    QSqlQuery q = select(connection,
                         u"SELECT b.first, b.data FROM blocks b JOIN series s ON s.id = b.series "
                         "WHERE s.run = ? AND s.name = ?%1 ORDER BY b.first"_s.arg(where),
                         values);
    std::vector<SeriesPoint> scratch;
    while (q.next()) {
        scratch.clear();
        const QByteArray data = q.value(1).toByteArray();
        if (const auto decoded = seriesblock::decode(data, scratch); !decoded) {
            qWarning("run store: %s/%s, points from %lld: %s", qPrintable(runId), qPrintable(name),
                     q.value(0).toLongLong(), qPrintable(decoded.error().message));
            continue;
        }
        take(scratch);
    }
    q.finish();
    db.commit();
}

} // namespace

std::vector<SeriesPoint> RunStore::seriesRange(const QString &runId, const QString &name, double fromStep,
                                               double toStep) const
{
    std::vector<SeriesPoint> result;
    const QString connection = readConnection();
    if (connection.isEmpty())
        return result;
    forEachBlock(connection, runId, name, u"step"_s, fromStep, toStep, [&](const std::vector<SeriesPoint> &block) {
        for (const SeriesPoint &p : block) {
            if (p.step >= fromStep && p.step <= toStep)
                result.push_back(p);
        }
    });
    return result;
}

std::vector<RunStore::ColumnSummary> RunStore::seriesSummary(const QString &runId, const QString &name, Axis axis,
                                                             double x0, double x1, int columns) const
{
    std::vector<ColumnSummary> result(static_cast<size_t>(std::max(columns, 0)));
    const QString connection = readConnection();
    if (connection.isEmpty() || columns <= 0 || !(x1 > x0))
        return result;
    const QString bounds = axis == Axis::Step ? u"step"_s : axis == Axis::WallTime ? u"wall"_s : QString();
    const double scale = columns / (x1 - x0);
    forEachBlock(connection, runId, name, bounds, x0, x1, [&](const std::vector<SeriesPoint> &block) {
        for (const SeriesPoint &p : block) {
            const double x = axis == Axis::Step       ? p.step
                             : axis == Axis::WallTime ? static_cast<double>(p.wallMs)
                                                      : p.epoch;
            if (!(x >= x0 && x < x1) || !std::isfinite(p.value))
                continue;
            ColumnSummary &c = result[std::min(static_cast<size_t>((x - x0) * scale), result.size() - 1)];
            if (c.count++ == 0) {
                c.min = c.max = c.first = c.last = p.value;
                c.firstX = c.lastX = x;
                continue;
            }
            c.min = std::min(c.min, p.value);
            c.max = std::max(c.max, p.value);
            if (x < c.firstX) {
                c.firstX = x;
                c.first = p.value;
            }
            if (x >= c.lastX) {
                c.lastX = x;
                c.last = p.value;
            }
        }
    });
    return result;
}

} // namespace ferry::run
