// Writing a run bundle (runbundle.h): the snapshot without its secret-like files, the metric
// points as CSV, the run folder's files worth keeping, a manifest that says what is there.
#include "tracking/runbundle.h"

#include "common/safefile.h"
#include "run/archive.h"
#include "run/rundirectory.h"
#include "snapshot/secretfiles.h"
#include "snapshot/snapshot.h"
#include "snapshot/treeobject.h"
#include "store/metricexport.h"
#include "tracking/runbundleformat.h"

#include <ferry/version.h>

#include <QDateTime>
#include <QDir>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QTemporaryFile>

#include <optional>

using namespace Qt::StringLiterals;

namespace ferry::run {

QStringList bundledRunFiles()
{
    return {QString::fromUtf16(u"log"),
            QString::fromUtf16(RunDirectory::kLogTimesName),
            QString::fromUtf16(RunDirectory::kSystemSamplesName),
            u"exit.json"_s,
            u"stop-reason"_s,
            u"model.tar.gz"_s,
            u"output.tar.gz"_s};
}

namespace {

// The snapshot as the bundle carries it: its trees rebuilt without the files left out (a tree
// that loses nothing is the same object as before), and every object they need.
struct BundledSnapshot {
    QString tree;
    QMap<QString, std::optional<QByteArray>> objects; // hash → bytes made here, or nullopt: in the store
    QStringList leftOut;
    qint64 leftOutFiles = 0, leftOutBytes = 0;
};

Expected<snapshot::TreeEntry> keepTree(const snapshot::ObjectStore &store, const QString &hash, const QString &prefix,
                                       bool includeSecrets, BundledSnapshot &out)
{
    const auto entries = store.tree(hash);
    if (!entries)
        return withContext(u"the run's snapshot"_s, entries.error());
    QList<snapshot::TreeEntry> kept;
    qint64 size = 0;
    for (const snapshot::TreeEntry &e : *entries) {
        const QString path = prefix.isEmpty() ? e.name : prefix + u'/' + e.name;
        if (!includeSecrets && snapshot::looksSecret(path)) {
            out.leftOut << (e.type == 'd' ? path + u'/' : path);
            if (e.type == 'd') {
                const auto under = store.files(e.hash);
                out.leftOutFiles += under ? under->size() : 0;
            } else {
                ++out.leftOutFiles;
            }
            out.leftOutBytes += e.size;
            continue;
        }
        if (e.type == 'd') {
            auto folder = keepTree(store, e.hash, path, includeSecrets, out);
            if (!folder)
                return folder;
            folder->name = e.name;
            kept << *folder;
            size += folder->size;
            continue;
        }
        if (e.type != 'b') { // a file over 32 MiB: its hash only, its bytes were never kept
            if (!store.has(e.hash))
                return Error{u"object %1 of the run's snapshot (%2) is missing"_s.arg(e.hash, path),
                             store.pathOf(e.hash), 0, 0, u"the workspace's object store was changed by hand"_s};
            out.objects.insert(e.hash, std::nullopt);
        }
        kept << e;
        size += e.size;
    }
    const QByteArray bytes = snapshot::treeObject(kept);
    const QString made = snapshot::objectHash(bytes);
    out.objects.insert(made, bytes);
    return snapshot::TreeEntry{'d', size, made, {}};
}

QJsonObject recordJson(const RunRecord &r)
{
    QJsonObject o{{u"id"_s, r.id},
                  {u"experiment"_s, r.experiment},
                  {u"name"_s, r.name},
                  {u"status"_s, runStatusText(r.status)},
                  {u"target"_s, r.target},
                  {u"environmentTag"_s, r.environmentTag},
                  {u"createdMs"_s, r.createdMs},
                  {u"startedMs"_s, r.startedMs},
                  {u"finishedMs"_s, r.finishedMs},
                  {u"error"_s, r.error}};
    o[u"exitCode"_s] = r.exitCode ? QJsonValue(*r.exitCode) : QJsonValue();
    return o;
}

QJsonObject manifestJson(const RunStore &store, const RunRecord &record, const RunSpec &spec,
                         const BundledSnapshot &snap, qint64 points, const QStringList &runFiles, bool secretsIncluded)
{
    QJsonArray params, artifacts;
    for (const Hyperparameter &hp : store.params(record.id))
        params.append(QJsonObject{{u"name"_s, hp.name}, {u"value"_s, hp.value}});
    for (const Artifact &a : store.artifacts(record.id)) {
        if (runFiles.contains(a.path))
            artifacts.append(QJsonObject{{u"path"_s, a.path}, {u"kind"_s, a.kind}, {u"size"_s, a.size}});
    }
    QJsonObject manifest{{u"format"_s, kBundleFormat},
                         {u"ferryVersion"_s, QString::fromLatin1(kVersion)},
                         {u"exportedMs"_s, QDateTime::currentMSecsSinceEpoch()},
                         {u"run"_s, recordJson(record)},
                         {u"params"_s, params},
                         {u"artifacts"_s, artifacts},
                         {u"metrics"_s, QJsonObject{{u"file"_s, kBundleMetricsName}, {u"points"_s, points}}},
                         {u"runFiles"_s, QJsonArray::fromStringList(runFiles)},
                         {u"annotations"_s, bundleAnnotations(store, record.id)}};
    if (spec.snapshot && !spec.snapshot->tree.isEmpty())
        manifest[u"snapshot"_s] = QJsonObject{{u"tree"_s, snap.tree},
                                              {u"originalTree"_s, record.spec[u"snapshot"_s][u"tree"_s].toString()},
                                              {u"leftOut"_s, QJsonArray::fromStringList(snap.leftOut)},
                                              {u"secretsIncluded"_s, secretsIncluded},
                                              {u"objects"_s, qint64(snap.objects.size())}};
    return manifest;
}

Expected<void> writeBundle(ArchiveWriter &writer, const QJsonObject &manifest, const RunSpec &spec,
                           const QString &metricsFile, const QString &runDir, const QStringList &runFiles,
                           const snapshot::ObjectStore &objects, const BundledSnapshot &snap)
{
    // The manifest first: a reader learns what the bundle is before anything else.
    if (auto added = writer.addBytes(kBundleManifestName, QJsonDocument(manifest).toJson()); !added)
        return added;
    if (auto added = writer.addBytes(kBundleSpecName, QJsonDocument(spec.toJson()).toJson()); !added)
        return added;
    if (auto added = writer.addFile(kBundleMetricsName, metricsFile); !added)
        return added;
    for (const QString &name : runFiles) {
        if (auto added = writer.addFile(kBundleRunPrefix + name, runDir + u'/' + name); !added)
            return added;
    }
    for (auto it = snap.objects.cbegin(); it != snap.objects.cend(); ++it) {
        const QString name = bundleObjectName(it.key());
        if (auto added =
                it.value() ? writer.addBytes(name, *it.value()) : writer.addFile(name, objects.pathOf(it.key()));
            !added)
            return added;
    }
    return writer.commit();
}

} // namespace

Expected<BundleExport> exportRunBundle(const RunStore &store, const QString &runsDir, const RunRecord &record,
                                       const QString &bundlePath, const BundleExportOptions &options)
{
    if (!isFinished(record.status))
        return Error{u"run %1 is %2: only an ended run can be bundled"_s.arg(record.id, runStatusLabel(record)),
                     {},
                     0,
                     0,
                     u"wait for its end (ferry runs attach %1) or cancel it"_s.arg(record.id)};
    auto spec = RunSpec::fromJson(record.spec);
    if (!spec)
        return withContext(u"run %1"_s.arg(record.id), spec.error());
    const snapshot::ObjectStore objects(snapshot::objectsDirFor(runsDir));
    BundledSnapshot snap;
    if (spec->snapshot && !spec->snapshot->tree.isEmpty()) {
        const auto root = keepTree(objects, spec->snapshot->tree, {}, options.includeSecrets, snap);
        if (!root)
            return root.error();
        snap.tree = root->hash;
        spec->snapshot->tree = snap.tree; // the code the bundle holds: without what was left out
        spec->snapshot->files -= snap.leftOutFiles;
        spec->snapshot->bytes -= snap.leftOutBytes;
    }
    QTemporaryFile metrics;
    if (!metrics.open())
        return Error{u"cannot make a temporary file: "_s + metrics.errorString(), metrics.fileName(), 0, 0,
                     u"check free space in the temporary folder"_s};
    const auto points = exportMetrics(store, record.id, MetricTextFormat::Csv, metrics);
    if (!points)
        return points.error();
    metrics.close();
    const QString runDir = QDir(runsDir).filePath(record.id);
    BundleExport result;
    for (const QString &name : bundledRunFiles()) {
        if (entryKind(runDir + u'/' + name) == EntryKind::RegularFile)
            result.runFiles << name;
    }
    const QJsonObject manifest =
        manifestJson(store, record, *spec, snap, *points, result.runFiles, options.includeSecrets);
    const auto writer = ArchiveWriter::create(bundlePath);
    if (!writer)
        return writer.error();
    if (auto written =
            writeBundle(**writer, manifest, *spec, metrics.fileName(), runDir, result.runFiles, objects, snap);
        !written)
        return written.error();
    result.leftOut = snap.leftOut;
    result.objects = snap.objects.size();
    result.points = *points;
    return result;
}

} // namespace ferry::run
