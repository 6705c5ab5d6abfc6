#pragma once

// What the writer and the reader of a run bundle share (runbundle.h): the names inside it, and
// the spot where a run's tags and note travel.
#include "store/runstore.h"

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

// The manifest's "annotations": a run's tags and note (issue 19, `ferry runs tag|note`) travel
// here, written by bundleAnnotations and given back by applyBundleAnnotations. Empty until the
// store keeps them; a bundle's annotations a Ferry does not know are ignored, never refused.
inline QJsonObject bundleAnnotations(const RunStore &store, const QString &runId)
{
    (void)store;
    (void)runId;
    return {};
}
inline void applyBundleAnnotations(RunStore &store, const QString &runId, const QJsonObject &annotations)
{
    (void)store;
    (void)runId;
    (void)annotations;
}

} // namespace ferry::run
