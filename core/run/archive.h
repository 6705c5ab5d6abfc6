#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>
#include <QStringList>

#include <memory>
#include <optional>

struct archive;

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

// A gzip-compressed tar written entry by entry (a run bundle, tracking/runbundle.h): regular
// files only, under the names the caller gives. Written to a temp file beside `archivePath`
// (unpredictable name, O_EXCL | O_NOFOLLOW) and renamed into place by commit(), so the archive
// is either absent or complete; a writer dropped before commit() removes its temp file.
class ArchiveWriter {
public:
    static Expected<std::unique_ptr<ArchiveWriter>> create(const QString &archivePath);
    ~ArchiveWriter();
    ArchiveWriter(const ArchiveWriter &) = delete;
    ArchiveWriter &operator=(const ArchiveWriter &) = delete;

    Expected<void> addBytes(const QString &name, const QByteArray &bytes);
    // The bytes of the regular file at `path`, streamed; a link at the name is refused (O_NOFOLLOW).
    Expected<void> addFile(const QString &name, const QString &path);
    Expected<void> commit();

private:
    ArchiveWriter(QString archivePath, QString temp, int fd, archive *writer);
    QString m_path, m_temp;
    int m_fd = -1;
    archive *m_archive = nullptr;
    bool m_committed = false;
};

// How much an archive from elsewhere may make Ferry read: entries, and bytes inflated (an entry's
// and all of them together), counted as they come, so a gzip bomb stops at the limit.
struct ArchiveLimits {
    qint64 maxEntries = 200000;
    qint64 maxEntryBytes = qint64(64) << 30;
    qint64 maxTotalBytes = qint64(64) << 30;
};

struct ArchiveEntry {
    enum class Kind { File, Folder, SymbolicLink, HardLink, Other };
    QString name;
    Kind kind = Kind::File;
    qint64 size = 0; // as its header declares it
};

// Reads an archive from elsewhere once, entry by entry, without extracting anything: the caller
// decides where each entry's bytes go. Names leading out of a folder (absolute, a `..` part) are
// refused as by archiveEntries; so are an entry over the limits (by its declared size, before
// its bytes are read, and by the bytes really inflated) and one entry too many.
class ArchiveReader {
public:
    static Expected<std::unique_ptr<ArchiveReader>> open(const QString &archivePath, ArchiveLimits limits = {});
    ~ArchiveReader();
    ArchiveReader(const ArchiveReader &) = delete;
    ArchiveReader &operator=(const ArchiveReader &) = delete;

    // The next entry; nullopt after the last.
    Expected<std::optional<ArchiveEntry>> next();
    // Up to `max` bytes of the current entry (a regular file); 0 at its end.
    Expected<qint64> read(char *buffer, qint64 max);
    qint64 totalBytes() const { return m_total; } // inflated so far

private:
    ArchiveReader(QString archivePath, archive *reader, ArchiveLimits limits);
    QString m_path;
    archive *m_archive = nullptr;
    ArchiveLimits m_limits;
    qint64 m_entries = 0, m_total = 0, m_entryRead = 0, m_entrySize = 0;
};

} // namespace ferry::run
