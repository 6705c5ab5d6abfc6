// A snapshot's trees as they come from elsewhere (snapshot.h): checked as a bundle brings them
// (checkTrees), and written out for a rerun into a fresh private folder beneath its descriptor
// (materialize). Taking a snapshot and the object store are snapshot.cpp's.
#include "snapshot/snapshot.h"
#include "snapshot/treeobject.h"

#include "common/privatedir.h"
#include "common/safefile.h"
#include "common/uniquefd.h"

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QRegularExpression>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::snapshot {

QString rerunsDirFor(const QString &objectsDir)
{
    return QDir::cleanPath(objectsDir + u"/../reruns"_s);
}

namespace {

Expected<void> writeFd(int fd, const char *data, qint64 size, const QString &path)
{
    while (size > 0) {
        const ssize_t n = ::write(fd, data, size_t(size));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return Error{u"cannot write it: "_s + errnoText(errno), path, 0, 0, u"check free disk space"_s};
        data += n;
        size -= n;
    }
    return {};
}

// A file not kept ('b'), taken from the user's own source folder: `relative` opened beneath
// `sourceRoot` one part at a time, no link followed at any part, a regular file of the recorded
// size whose bytes hash to the recorded hash (review N2). Copied into `out` as it is read.
Expected<void> copyFromSource(const QString &sourceRoot, const QString &relative, const TreeEntry &e, int out,
                              const QString &outPath)
{
    const QString original = sourceRoot + u'/' + relative;
    const Error changed{u"%1 (%2 bytes) was not kept with the run's code, and the source folder's copy is not that "
                        u"file any more"_s.arg(relative)
                            .arg(e.size),
                        original, 0, 0, u"files over 32 MiB are fingerprinted, not kept (docs/snapshots.md)"_s};
    if (sourceRoot.isEmpty())
        return Error{u"%1 (%2 bytes) was not kept with the run's code, and this run came from elsewhere: its source "
                     u"folder is not read"_s.arg(relative)
                         .arg(e.size),
                     relative, 0, 0, u"files over 32 MiB are fingerprinted, not kept (docs/snapshots.md)"_s};
    UniqueFd dir(::open(QFile::encodeName(sourceRoot).constData(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (!dir.valid())
        return changed;
    const QStringList parts = relative.split(u'/');
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        UniqueFd next(::openat(dir.get(), QFile::encodeName(parts[i]).constData(),
                               O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
        if (!next.valid())
            return changed;
        dir = std::move(next);
    }
    UniqueFd in(::openat(dir.get(), QFile::encodeName(parts.last()).constData(),
                         O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
    struct stat st {};
    if (!in.valid() || ::fstat(in.get(), &st) != 0 || !S_ISREG(st.st_mode) || qint64(st.st_size) != e.size)
        return changed;
    QCryptographicHash hash(QCryptographicHash::Sha256);
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    qint64 total = 0;
    for (;;) {
        const ssize_t n = ::read(in.get(), buffer.data(), size_t(buffer.size()));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return changed;
        if (n == 0)
            break;
        total += n;
        if (total > e.size)
            return changed;
        hash.addData(QByteArrayView(buffer.constData(), n));
        if (auto written = writeFd(out, buffer.constData(), n, outPath); !written)
            return written;
    }
    if (total != e.size || QString::fromLatin1(hash.result().toHex()) != e.hash)
        return changed;
    return {};
}

// Fills the folder open at `dir` (new, made by Ferry) with the entries of `tree`: every name
// created new beneath its folder's descriptor (mkdirat, O_CREAT | O_EXCL | O_NOFOLLOW,
// symlinkat), so nothing is written through a link, whatever the tree names.
struct Filler {
    const ObjectStore &store;
    const QString &ownSource;
    const QString &top;
    qint64 entries = 0;

    Expected<void> fill(int dir, const QString &tree, const QString &prefix)
    {
        const auto listing = store.tree(tree);
        if (!listing)
            return listing.error();
        entries += listing->size();
        if (entries > kMostSnapshotEntries)
            return Error{
                u"the snapshot spells out more than %1 files and folders: not written"_s.arg(kMostSnapshotEntries), top,
                0, 0, u"a folder of folders made to blow up a walk; do not use this run"_s};
        for (const TreeEntry &e : *listing) {
            const QString relative = prefix.isEmpty() ? e.name : prefix + u'/' + e.name;
            const QString path = top + u'/' + relative;
            if (!isSingleName(e.name))
                return Error{u"the snapshot names '%1', which is not one file name"_s.arg(relative), top, 0, 0,
                             u"do not use this run"_s};
            const QByteArray name = QFile::encodeName(e.name);
            if (e.type == 'd') {
                if (::mkdirat(dir, name.constData(), 0700) != 0)
                    return Error{u"cannot make the folder: "_s + errnoText(errno), path, 0, 0, {}};
                UniqueFd sub(::openat(dir, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
                if (!sub.valid())
                    return Error{u"cannot open the folder just made: "_s + errnoText(errno), path, 0, 0, {}};
                if (auto filled = fill(sub.get(), e.hash, relative); !filled)
                    return filled;
                continue;
            }
            if (e.type == 'l') {
                const auto link = store.get(e.hash);
                if (!link)
                    return link.error();
                if (link->contains('\0') || ::symlinkat(link->constData(), dir, name.constData()) != 0)
                    return Error{u"cannot make the link"_s, path, 0, 0, {}};
                continue;
            }
            UniqueFd out(::openat(dir, name.constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                                  e.type == 'x' ? 0700 : 0600));
            if (!out.valid())
                return Error{u"cannot write it: "_s + errnoText(errno), path, 0, 0, u"check free disk space"_s};
            if (e.type == 'b') {
                if (auto copied = copyFromSource(ownSource, relative, e, out.get(), path); !copied)
                    return copied;
                continue;
            }
            const auto bytes = store.get(e.hash);
            if (!bytes)
                return bytes.error();
            if (auto written = writeFd(out.get(), bytes->constData(), bytes->size(), path); !written)
                return written;
        }
        return {};
    }
};

struct TreeChecker {
    const ObjectStore &store;
    const std::function<bool(const QString &)> &available;
    CheckedTrees result;
    struct Under {
        qint64 entries = 0;
        qint64 bytes = 0;
    };
    QHash<QString, Under> seen; // tree → what is under it

    Expected<Under> check(const QString &hash, int depth)
    {
        if (const auto known = seen.constFind(hash); known != seen.constEnd())
            return *known;
        if (depth > 256)
            return Error{u"the snapshot's folders nest too deep"_s, {}, 0, 0, {}};
        if (!available(hash))
            return Error{u"the snapshot's tree %1 is not in the bundle"_s.arg(hash), {}, 0, 0, {}};
        const auto bytes = store.get(hash);
        const auto entries = store.tree(hash);
        if (!bytes || !entries || treeObject(*entries) != *bytes)
            return Error{u"object %1 is not a folder listing as Ferry writes one"_s.arg(hash), {}, 0, 0, {}};
        result.referenced.insert(hash);
        static const QRegularExpression hex(u"^[0-9a-f]{64}$"_s);
        QSet<QString> names;
        Under under;
        for (const TreeEntry &e : *entries) {
            if (!isSingleName(e.name) || names.contains(e.name) || !QByteArrayView("fxbld").contains(e.type) ||
                !hex.match(e.hash).hasMatch())
                return Error{u"the snapshot's folder listing %1 names '%2' (a name must be one part, once)"_s.arg(
                                 hash, quotedName(e.name)),
                             {},
                             0,
                             0,
                             {}};
            names.insert(e.name);
            ++under.entries;
            qint64 size = e.size;
            if (e.type == 'd') {
                const auto below = check(e.hash, depth + 1);
                if (!below)
                    return below;
                under.entries += below->entries;
                size = below->bytes;
            } else if (e.type == 'b') {
                size = std::max(e.size, kMostKeptBytes + 1);
            } else {
                if (!available(e.hash))
                    return Error{
                        u"object %1 of the snapshot's %2 is not in the bundle"_s.arg(e.hash, quotedName(e.name)),
                        {},
                        0,
                        0,
                        {}};
                result.referenced.insert(e.hash);
                size = QFileInfo(store.pathOf(e.hash)).size();
            }
            if (size != e.size)
                return Error{u"the snapshot's folder listing %1 says '%2' holds %3 bytes; it holds %4"_s
                                 .arg(hash, quotedName(e.name))
                                 .arg(e.size)
                                 .arg(size),
                             {},
                             0,
                             0,
                             {}};
            under.bytes += size;
            if (under.entries > kMostSnapshotEntries)
                return Error{u"the snapshot spells out more than %1 files and folders"_s.arg(kMostSnapshotEntries),
                             {},
                             0,
                             0,
                             {}};
        }
        seen.insert(hash, under);
        return under;
    }
};

} // namespace

Expected<CheckedTrees> checkTrees(const ObjectStore &store, const QString &root,
                                  const std::function<bool(const QString &hash)> &available)
{
    TreeChecker checker{store, available, {}, {}};
    const auto under = checker.check(root, 0);
    if (!under)
        return under.error();
    checker.result.entries = under->entries;
    checker.result.bytes = under->bytes;
    return checker.result;
}

Expected<QString> materialize(const QString &objectsDir, const QString &tree, const QString &parentDir,
                              const QString &ownSource)
{
    if (auto made = ensurePrivateDir(parentDir); !made)
        return made.error();
    QByteArray pattern = QFile::encodeName(parentDir + u'/' + tree.left(12) + u"-XXXXXX"_s);
    if (::mkdtemp(pattern.data()) == nullptr)
        return Error{u"cannot make a folder for the run's code: "_s + errnoText(errno), parentDir, 0, 0,
                     u"check free space and permissions"_s};
    const QString target = QFile::decodeName(pattern);
    UniqueFd top(::open(pattern.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    Expected<void> filled = Error{u"cannot open the folder just made: "_s + errnoText(errno), target, 0, 0, {}};
    if (top.valid()) {
        const ObjectStore store(objectsDir);
        Filler filler{store, ownSource, target};
        filled = filler.fill(top.get(), tree, {});
    }
    if (!filled) {
        QDir(target).removeRecursively();
        return filled.error();
    }
    return target;
}

} // namespace ferry::snapshot
