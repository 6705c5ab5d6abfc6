// Packing a run's folders into gzip-compressed tar archives (model.tar.gz, output.tar.gz).
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>
#include <optional>

struct archive;

namespace ferry::run {

// What packing a run's folder may take (review L1: a run can make a file of 8 TiB that holds
// nothing). A regular file larger than `maxFileBytes` (its apparent size: what the entry would
// inflate to) is left out, and said in the result. `cancelled`, when set, is asked between chunks:
// true stops packing at once.
struct PackLimits {
    static constexpr qint64 kDefaultMaxFileBytes = qint64(16) << 30;
    qint64 maxFileBytes = kDefaultMaxFileBytes;
    std::function<bool()> cancelled;
};

// What packing did not put into the archive.
struct PackResult {
    struct LeftOut {
        QString name; // relative to the packed folder
        qint64 bytes = 0;
    };
    QList<LeftOut> tooLarge; // regular files over PackLimits::maxFileBytes
    bool cancelled = false;  // stopped by PackLimits::cancelled: no archive was written
};

// Packs what is inside `dir` into a gzip-compressed tar at `archivePath`, entry names relative
// to `dir` (as SageMaker's model.tar.gz: `model.pth` at the top). Symbolic links are stored
// as links, never followed. The archive is written beside and renamed into place, so
// `archivePath` is either absent or complete. Files are streamed: memory stays small. A file
// with holes (SEEK_DATA, SEEK_HOLE) is stored sparse (GNU tar's pax format 1.0): its holes are
// neither read nor compressed, and a reader gets them back as zeros.
// `dir` itself must be a folder, not a link to one (lstat). The temp file has an unpredictable
// name and is created without following links (common/safefile.h).
Expected<PackResult> packDirectory(const QString &dir, const QString &archivePath, const PackLimits &limits = {});
// The same with no entries: what a run gets for a folder that could not be packed.
Expected<void> packEmptyArchive(const QString &archivePath);

// Reading never extracts and never follows a link. Ferry reads one archive format: tar
// (ustar, pax, GNU), gzip-compressed or not; anything else (zip, 7-Zip, RAR, ISO, cpio, mtree,
// xz, ...) is refused as "not a gzip-compressed tar" before any of it is parsed (review L4). An
// entry whose name leads out of a folder (absolute, or with a `..` part) makes the archive refused.
// The entry names of a tar.gz (folders end in '/'), in archive order.
Expected<QStringList> archiveEntries(const QString &archivePath);
// The content of one regular file in a tar.gz, refused if it is over `maxBytes`, or if the
// entry at that name is a link (symbolic or hard) or a folder. Memory grows with the bytes
// really read, never with what the entry's header declares (review L2).
Expected<QByteArray> readArchiveFile(const QString &archivePath, const QString &entry,
                                     qint64 maxBytes = 64 * 1024 * 1024);
// The same streamed into a new file at `destination` (created O_EXCL | O_NOFOLLOW, 0600; removed
// again when anything fails): for entries too large to hold in memory. Returns the bytes written.
Expected<qint64> copyArchiveFile(const QString &archivePath, const QString &entry, const QString &destination,
                                 qint64 maxBytes);

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
