#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

namespace ferry::run {

// Packs what is inside `dir` into a gzip-compressed tar at `archivePath`, entry names relative
// to `dir` (as SageMaker's model.tar.gz: `model.pth` at the top). Symbolic links are stored
// as links, never followed. The archive is written beside and renamed into place, so
// `archivePath` is either absent or complete. Files are streamed: memory stays small.
// `dir` itself must be a folder, not a link to one (lstat). The temp file has an unpredictable
// name and is created without following links (common/safefile.h).
Expected<void> packDirectory(const QString &dir, const QString &archivePath);
// The same with no entries: what a run gets for a folder that could not be packed.
Expected<void> packEmptyArchive(const QString &archivePath);

// Reading never extracts and never follows a link. An entry whose name leads out of a folder
// (absolute, or with a `..` part) makes the archive refused.
// The entry names of a tar.gz (folders end in '/'), in archive order.
Expected<QStringList> archiveEntries(const QString &archivePath);
// The content of one regular file in a tar.gz, refused if it is over `maxBytes`, or if the
// entry at that name is a link (symbolic or hard) or a folder.
Expected<QByteArray> readArchiveFile(const QString &archivePath, const QString &entry,
                                     qint64 maxBytes = 64 * 1024 * 1024);

} // namespace ferry::run
