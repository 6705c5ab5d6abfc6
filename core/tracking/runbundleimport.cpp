// Reading a run bundle from elsewhere (runbundle.h, docs/security.md): staged in a private folder
// of the workspace, every part checked, then moved into place, or nothing is.
#include "tracking/runbundle.h"

#include "common/safefile.h"
#include "run/archive.h"
#include "run/rundirectory.h"
#include "snapshot/secretfiles.h"
#include "snapshot/snapshot.h"
#include "snapshot/treeobject.h"
#include "store/metriccsv.h"
#include "tracking/foreignrun.h"
#include "tracking/runbundleformat.h"

#include <QCryptographicHash>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QRegularExpression>
#include <QSet>
#include <QTemporaryDir>

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <limits>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qint64 kChunk = 256 * 1024;
constexpr qint64 kMostJsonBytes = 16 * 1024 * 1024;   // the manifest, the spec
constexpr qint64 kMostObjectBytes = 64 * 1024 * 1024; // a kept file is at most 32 MiB; a tree's listing
constexpr qint64 kMostEntries = 500000;
// What a bundle may inflate to: this, and 100 times its own size (gzip reaches about 1000).
constexpr qint64 kBaseInflatedBytes = 256 * 1024 * 1024;
constexpr qint64 kInflationRatio = 100;

const QString kAlteredHint = u"this bundle was not made by Ferry, or it was altered: do not use it"_s;

Error refused(const QString &bundle, const QString &what)
{
    return Error{what + u": refused"_s, bundle, 0, 0, kAlteredHint};
}

// What the staging folder holds once the bundle was read through.
struct Staged {
    QString dir;
    QJsonObject manifest;
    QByteArray spec;
    QSet<QString> objects; // hashes, each checked against its bytes
    QStringList runFiles;
    bool metrics = false;
    QString objectsDir() const { return dir + u"/objects"_s; }
    QString runDir() const { return dir + u"/run"_s; }
    QString metricsFile() const { return dir + u"/metrics.csv"_s; }
};

enum class Part { Manifest, Spec, Metrics, RunFile, Object, Unknown };

Part partOf(const QString &name)
{
    static const QRegularExpression object(u"^objects/[0-9a-f]{2}/[0-9a-f]{62}$"_s);
    if (name == kBundleManifestName)
        return Part::Manifest;
    if (name == kBundleSpecName)
        return Part::Spec;
    if (name == kBundleMetricsName)
        return Part::Metrics;
    if (name.startsWith(kBundleRunPrefix) && bundledRunFiles().contains(name.mid(kBundleRunPrefix.size())))
        return Part::RunFile;
    if (object.match(name).hasMatch())
        return Part::Object;
    return Part::Unknown;
}

Expected<void> writeAll(int fd, const char *data, qint64 size, const QString &path)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Error{u"cannot write: "_s + errnoText(), path, 0, 0, u"check free disk space"_s};
        data += n;
        size -= n;
    }
    return {};
}

// The current entry's bytes into a new file at `path` (O_EXCL | O_NOFOLLOW); their SHA-256.
Expected<QString> streamEntry(ArchiveReader &reader, const QString &path)
{
    const auto fd = openNewFile(path, 0600);
    if (!fd)
        return fd.error();
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QByteArray buffer(kChunk, Qt::Uninitialized);
    Expected<void> written;
    for (;;) {
        const auto n = reader.read(buffer.data(), kChunk);
        if (!n) {
            written = n.error();
            break;
        }
        if (*n == 0)
            break;
        hash.addData(QByteArrayView(buffer.constData(), *n));
        if (written = writeAll(*fd, buffer.constData(), *n, path); !written)
            break;
    }
    ::close(*fd);
    if (!written)
        return written.error();
    return QString::fromLatin1(hash.result().toHex());
}

Expected<QByteArray> readEntry(ArchiveReader &reader, qint64 size)
{
    QByteArray bytes(size, Qt::Uninitialized);
    qint64 done = 0;
    while (done < size) {
        const auto n = reader.read(bytes.data() + done, size - done);
        if (!n)
            return n.error();
        if (*n == 0)
            break;
        done += *n;
    }
    bytes.truncate(done);
    return bytes;
}

QString kindText(ArchiveEntry::Kind kind)
{
    switch (kind) {
    case ArchiveEntry::Kind::SymbolicLink:
        return u"a symbolic link"_s;
    case ArchiveEntry::Kind::HardLink:
        return u"a hard link"_s;
    case ArchiveEntry::Kind::Folder:
        return u"a folder"_s;
    default:
        return u"not a regular file"_s;
    }
}

// One entry of the bundle: where it goes in the staging folder, checked on the way.
Expected<void> stageEntry(ArchiveReader &reader, const ArchiveEntry &entry, const QString &bundle, Staged &staged)
{
    if (entry.kind != ArchiveEntry::Kind::File)
        return refused(bundle, u"'%1' in the bundle is %2; a bundle holds only files"_s.arg(quotedName(entry.name),
                                                                                            kindText(entry.kind)));
    const Part part = partOf(entry.name);
    if (part == Part::Unknown)
        return refused(bundle, u"'%1' is not part of a run bundle"_s.arg(quotedName(entry.name)));
    const qint64 most = part == Part::Object                           ? kMostObjectBytes
                        : part == Part::Manifest || part == Part::Spec ? kMostJsonBytes
                                                                       : std::numeric_limits<qint64>::max();
    if (entry.size > most)
        return refused(bundle,
                       u"'%1' declares %2 bytes, more than such a part may hold (%3)"_s.arg(quotedName(entry.name))
                           .arg(entry.size)
                           .arg(most));
    if (part == Part::Manifest || part == Part::Spec) {
        auto bytes = readEntry(reader, entry.size);
        if (!bytes)
            return bytes.error();
        if (part == Part::Spec) {
            staged.spec = *bytes;
            return {};
        }
        staged.manifest = QJsonDocument::fromJson(*bytes).object();
        if (staged.manifest.isEmpty())
            return refused(bundle, u"its manifest %1 is not a JSON object"_s.arg(kBundleManifestName));
        return {};
    }
    QString path = staged.dir + u'/' + entry.name;
    if (part == Part::Object)
        QDir().mkpath(QFileInfo(path).absolutePath());
    const auto hash = streamEntry(reader, path);
    if (!hash)
        return hash.error();
    if (part == Part::Object) {
        const QString named = entry.name.mid(kBundleObjectsPrefix.size()).remove(u'/');
        if (*hash != named)
            return refused(
                bundle, u"object %1 does not hold the bytes its name says (their SHA-256 is %2)"_s.arg(named, *hash));
        staged.objects.insert(named);
    } else if (part == Part::RunFile) {
        staged.runFiles << entry.name.mid(kBundleRunPrefix.size());
    } else {
        staged.metrics = true;
    }
    return {};
}

// Reads the bundle through once, into the staging folder.
Expected<void> stageBundle(const QString &bundle, Staged &staged)
{
    ArchiveLimits limits;
    limits.maxEntries = kMostEntries;
    limits.maxTotalBytes = kBaseInflatedBytes + kInflationRatio * QFileInfo(bundle).size();
    limits.maxEntryBytes = limits.maxTotalBytes;
    const auto reader = ArchiveReader::open(bundle, limits);
    if (!reader)
        return reader.error();
    if (!QDir().mkpath(staged.runDir()) || !QDir().mkpath(staged.objectsDir()))
        return Error{u"cannot make a folder"_s, staged.dir, 0, 0, u"check free space and permissions"_s};
    QSet<QString> seen;
    for (;;) {
        const auto entry = (*reader)->next();
        if (!entry)
            return entry.error();
        if (!*entry)
            break;
        if (seen.contains((*entry)->name))
            return refused(bundle, u"'%1' appears twice in the bundle"_s.arg(quotedName((*entry)->name)));
        seen.insert((*entry)->name);
        if (auto done = stageEntry(**reader, **entry, bundle, staged); !done)
            return done;
    }
    if (staged.manifest.isEmpty() || staged.spec.isEmpty() || !staged.metrics)
        return Error{
            u"not a run bundle: it lacks %1, %2 or %3"_s.arg(kBundleManifestName, kBundleSpecName, kBundleMetricsName),
            bundle, 0, 0, u"make one with 'ferry runs export ID --bundle FILE'"_s};
    return {};
}

// ---- checks

Expected<void> checkSnapshot(const Staged &staged, const RunSpec &spec, const QString &bundle)
{
    const QString tree = spec.snapshot ? spec.snapshot->tree : QString();
    const QString declared = staged.manifest[u"snapshot"_s][u"tree"_s].toString();
    if (tree != declared)
        return refused(bundle,
                       u"the spec's snapshot (%1) is not the one the manifest names (%2)"_s.arg(tree, declared));
    const snapshot::ObjectStore store(staged.objectsDir());
    QSet<QString> referenced;
    if (!tree.isEmpty()) {
        const auto checked =
            snapshot::checkTrees(store, tree, [&](const QString &hash) { return staged.objects.contains(hash); });
        if (!checked)
            return refused(bundle, checked.error().message);
        referenced = checked->referenced;
    }
    for (const QString &hash : staged.objects) {
        if (!referenced.contains(hash))
            return refused(bundle, u"object %1 is not part of the run's snapshot"_s.arg(hash));
    }
    return {};
}

// What a run id may be: a folder name in .ferry/runs (newRunId's, and older ones').
bool validRunId(const QString &id)
{
    static const QRegularExpression shape(u"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"_s);
    return shape.match(id).hasMatch();
}

// The spec as data (foreignrun.h): every text checked, what a rerun may reuse kept, the rest
// kept aside as the original's; its names checked as for a run about to start.
Expected<ForeignSpec> checkSpec(const Staged &staged, const QString &bundle)
{
    QJsonParseError parse{};
    const QJsonDocument document = QJsonDocument::fromJson(staged.spec, &parse);
    if (!document.isObject())
        return refused(bundle, u"its %1 is not a JSON object (%2)"_s.arg(kBundleSpecName, parse.errorString()));
    if (auto text = checkForeignText(document.object(), {}, {u"environmentSpec"_s}); !text)
        return refused(bundle, u"its %1, %2"_s.arg(kBundleSpecName, text.error().message));
    auto spec = RunSpec::fromJson(document.object());
    if (!spec)
        return refused(bundle, u"its %1 is not a run spec (%2)"_s.arg(kBundleSpecName, spec.error().message));
    if (!validRunId(spec->id))
        return refused(bundle, u"its run id '%1' is not one Ferry makes"_s.arg(quotedName(spec->id)));
    if (staged.manifest[u"run"_s][u"id"_s].toString() != spec->id)
        return refused(bundle, u"its manifest and its spec name different runs"_s);
    auto kept = keepForeignSpec(*spec, QFileInfo(bundle).fileName(), QDateTime::currentMSecsSinceEpoch());
    if (!kept)
        return refused(bundle, u"its %1, %2"_s.arg(kBundleSpecName, kept.error().message));
    QStringList problems;
    for (const Error &e : validateRunSpec(kept->spec, SpecChecks::NamesOnly))
        problems << e.message;
    if (!problems.isEmpty())
        return refused(bundle, u"its spec is not valid: "_s + problems.join(u"; "_s));
    return kept;
}

Expected<RunRecord> checkRecord(const Staged &staged, const RunSpec &spec, const QString &bundle)
{
    if (auto text = checkForeignText(staged.manifest, {}, {u"run.error"_s, u"annotations.note"_s}); !text)
        return refused(bundle, u"its %1, %2"_s.arg(kBundleManifestName, text.error().message));
    const QJsonObject run = staged.manifest[u"run"_s].toObject();
    const auto status = runStatusFromText(run[u"status"_s].toString());
    if (!status || !isFinished(*status))
        return refused(bundle, u"its run's status '%1' is not one of an ended run"_s.arg(run[u"status"_s].toString()));
    RunRecord r;
    r.id = spec.id;
    r.experiment = run[u"experiment"_s].toString();
    r.name = run[u"name"_s].toString();
    r.status = *status;
    r.target = spec.target.toString();
    r.environmentTag = spec.environmentTag;
    r.spec = spec.toJson();
    r.createdMs = run[u"createdMs"_s].toInteger();
    r.startedMs = run[u"startedMs"_s].toInteger();
    r.finishedMs = run[u"finishedMs"_s].toInteger();
    if (run[u"exitCode"_s].isDouble())
        r.exitCode = run[u"exitCode"_s].toInt();
    r.error = run[u"error"_s].toString();
    r.logOffset = QFileInfo(staged.runDir() + u"/log"_s).size(); // its points are in metrics.csv, not to be read again
    return r;
}

Expected<qint64> checkMetrics(const Staged &staged)
{
    QFile file(staged.metricsFile());
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"cannot read it: "_s + file.errorString(), file.fileName(), 0, 0, {}};
    return readMetricsCsv(file, kBundleMetricsName, [](const QList<MetricPoint> &) -> Expected<void> { return {}; });
}

Expected<void> checkNew(const RunStore &store, const QString &runsDir, const QString &id, const QString &bundle)
{
    if (store.run(id) || entryKind(QDir(runsDir).filePath(id)) != EntryKind::Missing)
        return Error{u"run %1 is in this workspace already (imported before?): nothing imported"_s.arg(id), bundle, 0,
                     0, u"to import it again, delete it first: ferry runs delete %1"_s.arg(id)};
    return {};
}

// ---- moving into place

// Objects first: content-addressed, each one only where no object of that name is (the same
// bytes), so a run of this workspace never loses one. Those added stay if a later step fails:
// like a deleted run's, they are unused copies, never a half run.
Expected<qint64> moveObjects(const Staged &staged, const QString &objectsDir)
{
    const snapshot::ObjectStore from(staged.objectsDir());
    snapshot::ObjectStore to(objectsDir);
    qint64 added = 0;
    for (const QString &hash : staged.objects) {
        const auto adopted = to.adopt(from.pathOf(hash), hash);
        if (!adopted)
            return adopted.error();
        added += *adopted ? 1 : 0;
    }
    return added;
}

// The run folder, renamed into place only where nothing is (RENAME_NOREPLACE: a folder that
// appeared meanwhile, or a link planted at the name, is never replaced).
Expected<void> moveRunFolder(const Staged &staged, const RunSpec &spec, const QString &runsDir)
{
    const QString target = QDir(runsDir).filePath(spec.id);
    if (auto written = RunDirectory(staged.runDir()).writeSpec(spec); !written)
        return written;
    if (::renameat2(AT_FDCWD, QFile::encodeName(staged.runDir()).constData(), AT_FDCWD,
                    QFile::encodeName(target).constData(), RENAME_NOREPLACE) != 0)
        return Error{u"cannot move the run's folder into place: "_s + errnoText(), target, 0, 0,
                     u"is a run of that id in this workspace already?"_s};
    return {};
}

QList<Hyperparameter> paramsOf(const QJsonObject &manifest)
{
    QList<Hyperparameter> params;
    for (const QJsonValue &p : manifest[u"params"_s].toArray())
        params << Hyperparameter{p[u"name"_s].toString(), p[u"value"_s].toString()};
    return params;
}

// The run into the store: its record with its end, parameters, artifacts (those whose file came),
// points; then read back: an Error when what is stored is not what came.
Expected<qint64> storeRun(RunStore &store, const Staged &staged, const RunRecord &record, const QString &runDir)
{
    store.createRun(record);
    store.setParams(record.id, paramsOf(staged.manifest));
    for (const QJsonValue &a : staged.manifest[u"artifacts"_s].toArray()) {
        const QString path = a[u"path"_s].toString();
        if (staged.runFiles.contains(path))
            store.addArtifact(record.id,
                              Artifact{path, a[u"kind"_s].toString(), QFileInfo(runDir + u'/' + path).size()});
    }
    QFile file(staged.metricsFile());
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"cannot read it: "_s + file.errorString(), file.fileName(), 0, 0, {}};
    const auto points = readMetricsCsv(file, kBundleMetricsName, [&](QList<MetricPoint> batch) -> Expected<void> {
        store.appendMetrics(record.id, std::move(batch), record.logOffset);
        return {};
    });
    if (!points)
        return points.error();
    applyBundleAnnotations(store, record.id, staged.manifest[u"annotations"_s].toObject());
    store.flush();
    qint64 stored = 0;
    for (const QString &name : store.metricNames(record.id))
        stored += store.metricCount(record.id, name);
    if (!store.run(record.id) || stored != *points)
        return Error{
            u"the run store did not take run %1 (%2 of %3 points stored)"_s.arg(record.id).arg(stored).arg(*points),
            store.databasePath(), 0, 0, u"check free disk space; 'ferry doctor --store' checks the store"_s};
    return *points;
}

} // namespace

Expected<BundleImport> importRunBundle(RunStore &store, const QString &runsDir, const QString &bundlePath)
{
    if (entryKind(bundlePath) != EntryKind::RegularFile)
        return Error{u"no such file"_s, bundlePath, 0, 0, u"give the path of a bundle 'ferry runs export' made"_s};
    if (!QDir().mkpath(runsDir))
        return Error{u"cannot make the folder"_s, runsDir, 0, 0, u"check permissions"_s};
    // In the workspace (the same file system as where the parts go), private, removed at the end.
    QTemporaryDir staging(QDir(runsDir).filePath(u"../import-XXXXXX"_s));
    if (!staging.isValid())
        return Error{u"cannot make a staging folder: "_s + staging.errorString(), runsDir, 0, 0,
                     u"check free space and permissions"_s};
    Staged staged;
    staged.dir = staging.path();
    if (auto done = stageBundle(bundlePath, staged); !done)
        return done.error();
    if (const int format = staged.manifest[u"format"_s].toInt(); format != kBundleFormat)
        return Error{u"bundle format %1; this Ferry reads format %2"_s.arg(format).arg(kBundleFormat), bundlePath, 0, 0,
                     format > kBundleFormat ? u"import it with a newer Ferry"_s : kAlteredHint};
    const auto foreign = checkSpec(staged, bundlePath);
    if (!foreign)
        return foreign.error();
    const RunSpec *spec = &foreign->spec;
    const auto record = checkRecord(staged, *spec, bundlePath);
    if (!record)
        return record.error();
    if (auto fresh = checkNew(store, runsDir, spec->id, bundlePath); !fresh)
        return fresh.error();
    if (auto checked = checkSnapshot(staged, *spec, bundlePath); !checked)
        return checked.error();
    if (auto points = checkMetrics(staged); !points)
        return refused(
            bundlePath,
            u"its %1, line %2: %3"_s.arg(kBundleMetricsName).arg(points.error().line).arg(points.error().message));

    BundleImport result;
    result.record = *record;
    result.notes = foreign->notes;
    result.objects = staged.objects.size();
    for (const QJsonValue &path : staged.manifest[u"snapshot"_s][u"leftOut"_s].toArray())
        result.leftOut << path.toString();
    const auto added = moveObjects(staged, snapshot::objectsDirFor(runsDir));
    if (!added)
        return added.error();
    result.addedObjects = *added;
    if (auto moved = moveRunFolder(staged, *spec, runsDir); !moved)
        return moved.error();
    const auto points = storeRun(store, staged, *record, QDir(runsDir).filePath(spec->id));
    if (!points) { // nothing half imported: the record and the folder go again
        store.deleteRun(spec->id);
        store.flush();
        QDir(QDir(runsDir).filePath(spec->id)).removeRecursively();
        return points.error();
    }
    result.points = *points;
    return result;
}

} // namespace ferry::run
