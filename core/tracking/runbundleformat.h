// The entry names of a run bundle and how a run's tags and note travel in it, shared by its writer
// and reader.
#pragma once

// What the writer and the reader of a run bundle share (runbundle.h): the names inside it, and
// the spot where a run's tags and note travel.
#include "store/runstore.h"

#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace ferry::run {

inline constexpr QLatin1String kBundleSpecName{"spec.json"};
inline constexpr QLatin1String kBundleMetricsName{"metrics.csv"};
inline constexpr QLatin1String kBundleRunPrefix{"run/"};
inline constexpr QLatin1String kBundleObjectsPrefix{"objects/"};

// objects/ab/cdef... for an object's hash.
inline QString bundleObjectName(const QString &hash)
{
    return kBundleObjectsPrefix + hash.left(2) + u'/' + hash.mid(2);
}

// The manifest's "annotations": a run's tags and note (`ferry runs tag|note`), written by
// bundleAnnotations and given back by applyBundleAnnotations. Tags the store refuses (checkTag)
// and annotations a Ferry does not know are ignored, never refused: they are a person's words.
inline QJsonObject bundleAnnotations(const RunStore &store, const QString &runId)
{
    using namespace Qt::StringLiterals;
    const auto record = store.run(runId);
    if (!record)
        return {};
    QJsonObject annotations{{u"tags"_s, QJsonArray::fromStringList(record->tags)}};
    if (!record->note.isEmpty())
        annotations[u"note"_s] = record->note;
    return annotations;
}
inline void applyBundleAnnotations(RunStore &store, const QString &runId, const QJsonObject &annotations)
{
    using namespace Qt::StringLiterals;
    QStringList tags;
    for (const QJsonValue &tag : annotations[u"tags"_s].toArray()) {
        if (tag.isString() && RunStore::checkTag(tag.toString()))
            tags << tag.toString();
    }
    if (!tags.isEmpty())
        store.setTags(runId, tags);
    if (const QString note = annotations[u"note"_s].toString(); !note.isEmpty())
        store.setNote(runId, note);
}

} // namespace ferry::run
