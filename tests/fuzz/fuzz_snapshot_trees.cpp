// Fuzz target for a snapshot's trees as a bundle brings them (snapshot::checkTrees, second review
// M3, N3) and for writing them out (snapshot::materialize: M1, M2, N2). The input is objects
// separated by a 0xff byte; "@N" in an object (N a digit) stands for the hash of object N, so that
// listings can name files and other listings (only later objects, so there are no cycles); the
// first object is the root. Beyond not crashing: an accepted tree's walk stays within the budget,
// and writing it creates files only inside the new folder, none through a link.
#include "snapshot/snapshot.h"
#include "snapshot/treeobject.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QTemporaryDir>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace {

void fail(const char *why)
{
    std::fprintf(stderr, "snapshot trees: %s\n", why);
    std::abort();
}

QStringList everything(const QString &dir)
{
    QStringList found;
    QDirIterator it(dir, QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        found << it.next();
    found.sort();
    return found;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    using namespace ferry::snapshot;
    const QList<QByteArray> parts =
        QByteArray(reinterpret_cast<const char *>(data), qsizetype(size)).split(char(0xff)).mid(0, 10);
    if (parts.isEmpty() || !parts.first().startsWith("ferry-tree 1\n"))
        return 0;                 // no listing: nothing to check (the seed corpus's other files)
    static QTemporaryDir scratch; // one per process: objects, and an outside folder that stays empty
    const QString objects = scratch.filePath(QStringLiteral("objects"));
    const QString outside = scratch.filePath(QStringLiteral("outside"));
    QDir(objects).removeRecursively();
    QDir(scratch.filePath(QStringLiteral("reruns"))).removeRecursively();
    QDir().mkpath(outside);
    ObjectStore store(objects);
    QList<QString> hashes(parts.size());
    QSet<QString> present;
    for (qsizetype i = parts.size() - 1; i >= 0; --i) { // the later ones first: they are referenced
        QByteArray bytes = parts[i];
        for (qsizetype j = parts.size() - 1; j > i; --j)
            bytes.replace(QByteArray(QByteArray("@") + QByteArray::number(j)), hashes[j].toLatin1());
        bytes.replace(QByteArray("@o"), QFile::encodeName(outside));
        const auto put = store.put(bytes);
        if (!put)
            return 0;
        hashes[i] = *put;
        present.insert(*put);
    }
    const auto checked = checkTrees(store, hashes.first(), [&](const QString &hash) { return present.contains(hash); });
    if (!checked)
        return 0;
    if (checked->entries > kMostSnapshotEntries)
        fail("accepted past the budget");
    const auto files = store.files(hashes.first());
    if (files && files->size() > kMostSnapshotEntries)
        fail("a walk past the budget");
    const auto folder = materialize(objects, hashes.first(), scratch.filePath(QStringLiteral("reruns")), {});
    if (!everything(outside).isEmpty())
        fail("something was written outside the rerun's folder");
    if (folder && !folder->startsWith(scratch.filePath(QStringLiteral("reruns/"))))
        fail("the rerun's folder is not where it was asked for");
    return 0;
}
