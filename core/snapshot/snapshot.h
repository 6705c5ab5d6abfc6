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
#include <QString>

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
    Expected<QByteArray> get(const QString &hash) const;
    Expected<QList<TreeEntry>> tree(const QString &hash) const;
    // Every file and link under a tree, by its '/'-separated path.
    Expected<QMap<QString, TreeEntry>> files(const QString &tree) const;

private:
    QString m_dir;
};

// The objects folder of a workspace whose runs are in `runsDir` (<root>/.ferry/runs).
QString objectsDirFor(const QString &runsDir);
// Its inverse: the runs folder beside an object store.
QString runsDirFor(const QString &objectsDir);

// Where a rerun of a run from `sourceDir` gets the code of its snapshot `tree`: beside the
// source folder (so relative paths such as ../data mean what they meant), hidden and named by
// the tree (`.NAME-ferry-TREE12`; two reruns of the same code share it).
QString rerunSourceDir(const QString &sourceDir, const QString &tree);
// Writes the files of `tree` into `target` (made if missing; one that holds this tree already,
// by its marker file, is used as it is). A file over 32 MiB whose bytes were not kept is taken
// from `originalSource` when its bytes there are still the same, else it is an Error naming it.
Expected<void> materialize(const QString &objectsDir, const QString &tree, const QString &target,
                           const QString &originalSource);

// Takes the snapshot of `sourceDir` into the store at `objectsDir`: every file not excluded.
Expected<Snapshot> takeSnapshot(const QString &objectsDir, const QString &sourceDir, const SourceExcludes &excludes);

} // namespace ferry::snapshot
