// RunStore: the index of a run's images, histograms and texts (metrics/media.h), never their bytes.
#include "store/runstore.h"

#include "store/runstoreschema.h"
#include "store/runstorewriter.h"

#include <QSqlQuery>
#include <QVariant>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

const QString kSelectMedia = u"SELECT kind, tag, step, sample, wall_ms, file, byte_offset, byte_length, format, "
                             "width, height, checksum FROM media "_s;

MediaItem itemFrom(const QSqlQuery &q)
{
    MediaItem m;
    m.kind = mediaKindFromText(q.value(0).toString()).value_or(MediaKind::Text);
    m.tag = q.value(1).toString();
    m.step = q.value(2).toLongLong();
    m.sample = q.value(3).toInt();
    m.wallMs = q.value(4).toLongLong();
    m.file = q.value(5).toString();
    m.offset = q.value(6).toLongLong();
    m.length = q.value(7).toLongLong();
    m.format = q.value(8).toString();
    m.width = q.value(9).toInt();
    m.height = q.value(10).toInt();
    m.checksum = static_cast<quint32>(q.value(11).toLongLong());
    return m;
}

} // namespace

using runstoreschema::select;

void RunStore::addMedia(const QString &runId, QList<MediaItem> items)
{
    if (!items.isEmpty())
        addMedia(runId, std::move(items), {});
}

void RunStore::addMedia(const QString &runId, QList<MediaItem> items, const QString &caughtUp)
{
    if (!m_writer->post(runstorecommand::AddMedia{runId, std::move(items), caughtUp}))
        Q_EMIT writeFailed(Error{
            u"run %1: cannot index its images and histograms: the run store is closed"_s.arg(runId), m_path, 0, 0, {}});
}

QHash<QString, qint64> RunStore::mediaBehind(const QString &runId) const
{
    QHash<QString, qint64> result;
    QSqlQuery q =
        select(readConnection(),
               u"SELECT source, position FROM metric_sources WHERE run = ? AND media_position IS NULL"_s, {runId});
    while (q.next())
        result.insert(q.value(0).toString(), q.value(1).toLongLong());
    return result;
}

QList<MediaItem> RunStore::media(const QString &runId, MediaKind kind, const QString &tag, qint64 fromStep,
                                 qsizetype limit) const
{
    QList<MediaItem> result;
    QSqlQuery q = tag.isEmpty() ? select(readConnection(),
                                         kSelectMedia + u"WHERE run = ? AND kind = ? ORDER BY tag, step, sample"_s,
                                         {runId, mediaKindText(kind)})
                                : select(readConnection(),
                                         kSelectMedia + u"WHERE run = ? AND kind = ? AND tag = ? AND step >= ? "
                                                        "ORDER BY step, sample LIMIT ?"_s,
                                         {runId, mediaKindText(kind), tag, fromStep, qint64(limit)});
    while (q.next())
        result.append(itemFrom(q));
    return result;
}

QList<qint64> RunStore::mediaSteps(const QString &runId, MediaKind kind, const QString &tag) const
{
    QList<qint64> result;
    QSqlQuery q = select(readConnection(),
                         u"SELECT DISTINCT step FROM media WHERE run = ? AND kind = ? AND tag = ? ORDER BY step"_s,
                         {runId, mediaKindText(kind), tag});
    while (q.next())
        result << q.value(0).toLongLong();
    return result;
}

QStringList RunStore::mediaTags(const QString &runId, MediaKind kind) const
{
    QStringList result;
    QSqlQuery q = select(readConnection(), u"SELECT DISTINCT tag FROM media WHERE run = ? AND kind = ? ORDER BY tag"_s,
                         {runId, mediaKindText(kind)});
    while (q.next())
        result << q.value(0).toString();
    return result;
}

std::optional<MediaItem> RunStore::mediaItem(const QString &runId, MediaKind kind, const QString &tag, qint64 step,
                                             int sample) const
{
    QSqlQuery q =
        select(readConnection(), kSelectMedia + u"WHERE run = ? AND kind = ? AND tag = ? AND step = ? AND sample = ?"_s,
               {runId, mediaKindText(kind), tag, step, sample});
    if (!q.next())
        return std::nullopt;
    return itemFrom(q);
}

QMap<MediaKind, qint64> RunStore::mediaCounts(const QString &runId) const
{
    QMap<MediaKind, qint64> result;
    QSqlQuery q = select(readConnection(), u"SELECT kind, count(*) FROM media WHERE run = ? GROUP BY kind"_s, {runId});
    while (q.next()) {
        if (const auto kind = mediaKindFromText(q.value(0).toString()))
            result.insert(*kind, q.value(1).toLongLong());
    }
    return result;
}

} // namespace ferry::run
