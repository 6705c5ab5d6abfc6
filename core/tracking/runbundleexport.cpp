// Writing a run bundle (runbundle.h): the snapshot without its secret-like files, the metric
// points as CSV, the run folder's files worth keeping, a manifest that says what is there.
#include "tracking/runbundle.h"

#include "common/safefile.h"
#include "env/environmentfile.h"
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
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QMap>
#include <QTemporaryFile>

#include <algorithm>
#include <functional>
#include <optional>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// The recorded environment with its variables' values emptied (a secret variable's value is the
// name of a keychain secret, not a value: kept) and its interpreter's folder left out; the text
// as it was when there is nothing to leave out, none when it cannot be read back.
QString environmentForBundle(const QString &text, QStringList &leftOut)
{
    env::EnvironmentRead read = env::parseEnvironmentYaml(text, u"environmentSpec"_s);
    if (hasErrors(read.diagnostics)) {
        leftOut << u"environmentSpec"_s;
        return {};
    }
    env::Environment &e = read.environment;
    bool changed = false;
    for (auto &[name, value] : e.variables) {
        if (!e.isSecretVariable(name) && !value.isEmpty()) {
            value.clear();
            leftOut << u"environmentSpec.variables."_s + name;
            changed = true;
        }
    }
    if (QDir::isAbsolutePath(e.python.interpreterPath)) {
        e.python.interpreterPath = QFileInfo(e.python.interpreterPath).fileName();
        leftOut << u"environmentSpec.python.interpreter"_s;
        changed = true;
    }
    return changed ? env::writeEnvironmentYaml(e) : text;
}

} // namespace

RunSpec specForBundle(RunSpec spec, QStringList &leftOut)
{
    for (auto &[name, value] : spec.variables) {
        if (!value.isEmpty())
            leftOut << u"variables."_s + name;
        value.clear();
    }
    if (!spec.environmentSpec.isEmpty())
        spec.environmentSpec = environmentForBundle(spec.environmentSpec, leftOut);
    if (QDir::isAbsolutePath(spec.sourceDir)) {
        spec.sourceDir = QFileInfo(QDir::cleanPath(spec.sourceDir)).fileName();
        leftOut << u"sourceDir"_s;
    }
    if (!spec.environmentFile.isEmpty()) {
        spec.environmentFile.clear();
        leftOut << u"environmentFile"_s;
    }
    for (const DataChannel &c : std::as_const(spec.channels))
        leftOut << u"channels."_s + c.name;
    spec.channels.clear();
    for (snapshot::DataFingerprint &d : spec.data) {
        if (d.path.isEmpty())
            continue;
        if (!d.error.isEmpty())
            d.error.replace(d.path, u"(its path)"_s);
        d.path.clear();
        leftOut << u"data.%1.path"_s.arg(d.channel);
    }
    if (QDir::isAbsolutePath(spec.interpreter)) {
        spec.interpreter = QFileInfo(spec.interpreter).fileName();
        leftOut << u"interpreter"_s;
    }
    for (const QString &option : {u"identityFile"_s, u"engine"_s}) {
        // An engine named without a folder ("podman") says nothing of this machine.
        const QString value = spec.target.options.value(option).toString();
        if (spec.target.options.contains(option) && (option == u"identityFile"_s || value.contains(u'/'))) {
            spec.target.options.remove(option);
            leftOut << u"target.options."_s + option;
        }
    }
    return spec;
}

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
                                       const std::function<bool(const QString &)> &leaveOut, BundledSnapshot &out)
{
    const auto entries = store.tree(hash);
    if (!entries)
        return withContext(u"the run's snapshot"_s, entries.error());
    QList<snapshot::TreeEntry> kept;
    qint64 size = 0;
    for (const snapshot::TreeEntry &e : *entries) {
        const QString path = prefix.isEmpty() ? e.name : prefix + u'/' + e.name;
        if (leaveOut(path)) {
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
            auto folder = keepTree(store, e.hash, path, leaveOut, out);
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
                         const BundledSnapshot &snap, qint64 points, const QStringList &runFiles,
                         const BundleExportOptions &options, const QStringList &leftOutValues)
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
                         {u"annotations"_s, bundleAnnotations(store, record.id)},
                         // What the bundle does not say of where and with what it ran here (review N7).
                         {u"valuesLeftOut"_s, QJsonArray::fromStringList(leftOutValues)},
                         {u"valuesIncluded"_s, options.includeValues}};
    if (spec.snapshot && !spec.snapshot->tree.isEmpty())
        manifest[u"snapshot"_s] = QJsonObject{{u"tree"_s, snap.tree},
                                              {u"originalTree"_s, record.spec[u"snapshot"_s][u"tree"_s].toString()},
                                              {u"leftOut"_s, QJsonArray::fromStringList(snap.leftOut)},
                                              {u"secretsIncluded"_s, options.includeSecrets},
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

// The run's environment file as its path in the snapshot, when it holds values the bundle leaves
// out (the spec's variables come from it); empty when it holds none or is outside the source folder.
QString environmentFileInSnapshot(const RunSpec &spec)
{
    const bool values = std::any_of(spec.variables.cbegin(), spec.variables.cend(),
                                    [](const auto &variable) { return !variable.second.isEmpty(); });
    if (!values || spec.environmentFile.isEmpty() || !QDir::isAbsolutePath(spec.sourceDir))
        return {};
    const QString relative =
        QDir(QDir::cleanPath(spec.sourceDir)).relativeFilePath(QDir::cleanPath(spec.environmentFile));
    if (relative == ".."_L1 || relative.startsWith(u"../"_s) || QDir::isAbsolutePath(relative))
        return {};
    return relative;
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
    // Secret-like files by their names; the run's environment file, which holds the values that
    // the spec leaves out, with them.
    const QString environmentFile = options.includeValues ? QString() : environmentFileInSnapshot(*spec);
    const auto leaveOut = [&](const QString &path) {
        return path == environmentFile || (!options.includeSecrets && snapshot::looksSecret(path));
    };
    if (spec->snapshot && !spec->snapshot->tree.isEmpty()) {
        const auto root = keepTree(objects, spec->snapshot->tree, {}, leaveOut, snap);
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
    if (!options.includeValues)
        *spec = specForBundle(*spec, result.leftOutValues);
    result.leftOut = snap.leftOut;
    if (!environmentFile.isEmpty() && result.leftOut.removeAll(environmentFile) > 0)
        result.leftOutValues << u"snapshot:"_s + environmentFile;
    for (const QString &name : bundledRunFiles()) {
        if (entryKind(runDir + u'/' + name) == EntryKind::RegularFile)
            result.runFiles << name;
    }
    const QJsonObject manifest =
        manifestJson(store, record, *spec, snap, *points, result.runFiles, options, result.leftOutValues);
    const auto writer = ArchiveWriter::create(bundlePath);
    if (!writer)
        return writer.error();
    if (auto written =
            writeBundle(**writer, manifest, *spec, metrics.fileName(), runDir, result.runFiles, objects, snap);
        !written)
        return written.error();
    result.objects = snap.objects.size();
    result.points = *points;
    return result;
}

} // namespace ferry::run
