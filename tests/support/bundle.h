// Reads, tampers with and rewrites run bundles as an attacker would share them, for the security
// tests.
#pragma once

// Run bundles as an attacker would share them (tests/security/): a real bundle, read back into
// its entries, its spec, manifest and snapshot trees changed, written again with libarchive
// (support/tarball.h). A test that includes this links LibArchive::LibArchive.
#include "snapshot/treeobject.h"
#include "support/tarball.h"

#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#include <functional>

namespace ferry::test {

using BundleEntries = QList<TarEntry>;

inline BundleEntries readTarGz(const QString &path)
{
    BundleEntries entries;
    std::unique_ptr<archive, decltype(&archive_read_free)> a(archive_read_new(), archive_read_free);
    archive_read_support_filter_all(a.get());
    archive_read_support_format_all(a.get());
    if (archive_read_open_filename(a.get(), QFile::encodeName(path).constData(), 65536) != ARCHIVE_OK)
        return entries;
    archive_entry *entry = nullptr;
    while (archive_read_next_header(a.get(), &entry) == ARCHIVE_OK) {
        TarEntry e{archive_entry_pathname(entry), QByteArray(archive_entry_size(entry), Qt::Uninitialized)};
        archive_read_data(a.get(), e.content.data(), size_t(e.content.size()));
        entries << e;
    }
    return entries;
}

inline qsizetype indexOf(const BundleEntries &entries, const QByteArray &prefix)
{
    for (qsizetype i = 0; i < entries.size(); ++i) {
        if (entries[i].name.startsWith(prefix))
            return i;
    }
    return -1;
}

inline QJsonObject jsonOf(const BundleEntries &entries, const char *name)
{
    const qsizetype at = indexOf(entries, name);
    return at < 0 ? QJsonObject() : QJsonDocument::fromJson(entries[at].content).object();
}

inline void setJson(BundleEntries &entries, const char *name, const QJsonObject &json)
{
    for (TarEntry &e : entries) {
        if (e.name == name)
            e.content = QJsonDocument(json).toJson();
    }
}

// The bundle with its spec.json and manifest changed by `change`.
inline BundleEntries withSpec(BundleEntries entries,
                              const std::function<void(QJsonObject &spec, QJsonObject &manifest)> &change)
{
    QJsonObject spec = jsonOf(entries, "spec.json"), manifest = jsonOf(entries, "ferry-bundle.json");
    change(spec, manifest);
    setJson(entries, "spec.json", spec);
    setJson(entries, "ferry-bundle.json", manifest);
    return entries;
}

inline QByteArray objectEntryName(const QString &hash)
{
    return (QStringLiteral("objects/") + hash.left(2) + u'/' + hash.mid(2)).toUtf8();
}

// The bundle with its snapshot replaced by the tree `root` (the object of `objects`' last
// listing or any), its objects (listings, files, link targets) those given: the bundle's own are
// dropped, the spec and manifest name the new tree.
inline BundleEntries withSnapshot(BundleEntries entries, const QString &root, const QList<QByteArray> &objects)
{
    entries.removeIf([](const TarEntry &e) { return e.name.startsWith("objects/"); });
    for (const QByteArray &bytes : objects) {
        const TarEntry object{objectEntryName(snapshot::objectHash(bytes)), bytes};
        if (indexOf(entries, object.name) < 0)
            entries << object;
    }
    return withSpec(entries, [&](QJsonObject &spec, QJsonObject &manifest) {
        QJsonObject snap = spec[QStringLiteral("snapshot")].toObject();
        snap[QStringLiteral("tree")] = root;
        spec[QStringLiteral("snapshot")] = snap;
        QJsonObject declared = manifest[QStringLiteral("snapshot")].toObject();
        declared[QStringLiteral("tree")] = root;
        manifest[QStringLiteral("snapshot")] = declared;
    });
}

// Every file below `dir`, hidden ones too, by path.
inline QStringList filesUnder(const QString &dir)
{
    QStringList files;
    QDirIterator it(dir, QDir::Files | QDir::Hidden | QDir::System, QDirIterator::Subdirectories);
    while (it.hasNext())
        files << it.next();
    return files;
}

} // namespace ferry::test
