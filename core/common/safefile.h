// File operations that never follow a link at the file's name, for folders untrusted code can write
// (run folders, downloads).
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>

#include <optional>

#include <sys/types.h>

namespace ferry {

// Files in folders that something untrusted can write: a container run's mounts, what a
// remote host sent back, a downloaded archive's temp folder. These helpers never follow a
// symbolic link at the file's own name (O_NOFOLLOW) and refuse what is not a regular file, so
// a link planted there can neither redirect a write nor make Ferry read another file.
// The folders above the name are trusted: callers pass paths whose parents Ferry made.
// (docs/security.md: the threat model.) A path holding a NUL character is refused by each of
// them, never cut at the NUL.

// Whether `name` is one name in a folder: not empty, not "." or "..", without '/' or NUL.
bool isSingleName(QStringView name);
// Whether `path` is a relative path of such names, '/'-separated ("a/b.py"; not "/a", "a//b", "../a").
bool isPathOfNames(QStringView path);

// What is at a path, by lstat(2): a link is a link, not what it points to.
enum class EntryKind { Missing, RegularFile, Directory, Symlink, Other };
EntryKind entryKind(const QString &path);

// Reads a regular file, at most `maxBytes` (more is refused, not cut). Missing: nullopt.
// A link, folder, pipe or device at the name is refused with an Error naming it.
Expected<std::optional<QByteArray>> readRegularFile(const QString &path, qint64 maxBytes);

// The same, but a larger file is not refused: its first `maxBytes` are returned.
Expected<std::optional<QByteArray>> readRegularFileHead(const QString &path, qint64 maxBytes);

// Creates `path` new (O_CREAT | O_EXCL | O_NOFOLLOW) with `mode` and writes `bytes`, synced.
// Anything already at the name, a link included, is refused.
Expected<void> createNewFile(const QString &path, const QByteArray &bytes, mode_t mode = 0600);

// Opens `path` as a new file for writing (O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC): the file
// descriptor, for writers that take one (libarchive). The caller closes it.
Expected<int> openNewFile(const QString &path, mode_t mode = 0600);

// Creates the file `relative` ('/'-separated, no '.', '..' or empty part) new beneath the folder
// `root` (which Ferry made) with `mode`, and writes `bytes`: each folder on the way opened from its
// parent's descriptor without following a link (made 0700 when missing), the file created with
// O_EXCL | O_NOFOLLOW. A link anywhere on the way, or anything at the name, is refused: nothing
// is written outside `root` (review H2).
Expected<void> createNewFileBeneath(const QString &root, const QString &relative, const QByteArray &bytes,
                                    mode_t mode = 0600);

// Replaces `path` atomically: a new temp file beside it with an unpredictable name (created as
// above), synced, then rename(2), which replaces a link at `path` itself, never its target.
Expected<void> replaceFileSafely(const QString &path, const QByteArray &bytes, mode_t mode = 0644);

// Appends to `path`, creating it if missing; a link or non-regular file at the name is refused.
Expected<void> appendToFileSafely(const QString &path, const QByteArray &bytes, mode_t mode = 0644);

// `path` + ".tmp-" + 12 random characters: a temp name another process cannot guess to plant a
// link at. Crash leftovers match `*.tmp-*`.
QString unpredictableTempName(const QString &path);

} // namespace ferry
