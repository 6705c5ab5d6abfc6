// A run's source folder kept as a content-addressed snapshot in the workspace's object store, and
// materialized for reruns.
#pragma once

// What a run ran: its source folder's files as they were at launch, kept content-addressed in
// the workspace (`.ferry/objects/`), so a hundred runs of the same code cost one copy and a
// one-line change costs that file and its folders' listings (docs/snapshots.md).
//
// Objects are files named by the SHA-256 of their bytes (objects/ab/cdef...): a file's bytes,
// a symbolic link's target, or a folder's listing (a tree: one line per entry, its type, size,
// hash and name). A snapshot is the hash of the source folder's tree. Files are read once: a
// per-source-folder index remembers each file's size, times and inode with its hash, so an
// unchanged file is not read again. Symbolic links are kept as links, never followed.
#include "common/error.h"
#include "snapshot/sourcefiles.h"

#include <QJsonObject>
#include <QList>
#include <QMap>
#include <QSet>
#include <QString>

#include <functional>

namespace ferry::snapshot {

// Where a source folder stands in git: its commit, branch and whether anything differs from it.
struct GitState {
    bool repository = false;
    QString commit; // full hash
    QString branch; // empty on a detached HEAD
    bool dirty = false;
    bool operator==(const GitState &) const = default;
};
GitState gitState(const QString &folder);

struct Snapshot {
    QString tree;          // the source folder's tree hash
    qint64 files = 0;      // files (and links) in it
    qint64 bytes = 0;      // their size
    qint64 addedBytes = 0; // what this snapshot added to the object store
    qint64 addedObjects = 0;
    qint64 elapsedMs = 0;
    qint64 unreadable = 0; // files it could not read (left out, counted)
    GitState git;
    QString error; // why there is none (the run started without it)
    bool operator==(const Snapshot &) const = default;

    QJsonObject toJson() const;
    static Snapshot fromJson(const QJsonObject &json);
};

// One entry of a tree. type: 'f' a file, 'x' an executable file, 'b' a file over 32 MiB
// (fingerprinted by its hash, its bytes not kept), 'l' a link (hash: of its target), 'd' a
// folder (hash: its tree, size: the bytes under it).
struct TreeEntry {
    char type = 'f';
    qint64 size = 0;
    QString hash;
    QString name;
    bool operator==(const TreeEntry &) const = default;
};

// A file larger than this (a dataset, a checkpoint left in the source folder) is fingerprinted,
// not kept: its entry has its hash and size, the store not its bytes (type 'b').
inline constexpr qint64 kMostKeptBytes = 32 * 1024 * 1024;

// Every walk of a snapshot's trees is held to this many entries (files, links, folders and files
// not kept, counted each time a walk reaches them): a folder of folders built to blow up a walk
// is an Error, never hours of work or all memory (review M3). A bundle's import counts the same.
inline constexpr qint64 kMostSnapshotEntries = 1000000;

// Objects are private to the user: folders 0700, objects 0600 (they copy .env files and keys).
class ObjectStore {
public:
    explicit ObjectStore(QString dir) : m_dir(std::move(dir)) {}
    QString dir() const { return m_dir; }
    QString pathOf(const QString &hash) const;
    bool has(const QString &hash) const;
    // Stores bytes; the hash, and whether they were new.
    Expected<QString> put(const QByteArray &bytes, bool *added = nullptr);
    // Stores a file's bytes under the hash given (computed by the caller); true when new.
    Expected<bool> putFile(const QString &path, const QString &hash);
    // Moves `file` (whose bytes the caller checked against `hash`, on the same file system) into
    // the store as that object; true when it was new (else `file` stays where it is).
    Expected<bool> adopt(const QString &file, const QString &hash);
    Expected<QByteArray> get(const QString &hash) const;
    Expected<QList<TreeEntry>> tree(const QString &hash) const;
    // Every file and link under a tree, by its '/'-separated path; each listing is read once
    // however often it is reached; an Error past kMostSnapshotEntries.
    Expected<QMap<QString, TreeEntry>> files(const QString &tree) const;

private:
    Expected<void> prepare(const QString &objectPath) const;
    QString m_dir;
    mutable bool m_private = false;
};

// The objects folder of a workspace whose runs are in `runsDir` (<root>/.ferry/runs).
QString objectsDirFor(const QString &runsDir);
// Its inverse: the runs folder beside an object store.
QString runsDirFor(const QString &objectsDir);

// What a snapshot's trees from elsewhere were found to be (checkTrees).
struct CheckedTrees {
    QSet<QString> referenced; // every object they need: listings, files, link targets
    qint64 entries = 0;       // entries a walk reaches, each shared folder each time
    qint64 bytes = 0;         // the bytes under the root
};
// Checks the trees under `root` in `store` as a bundle brings them (reviews M3, N3): each listing
// as Ferry writes one (canonical), its names single parts once each, its types known, every object
// it needs `available`, every size the length of its object (a folder's the sum below it, a file
// not kept's over kMostKeptBytes), folders at most 256 deep and kMostSnapshotEntries entries in
// all. Each listing is read once. The Error says what is wrong (never a path of the store).
Expected<CheckedTrees> checkTrees(const ObjectStore &store, const QString &root,
                                  const std::function<bool(const QString &hash)> &available);

// Where reruns get the code of their snapshots: <root>/.ferry/reruns, beside the objects.
QString rerunsDirFor(const QString &objectsDir);

// Writes the files of `tree` into a new folder under `parentDir` (made 0700 when missing; a folder
// that is a link, someone else's or open to others is refused), named TREE12-XXXXXX by mkdtemp(3):
// the new folder's path. Every rerun gets a folder of its own; nothing already there is reused.
// Files are 0600 (0700 when executable), folders 0700, links are made as links; every name is
// created new beneath its folder's descriptor, so nothing is written through a link, nor outside
// the new folder. A file over 32 MiB whose bytes were not kept is copied from `ownSource` (the
// user's own run's source folder; empty for a run from elsewhere) when it is a regular file there,
// reached through no link, of the recorded size and hash; else it is an Error naming it. On an
// Error the new folder is removed.
Expected<QString> materialize(const QString &objectsDir, const QString &tree, const QString &parentDir,
                              const QString &ownSource);

// Takes the snapshot of `sourceDir` into the store at `objectsDir`: every file not excluded.
Expected<Snapshot> takeSnapshot(const QString &objectsDir, const QString &sourceDir, const SourceExcludes &excludes);

} // namespace ferry::snapshot
