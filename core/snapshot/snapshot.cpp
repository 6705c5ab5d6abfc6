#include "snapshot/snapshot.h"
#include "snapshot/treeobject.h"

#include "common/process.h"

#include <QCryptographicHash>
#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QFileInfo>
#include <QHash>
#include <QJsonObject>
#include <QSaveFile>
#include <QUrl>

#include <algorithm>
#include <cerrno>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::snapshot {

namespace {

constexpr char kTreeHeader[] = "ferry-tree 1\n";

QString hashOf(const QByteArray &bytes)
{
    return QString::fromLatin1(QCryptographicHash::hash(bytes, QCryptographicHash::Sha256).toHex());
}

Expected<QString> hashFile(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"cannot read it: "_s + file.errorString(), path, 0, 0, {}};
    QCryptographicHash hash(QCryptographicHash::Sha256);
    if (!hash.addData(&file))
        return Error{u"cannot read it: "_s + file.errorString(), path, 0, 0, {}};
    return QString::fromLatin1(hash.result().toHex());
}

// What the index keeps of a file: it has not changed while all of these are the same.
struct Stamp {
    qint64 size = 0, mtimeNs = 0, ctimeNs = 0, inode = 0;
    bool operator==(const Stamp &) const = default;
};

std::optional<Stamp> stampOf(const QString &path, struct stat *out = nullptr)
{
    struct stat st {};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return std::nullopt;
    if (out)
        *out = st;
    return Stamp{qint64(st.st_size), qint64(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                 qint64(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec, qint64(st.st_ino)};
}

// The index of one source folder: path -> (stamp, hash).
class Index {
public:
    explicit Index(QString file) : m_file(std::move(file)) { load(); }
    std::optional<QString> hash(const QString &path, const Stamp &stamp) const
    {
        const auto it = m_entries.constFind(path);
        if (it == m_entries.constEnd() || !(it->first == stamp))
            return std::nullopt;
        return it->second;
    }
    void set(const QString &path, const Stamp &stamp, const QString &hash) { m_next.insert(path, {stamp, hash}); }
    void save()
    {
        QDir().mkpath(QFileInfo(m_file).absolutePath());
        QSaveFile file(m_file);
        if (!file.open(QIODevice::WriteOnly))
            return;
        QByteArray text;
        for (auto it = m_next.cbegin(); it != m_next.cend(); ++it) {
            const Stamp &s = it->first;
            text += QUrl::toPercentEncoding(it.key()) + ' ' + QByteArray::number(s.size) + ' ' +
                    QByteArray::number(s.mtimeNs) + ' ' + QByteArray::number(s.ctimeNs) + ' ' +
                    QByteArray::number(s.inode) + ' ' + it->second.toLatin1() + '\n';
        }
        file.write(text);
        (void)file.commit();
    }

private:
    void load()
    {
        QFile file(m_file);
        if (!file.open(QIODevice::ReadOnly))
            return;
        for (const QByteArray &line : file.readAll().split('\n')) {
            const QList<QByteArray> f = line.split(' ');
            if (f.size() != 6 || f[5].size() != 64)
                continue;
            m_entries.insert(QUrl::fromPercentEncoding(f[0]),
                             {Stamp{f[1].toLongLong(), f[2].toLongLong(), f[3].toLongLong(), f[4].toLongLong()},
                              QString::fromLatin1(f[5])});
        }
    }
    QString m_file;
    QHash<QString, std::pair<Stamp, QString>> m_entries;
    QHash<QString, std::pair<Stamp, QString>> m_next; // what this snapshot saw: the next index
};

// `dir` and the folders above it that are missing, each made 0700.
bool makePrivatePath(const QString &dir)
{
    if (QFileInfo(dir).isDir())
        return true;
    const QString parent = QFileInfo(dir).absolutePath();
    if (parent != dir && !makePrivatePath(parent))
        return false;
    return ::mkdir(QFile::encodeName(dir).constData(), 0700) == 0 || errno == EEXIST;
}

QByteArray treeText(QList<TreeEntry> entries)
{
    std::sort(entries.begin(), entries.end(), [](const TreeEntry &a, const TreeEntry &b) { return a.name < b.name; });
    QByteArray text = kTreeHeader;
    for (const TreeEntry &e : entries)
        text += QByteArray(1, e.type) + ' ' + QByteArray::number(e.size) + ' ' + e.hash.toLatin1() + ' ' +
                QUrl::toPercentEncoding(e.name) + '\n';
    return text;
}

struct Walk {
    ObjectStore &store;
    const SourceExcludes &excludes;
    Index &index;
    Snapshot &snapshot;

    // The tree of `dir` (relative `path` from the top), stored; its entry in the folder above.
    Expected<TreeEntry> folder(const QString &dir, const QString &path)
    {
        QList<TreeEntry> entries;
        qint64 total = 0;
        const QStringList names =
            QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::System | QDir::NoDotAndDotDot, QDir::Name);
        for (const QString &name : names) {
            const QString relative = path.isEmpty() ? name : path + u'/' + name;
            if (excludes.excluded(relative))
                continue;
            const QString full = dir + u'/' + name;
            struct stat st {};
            const auto stamp = stampOf(full, &st);
            if (!stamp)
                continue; // gone meanwhile
            Expected<TreeEntry> entry = TreeEntry{};
            if (S_ISDIR(st.st_mode))
                entry = folder(full, relative);
            else if (S_ISLNK(st.st_mode))
                entry = link(full);
            else if (S_ISREG(st.st_mode))
                entry = file(full, relative, *stamp, (st.st_mode & S_IXUSR) != 0);
            else
                continue; // sockets, fifos, devices: nothing a run reads as code
            if (!entry)
                return entry.error();
            if (entry->type == '?')
                continue;
            entry->name = name;
            total += entry->size;
            entries << *entry;
        }
        bool added = false;
        const QByteArray text = treeText(entries);
        const auto hash = store.put(text, &added);
        if (!hash)
            return hash.error();
        if (added) {
            snapshot.addedBytes += text.size();
            ++snapshot.addedObjects;
        }
        return TreeEntry{'d', total, *hash, {}};
    }

    Expected<TreeEntry> file(const QString &full, const QString &relative, const Stamp &stamp, bool executable)
    {
        const bool kept = stamp.size <= kMostKeptBytes;
        std::optional<QString> hash = index.hash(relative, stamp);
        if (!kept && !hash) {
            const auto computed = hashFile(full);
            if (!computed) {
                ++snapshot.unreadable;
                return TreeEntry{'?', 0, {}, {}};
            }
            hash = *computed;
        }
        if (kept && (!hash || !store.has(*hash))) {
            const auto computed = hashFile(full);
            if (!computed) { // unreadable (its permissions): left out, counted
                ++snapshot.unreadable;
                return TreeEntry{'?', 0, {}, {}};
            }
            hash = *computed;
            const auto stored = store.putFile(full, *hash);
            if (!stored)
                return stored.error();
            if (*stored) {
                snapshot.addedBytes += stamp.size;
                ++snapshot.addedObjects;
            }
        }
        index.set(relative, stamp, *hash);
        ++snapshot.files;
        snapshot.bytes += stamp.size;
        return TreeEntry{!kept ? 'b' : executable ? 'x' : 'f', stamp.size, *hash, {}};
    }

    Expected<TreeEntry> link(const QString &full)
    {
        QByteArray raw(4096, Qt::Uninitialized); // the link's own text, as readlink gives it
        const ssize_t n = ::readlink(QFile::encodeName(full).constData(), raw.data(), size_t(raw.size()));
        if (n < 0) { // gone or unreadable meanwhile: left out, counted
            ++snapshot.unreadable;
            return TreeEntry{'?', 0, {}, {}};
        }
        raw.truncate(n);
        bool added = false;
        const auto hash = store.put(raw, &added);
        if (!hash)
            return hash.error();
        if (added) {
            snapshot.addedBytes += raw.size();
            ++snapshot.addedObjects;
        }
        ++snapshot.files;
        return TreeEntry{'l', raw.size(), *hash, {}};
    }
};

} // namespace

QByteArray treeObject(QList<TreeEntry> entries)
{
    return treeText(std::move(entries));
}

QString objectHash(const QByteArray &bytes)
{
    return hashOf(bytes);
}

QString ObjectStore::pathOf(const QString &hash) const
{
    return m_dir + u'/' + hash.left(2) + u'/' + hash.mid(2);
}

bool ObjectStore::has(const QString &hash) const
{
    return QFileInfo::exists(pathOf(hash));
}

// The object store holds copies of a source folder's files, secret ones too (.env, keys): its
// folders are 0700 and its objects 0600, whatever the umask (review M7). The store's own folder is
// made private too, which also closes stores an earlier Ferry made with 0755 folders.

Expected<void> ObjectStore::prepare(const QString &path) const
{
    if (!m_private) {
        if (!makePrivatePath(m_dir) || ::chmod(QFile::encodeName(m_dir).constData(), 0700) != 0)
            return Error{u"cannot make the object store: "_s + errnoText(errno), m_dir, 0, 0, u"check permissions"_s};
        m_private = true;
    }
    if (!makePrivatePath(QFileInfo(path).absolutePath()))
        return Error{u"cannot make a folder of the object store: "_s + errnoText(errno), path, 0, 0,
                     u"check free disk space"_s};
    return {};
}

Expected<QString> ObjectStore::put(const QByteArray &bytes, bool *added)
{
    const QString hash = hashOf(bytes);
    if (added)
        *added = false;
    if (has(hash))
        return hash;
    const QString path = pathOf(hash);
    if (auto ready = prepare(path); !ready)
        return ready.error();
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly) || !file.setPermissions(QFile::ReadOwner | QFile::WriteOwner) ||
        file.write(bytes) != bytes.size() || !file.commit())
        return Error{u"cannot store an object: "_s + file.errorString(), path, 0, 0, u"check free disk space"_s};
    if (added)
        *added = true;
    return hash;
}

Expected<bool> ObjectStore::putFile(const QString &source, const QString &hash)
{
    if (has(hash))
        return false;
    const QString path = pathOf(hash);
    if (auto ready = prepare(path); !ready)
        return ready.error();
    QFile in(source);
    QSaveFile out(path);
    if (!in.open(QIODevice::ReadOnly))
        return Error{u"cannot read it: "_s + in.errorString(), source, 0, 0, {}};
    if (!out.open(QIODevice::WriteOnly) || !out.setPermissions(QFile::ReadOwner | QFile::WriteOwner))
        return Error{u"cannot store an object: "_s + out.errorString(), path, 0, 0, u"check free disk space"_s};
    QByteArray buffer(1 << 20, Qt::Uninitialized);
    QCryptographicHash check(QCryptographicHash::Sha256);
    for (qint64 n; (n = in.read(buffer.data(), buffer.size())) > 0;) {
        check.addData(QByteArrayView(buffer.constData(), n));
        if (out.write(buffer.constData(), n) != n)
            return Error{u"cannot store an object: "_s + out.errorString(), path, 0, 0, u"check free disk space"_s};
    }
    if (QString::fromLatin1(check.result().toHex()) != hash) { // it changed while it was read
        out.cancelWriting();
        return Error{u"it changed while Ferry kept a copy"_s, source, 0, 0, u"start the run again"_s};
    }
    if (!out.commit())
        return Error{u"cannot store an object: "_s + out.errorString(), path, 0, 0, u"check free disk space"_s};
    return true;
}

Expected<bool> ObjectStore::adopt(const QString &file, const QString &hash)
{
    if (has(hash))
        return false;
    const QString path = pathOf(hash);
    if (auto ready = prepare(path); !ready)
        return ready.error();
    if (::chmod(QFile::encodeName(file).constData(), 0600) != 0 ||
        ::rename(QFile::encodeName(file).constData(), QFile::encodeName(path).constData()) != 0)
        return Error{u"cannot move an object into place: "_s + errnoText(errno), path, 0, 0,
                     u"check free space and permissions"_s};
    return true;
}

Expected<QByteArray> ObjectStore::get(const QString &hash) const
{
    QFile file(pathOf(hash));
    if (!file.open(QIODevice::ReadOnly))
        return Error{u"object %1 is missing: "_s.arg(hash) + file.errorString(), pathOf(hash), 0, 0, {}};
    return file.readAll();
}

Expected<QList<TreeEntry>> ObjectStore::tree(const QString &hash) const
{
    const auto bytes = get(hash);
    if (!bytes)
        return bytes.error();
    if (!bytes->startsWith(kTreeHeader))
        return Error{u"object %1 is not a tree"_s.arg(hash), pathOf(hash), 0, 0, {}};
    QList<TreeEntry> entries;
    for (const QByteArray &line : bytes->mid(int(sizeof kTreeHeader) - 1).split('\n')) {
        const QList<QByteArray> f = line.split(' ');
        if (f.size() != 4 || f[0].size() != 1)
            continue;
        entries << TreeEntry{f[0][0], f[1].toLongLong(), QString::fromLatin1(f[2]), QUrl::fromPercentEncoding(f[3])};
    }
    return entries;
}

Expected<QMap<QString, TreeEntry>> ObjectStore::files(const QString &root) const
{
    QMap<QString, TreeEntry> out;
    QHash<QString, QList<TreeEntry>> trees; // each listing read once, however often it is reached
    QList<std::pair<QString, QString>> pending{{QString(), root}};
    qint64 entries = 0;
    while (!pending.isEmpty()) {
        const auto [prefix, hash] = pending.takeLast();
        auto known = trees.constFind(hash);
        if (known == trees.constEnd()) {
            auto listing = tree(hash);
            if (!listing)
                return listing.error();
            known = trees.emplace(hash, std::move(*listing));
        }
        entries += known->size();
        if (entries > kMostSnapshotEntries)
            return Error{u"the snapshot %1 spells out more than %2 files and folders: not walked"_s.arg(root.left(12))
                             .arg(kMostSnapshotEntries),
                         pathOf(root), 0, 0, u"a folder of folders made to blow up a walk; do not use this run"_s};
        for (const TreeEntry &e : *known) {
            const QString path = prefix.isEmpty() ? e.name : prefix + u'/' + e.name;
            if (e.type == 'd')
                pending.append({path, e.hash});
            else
                out.insert(path, e);
        }
    }
    return out;
}

QString objectsDirFor(const QString &runsDir)
{
    return QDir::cleanPath(runsDir + u"/../objects"_s);
}

QString runsDirFor(const QString &objectsDir)
{
    return QDir::cleanPath(objectsDir + u"/../runs"_s);
}

GitState gitState(const QString &folder)
{
    GitState git;
    const auto run = [&](const QStringList &args) {
        ProgramCall call;
        call.program = u"git"_s;
        call.arguments = QStringList{u"-C"_s, folder} + args;
        call.timeoutMs = 10000;
        call.err = OutputCapture::discard();
        return runProgram(call);
    };
    const ProcessResult head = run({u"rev-parse"_s, u"HEAD"_s});
    if (!head.ok())
        return git;
    git.repository = true;
    git.commit = QString::fromUtf8(head.out).trimmed();
    const ProcessResult branch = run({u"symbolic-ref"_s, u"--short"_s, u"-q"_s, u"HEAD"_s});
    if (branch.ok())
        git.branch = QString::fromUtf8(branch.out).trimmed();
    const ProcessResult status = run({u"status"_s, u"--porcelain"_s, u"--untracked-files=normal"_s});
    git.dirty = status.ok() && !status.out.trimmed().isEmpty();
    return git;
}

QJsonObject Snapshot::toJson() const
{
    QJsonObject json{{u"tree"_s, tree},
                     {u"files"_s, files},
                     {u"bytes"_s, bytes},
                     {u"addedBytes"_s, addedBytes},
                     {u"addedObjects"_s, addedObjects},
                     {u"ms"_s, elapsedMs}};
    if (unreadable > 0)
        json[u"unreadable"_s] = unreadable;
    if (!error.isEmpty())
        json[u"error"_s] = error;
    if (git.repository)
        json[u"git"_s] = QJsonObject{{u"commit"_s, git.commit}, {u"branch"_s, git.branch}, {u"dirty"_s, git.dirty}};
    return json;
}

Snapshot Snapshot::fromJson(const QJsonObject &json)
{
    Snapshot s;
    s.tree = json[u"tree"_s].toString();
    s.files = json[u"files"_s].toInteger();
    s.bytes = json[u"bytes"_s].toInteger();
    s.addedBytes = json[u"addedBytes"_s].toInteger();
    s.addedObjects = json[u"addedObjects"_s].toInteger();
    s.elapsedMs = json[u"ms"_s].toInteger();
    s.unreadable = json[u"unreadable"_s].toInteger();
    s.error = json[u"error"_s].toString();
    const QJsonObject git = json[u"git"_s].toObject();
    s.git.repository = !git.isEmpty();
    s.git.commit = git[u"commit"_s].toString();
    s.git.branch = git[u"branch"_s].toString();
    s.git.dirty = git[u"dirty"_s].toBool();
    return s;
}

Expected<Snapshot> takeSnapshot(const QString &objectsDir, const QString &sourceDir, const SourceExcludes &excludes)
{
    QElapsedTimer clock;
    clock.start();
    Snapshot snapshot;
    ObjectStore store(objectsDir);
    const QString root = QDir::cleanPath(QFileInfo(sourceDir).absoluteFilePath());
    const QString indexName = hashOf(root.toUtf8()).left(24);
    Index index(objectsDir + u"/index/"_s + indexName);
    Walk walk{store, excludes, index, snapshot};
    const auto top = walk.folder(root, {});
    if (!top)
        return withContext(u"the snapshot of "_s + root, top.error());
    index.save();
    snapshot.tree = top->hash;
    snapshot.git = gitState(root);
    snapshot.elapsedMs = clock.elapsed();
    return snapshot;
}

} // namespace ferry::snapshot
