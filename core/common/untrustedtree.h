// Lists and reads a folder tree that untrusted code writes, opening every level with openat(2) so
// no link is followed.
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QList>
#include <QString>

#include <functional>
#include <optional>

struct stat;

namespace ferry {

// A folder tree that something untrusted writes while Ferry reads it: a run's working folder,
// its model/, output/ and checkpoints/ folders (a container's script writes there as root).
// Nothing here follows a symbolic link, at any level: every folder is opened with openat(2)
// from its parent's descriptor, O_NOFOLLOW | O_DIRECTORY, so a link planted anywhere (even
// swapped in between a listing and a read) can neither widen the walk nor make Ferry read a
// file outside the tree. Only `root` itself is trusted (Ferry made it).

struct TreeFile {
    QString path; // relative to the root, '/'-separated
    qint64 size = 0;
    qint64 modifiedMs = 0;
};

struct TreeLimits {
    int maxDepth = 8;             // folders below the root
    qsizetype maxEntries = 20000; // entries looked at in one walk; the rest are not listed
};

// The regular files below `root` whose name `wanted` accepts (nullptr: every file), in no
// particular order. Links, devices and pipes are skipped; a folder that cannot be opened is
// skipped. A missing root lists nothing.
QList<TreeFile> listRegularFiles(const QString &root, const std::function<bool(QStringView name)> &wanted,
                                 TreeLimits limits = {});

// Up to `maxBytes` of the regular file at `path` (relative to `root`) from byte `offset`;
// nullopt when it is missing. A link or a non-regular file anywhere on the path is an Error.
Expected<std::optional<QByteArray>> readTreeFile(const QString &root, const QString &path, qint64 offset,
                                                 qint64 maxBytes);

// The modification time of a file whose stat() or lstat() filled `st`, in milliseconds since the
// epoch (one rule for every walk that compares file ages).
qint64 modifiedMs(const struct stat &st);

} // namespace ferry
