#include "run/archive.h"

#include "common/safefile.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cerrno>
#include <fcntl.h>
#include <functional>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qint64 kArchiveChunk = 256 * 1024;

struct WriteDeleter {
    void operator()(archive *a) const { archive_write_free(a); }
};
struct ReadDeleter {
    void operator()(archive *a) const { archive_read_free(a); }
};
struct EntryDeleter {
    void operator()(archive_entry *e) const { archive_entry_free(e); }
};
using WriteArchive = std::unique_ptr<archive, WriteDeleter>;
using ReadArchive = std::unique_ptr<archive, ReadDeleter>;
using Entry = std::unique_ptr<archive_entry, EntryDeleter>;

Error archiveError(archive *a, const QString &path, const QString &what)
{
    const char *text = archive_error_string(a);
    return Error{what + u": "_s + (text ? QString::fromLocal8Bit(text) : u"unknown libarchive error"_s), path, 0, 0,
                 u"check free disk space and permissions"_s};
}

Error posixError(const QString &path, const QString &what)
{
    return Error{what + u": "_s + errnoText(), path, 0, 0, u"check free disk space and permissions"_s};
}

// Every entry below `dir`, sorted so that the same folder always gives the same archive.
QStringList entriesBelow(const QString &dir)
{
    QStringList paths;
    QDirIterator it(dir, QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden | QDir::System,
                    QDirIterator::Subdirectories);
    while (it.hasNext())
        paths << QDir(dir).relativeFilePath(it.next());
    paths.sort();
    return paths;
}

// A file's data extents (offset, length), found with SEEK_DATA and SEEK_HOLE. One extent over all
// of it where the file system cannot tell, or where the file is cut into so many pieces that its
// map would cost more than reading its holes (its size is bounded by PackLimits::maxFileBytes).
using Extents = QList<std::pair<qint64, qint64>>;
constexpr qsizetype kMostExtents = 4096;

Extents dataExtents(int fd, qint64 size)
{
    const Extents whole{{0, size}};
    Extents extents;
    for (qint64 at = 0; at < size;) {
        const off_t data = ::lseek(fd, at, SEEK_DATA);
        if (data < 0)
            return errno == ENXIO ? extents : whole; // ENXIO: only a hole after `at`
        if (data >= size)
            break;
        off_t hole = ::lseek(fd, data, SEEK_HOLE);
        if (hole < 0 || hole > size)
            hole = size;
        if (hole <= data || extents.size() == kMostExtents)
            return whole;
        extents.append({qint64(data), qint64(hole) - data});
        at = hole;
    }
    return extents;
}

// Whether packing is to stop now.
bool stopRequested(const PackLimits &limits)
{
    return limits.cancelled && limits.cancelled();
}

// `length` zero bytes: a hole of a sparse entry, which the pax writer counts and skips (nothing
// is compressed or written), or the padding of a file that shrank while it was packed.
Expected<void> writeZeros(archive *a, const QString &path, qint64 length, const PackLimits &limits, bool &cancelled)
{
    static const QByteArray zeros(1 << 20, '\0');
    for (qint64 n = 0; length > 0; ++n) {
        if (n % 256 == 0 && stopRequested(limits)) {
            cancelled = true;
            return {};
        }
        const qint64 step = std::min<qint64>(length, zeros.size());
        if (archive_write_data(a, zeros.constData(), static_cast<size_t>(step)) < 0)
            return archiveError(a, path, u"cannot add to the archive"_s);
        length -= step;
    }
    return {};
}

// The bytes of `fd` from `offset`, `length` of them; what a file that shrank no longer has is
// written as zeros (the header promised that many bytes).
Expected<void> copyExtent(archive *a, int fd, const QString &path, qint64 offset, qint64 length,
                          const PackLimits &limits, bool &cancelled)
{
    QByteArray buffer(kArchiveChunk, Qt::Uninitialized);
    while (length > 0) {
        if (stopRequested(limits)) {
            cancelled = true;
            return {};
        }
        const ssize_t n = ::pread(fd, buffer.data(), static_cast<size_t>(std::min(length, kArchiveChunk)),
                                  static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return posixError(path, u"cannot read"_s);
        if (n == 0)
            return writeZeros(a, path, length, limits, cancelled);
        if (archive_write_data(a, buffer.constData(), static_cast<size_t>(n)) < 0)
            return archiveError(a, path, u"cannot add to the archive"_s);
        offset += n;
        length -= n;
    }
    return {};
}

// The file's bytes as `extents` has them, the gaps between them as holes.
Expected<void> copyFileData(archive *a, int fd, const QString &path, qint64 size, const Extents &extents,
                            const PackLimits &limits, bool &cancelled)
{
    qint64 at = 0;
    for (const auto &[offset, length] : extents) {
        auto copied = writeZeros(a, path, offset - at, limits, cancelled);
        if (copied && !cancelled)
            copied = copyExtent(a, fd, path, offset, length, limits, cancelled);
        if (!copied || cancelled)
            return copied;
        at = offset + length;
    }
    return writeZeros(a, path, size - at, limits, cancelled);
}

// The extents a regular file's entry declares: none (it is stored whole) when it has no hole;
// with holes, its data extents, and one of no length at its end when it is all hole (libarchive
// stores an entry with an empty map whole).
Extents setSparseMap(archive_entry *entry, const Extents &extents, qint64 size)
{
    archive_entry_sparse_clear(entry);
    qint64 data = 0;
    for (const auto &extent : extents)
        data += extent.second;
    if (data == size)
        return {{0, size}};
    for (const auto &[offset, length] : extents)
        archive_entry_sparse_add_entry(entry, offset, length);
    if (extents.isEmpty())
        archive_entry_sparse_add_entry(entry, size, 0);
    return extents;
}

// Closes a descriptor at the end of a scope.
struct Descriptor {
    int fd = -1;
    ~Descriptor()
    {
        if (fd >= 0)
            ::close(fd);
    }
};

// One entry of the folder being packed: what is at `relative` now, never read through a link.
Expected<void> addEntry(archive *a, archive *disk, const QString &dir, const QString &relative,
                        const PackLimits &limits, PackResult &result)
{
    const QString absolute = QDir(dir).filePath(relative);
    const QByteArray source = QFile::encodeName(absolute);
    struct stat st {};
    if (::lstat(source.constData(), &st) != 0)
        return posixError(absolute, u"cannot read"_s);
    Descriptor file;
    if (S_ISREG(st.st_mode)) {
        // O_NOFOLLOW: a file swapped for a link after it was listed is refused, not followed.
        file.fd = ::open(source.constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (file.fd < 0)
            return posixError(absolute, u"cannot read"_s);
        if (::fstat(file.fd, &st) != 0 || !S_ISREG(st.st_mode))
            return Error{u"changed while it was packed: no longer a regular file"_s, absolute, 0, 0, {}};
        if (st.st_size > limits.maxFileBytes) {
            result.tooLarge.append({relative, qint64(st.st_size)});
            return {};
        }
    }
    Entry entry(archive_entry_new());
    archive_entry_copy_sourcepath(entry.get(), source.constData());
    if (archive_read_disk_entry_from_file(disk, entry.get(), file.fd, &st) < ARCHIVE_WARN)
        return archiveError(disk, absolute, u"cannot read"_s);
    archive_entry_update_pathname_utf8(entry.get(), relative.toUtf8().constData());
    const bool hasData = file.fd >= 0 && st.st_size > 0;
    const Extents extents =
        hasData ? setSparseMap(entry.get(), dataExtents(file.fd, st.st_size), st.st_size) : Extents{};
    if (!hasData)
        archive_entry_sparse_clear(entry.get());
    if (archive_write_header(a, entry.get()) < ARCHIVE_WARN)
        return archiveError(a, absolute, u"cannot add to the archive"_s);
    if (!hasData)
        return {};
    return copyFileData(a, file.fd, absolute, st.st_size, extents, limits, result.cancelled);
}

// `dir` empty: an archive with no entries.
Expected<void> writeArchive(const QString &dir, const QString &temp, int fd, const PackLimits &limits,
                            PackResult &result)
{
    WriteArchive a(archive_write_new());
    ReadArchive disk(archive_read_disk_new());
    if (!a || !disk)
        return Error{u"out of memory creating an archive"_s, temp, 0, 0, {}};
    if (archive_write_add_filter_gzip(a.get()) != ARCHIVE_OK ||
        archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
        archive_write_open_fd(a.get(), fd) != ARCHIVE_OK)
        return archiveError(a.get(), temp, u"cannot create the archive"_s);
    archive_read_disk_set_symlink_physical(disk.get());
    archive_read_disk_set_standard_lookup(disk.get());
    // The holes are found here, on the descriptor that is read (setSparseMap).
    archive_read_disk_set_behavior(disk.get(), ARCHIVE_READDISK_NO_SPARSE);

    for (const QString &relative : dir.isEmpty() ? QStringList() : entriesBelow(dir)) {
        if (!result.cancelled && stopRequested(limits))
            result.cancelled = true;
        if (result.cancelled)
            return {};
        if (auto added = addEntry(a.get(), disk.get(), dir, relative, limits, result); !added)
            return added;
    }
    if (result.cancelled || stopRequested(limits)) {
        result.cancelled = true;
        return {};
    }
    if (archive_write_close(a.get()) != ARCHIVE_OK)
        return archiveError(a.get(), temp, u"cannot finish the archive"_s);
    return {};
}

// Writes the archive of `dir` (empty: none) to a new file of unpredictable name beside
// `archivePath` (created O_EXCL | O_NOFOLLOW: a link planted at a guessed name redirects
// nothing), syncs it and renames it into place. Cancelled, it writes nothing and says so.
Expected<PackResult> writeArchiveInPlace(const QString &dir, const QString &archivePath, const PackLimits &limits)
{
    const QString temp = unpredictableTempName(archivePath);
    const auto fd = openNewFile(temp, 0644);
    if (!fd)
        return fd.error();
    PackResult result;
    auto written = writeArchive(dir, temp, *fd, limits, result);
    if (written && !result.cancelled && ::fsync(*fd) != 0)
        written = posixError(temp, u"cannot write to disk"_s);
    if (::close(*fd) != 0 && written)
        written = posixError(temp, u"cannot write to disk"_s);
    if (written && !result.cancelled &&
        ::rename(QFile::encodeName(temp).constData(), QFile::encodeName(archivePath).constData()) != 0)
        written = posixError(archivePath, u"cannot rename into place"_s);
    if (!written || result.cancelled)
        ::unlink(QFile::encodeName(temp).constData());
    if (!written)
        return written.error();
    return result;
}

// Why an archive could not be opened or its next header read: one of another format (none was
// recognised, so nothing of it was parsed) is named so, anything else is `what` (damage, a file
// that cannot be read).
Error readingError(archive *a, const QString &archivePath, const QString &what)
{
    // libarchive's ARCHIVE_ERRNO_FILE_FORMAT (archive_private.h) is EILSEQ.
    if (archive_format(a) == 0 && archive_errno(a) == EILSEQ)
        return Error{u"not a gzip-compressed tar, the only archive format Ferry reads"_s, archivePath, 0, 0,
                     u"give a model.tar.gz or a run bundle made by Ferry (zip, 7z, xz and others are refused)"_s};
    return archiveError(a, archivePath, what);
}

// Only the format Ferry writes and documents: tar (ustar, pax, GNU), gzip-compressed or not
// (review L4). Every other reader of libarchive (zip, 7-Zip, RAR, ISO, CAB, cpio, mtree, ...)
// stays out of reach of an archive from elsewhere.
ReadArchive openForReading(const QString &archivePath, Error *error)
{
    ReadArchive a(archive_read_new());
    if (!a) {
        *error = Error{u"out of memory opening an archive"_s, archivePath, 0, 0, {}};
        return nullptr;
    }
    archive_read_support_filter_gzip(a.get());
    archive_read_support_format_tar(a.get());
    if (archive_read_open_filename(a.get(), QFile::encodeName(archivePath).constData(), kArchiveChunk) != ARCHIVE_OK) {
        *error = readingError(a.get(), archivePath, u"cannot open the archive"_s);
        return nullptr;
    }
    return a;
}

// Why the next header could not be read.
Error headerError(archive *a, const QString &archivePath)
{
    return readingError(a, archivePath, u"damaged archive"_s);
}

// Reading: an entry name must stay inside the archive's folder (relative, no `..`). Ferry never
// extracts archives, but a name is compared with what model.json asks for, and must never be
// one that, joined to a folder, leads out of it (security review H2).
bool staysInside(const QString &name)
{
    if (name.isEmpty() || name.startsWith(u'/'))
        return false;
    const QStringList parts = name.split(u'/');
    return !parts.contains(u".."_s);
}

QString entryName(archive_entry *entry)
{
    const char *utf8 = archive_entry_pathname_utf8(entry);
    return utf8 ? QString::fromUtf8(utf8) : QFile::decodeName(archive_entry_pathname(entry));
}

Error outsideError(const QString &name, const QString &archivePath)
{
    return Error{u"the archive holds an entry named '%1', which leads out of its folder: refused"_s.arg(name),
                 archivePath, 0, 0, u"this archive was not made by Ferry, or it was altered: do not use it"_s};
}

} // namespace

Expected<PackResult> packDirectory(const QString &dir, const QString &archivePath, const PackLimits &limits)
{
    // lstat: a link at the folder's own name is refused, never packed through (review H1).
    switch (entryKind(dir)) {
    case EntryKind::Directory:
        break;
    case EntryKind::Missing:
        return Error{u"no such folder"_s, dir, 0, 0, {}};
    case EntryKind::Symlink:
        return Error{u"is a symbolic link, not a folder: nothing is packed through it"_s, dir, 0, 0, {}};
    default:
        return Error{u"is not a folder"_s, dir, 0, 0, {}};
    }
    // Two packers racing each write their own temp file; the last rename wins, same content.
    return writeArchiveInPlace(dir, archivePath, limits);
}

Expected<void> packEmptyArchive(const QString &archivePath)
{
    if (const auto written = writeArchiveInPlace({}, archivePath, {}); !written)
        return written.error();
    return {};
}

Expected<QStringList> archiveEntries(const QString &archivePath)
{
    Error error;
    ReadArchive a = openForReading(archivePath, &error);
    if (!a)
        return error;
    QStringList names;
    archive_entry *entry = nullptr;
    int r = ARCHIVE_OK;
    while ((r = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
        names << entryName(entry);
        if (!staysInside(names.last()))
            return outsideError(names.last(), archivePath);
        if (archive_read_data_skip(a.get()) != ARCHIVE_OK)
            return archiveError(a.get(), archivePath, u"damaged archive"_s);
    }
    if (r != ARCHIVE_EOF)
        return headerError(a.get(), archivePath);
    return names;
}

namespace {

// Finds the regular file `name` in the archive and hands its bytes to `sink` as they are read,
// at most `maxBytes` of them (by the header's word first, then by what really comes).
Expected<void> readEntry(const QString &archivePath, const QString &name, qint64 maxBytes,
                         const std::function<Expected<void>(const char *, qint64)> &sink)
{
    Error error;
    ReadArchive a = openForReading(archivePath, &error);
    if (!a)
        return error;
    if (!staysInside(name))
        return outsideError(name, archivePath);
    archive_entry *entry = nullptr;
    int r = ARCHIVE_OK;
    while ((r = archive_read_next_header(a.get(), &entry)) == ARCHIVE_OK) {
        const QString found = entryName(entry);
        if (!staysInside(found))
            return outsideError(found, archivePath);
        if (found != name) {
            if (archive_read_data_skip(a.get()) != ARCHIVE_OK)
                return archiveError(a.get(), archivePath, u"damaged archive"_s);
            continue;
        }
        // Links are never followed: a symbolic or hard link at the name is not its content.
        if (archive_entry_filetype(entry) != AE_IFREG || archive_entry_hardlink(entry) || archive_entry_symlink(entry))
            return Error{u"'%1' in the archive is a link or a folder, not a file: refused"_s.arg(name), archivePath, 0,
                         0, u"this archive was not made by Ferry, or it was altered: do not use it"_s};
        const auto tooLarge = [&](qint64 size) {
            return Error{u"'%1' is too large to read (%2 bytes, at most %3)"_s.arg(name).arg(size).arg(maxBytes),
                         archivePath, 0, 0, u"unpack the archive instead"_s};
        };
        if (archive_entry_size(entry) > maxBytes)
            return tooLarge(archive_entry_size(entry));
        QByteArray buffer(kArchiveChunk, Qt::Uninitialized);
        qint64 done = 0;
        for (;;) {
            const la_ssize_t n = archive_read_data(a.get(), buffer.data(), size_t(buffer.size()));
            if (n < 0)
                return archiveError(a.get(), archivePath, u"damaged archive"_s);
            if (n == 0)
                return {};
            done += n;
            if (done > maxBytes)
                return tooLarge(done);
            if (auto taken = sink(buffer.constData(), n); !taken)
                return taken;
        }
    }
    if (r != ARCHIVE_EOF)
        return headerError(a.get(), archivePath);
    return Error{u"no file '%1' in the archive"_s.arg(name), archivePath, 0, 0, {}};
}

} // namespace

Expected<QByteArray> readArchiveFile(const QString &archivePath, const QString &name, qint64 maxBytes)
{
    QByteArray content; // grows with what is read, never with what a header declares
    const auto read = readEntry(archivePath, name, maxBytes, [&content](const char *bytes, qint64 n) {
        content.append(bytes, n);
        return Expected<void>();
    });
    if (!read)
        return read.error();
    return content;
}

Expected<qint64> copyArchiveFile(const QString &archivePath, const QString &name, const QString &destination,
                                 qint64 maxBytes)
{
    const auto fd = openNewFile(destination, 0600);
    if (!fd)
        return fd.error();
    qint64 written = 0;
    auto copied = readEntry(archivePath, name, maxBytes, [&](const char *bytes, qint64 n) -> Expected<void> {
        for (qint64 done = 0; done < n;) {
            const ssize_t w = ::write(*fd, bytes + done, static_cast<size_t>(n - done));
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0)
                return posixError(destination, u"cannot write"_s);
            done += w;
        }
        written += n;
        return {};
    });
    if (copied && ::fsync(*fd) != 0)
        copied = posixError(destination, u"cannot write to disk"_s);
    if (::close(*fd) != 0 && copied)
        copied = posixError(destination, u"cannot write to disk"_s);
    if (!copied) {
        ::unlink(QFile::encodeName(destination).constData());
        return copied.error();
    }
    return written;
}

// ---- ArchiveWriter

ArchiveWriter::ArchiveWriter(QString archivePath, QString temp, int fd, archive *writer)
    : m_path(std::move(archivePath)), m_temp(std::move(temp)), m_fd(fd), m_archive(writer)
{
}

ArchiveWriter::~ArchiveWriter()
{
    if (m_archive)
        archive_write_free(m_archive); // closes what is open; the file descriptor is ours
    if (m_fd >= 0)
        ::close(m_fd);
    if (!m_committed)
        ::unlink(QFile::encodeName(m_temp).constData());
}

Expected<std::unique_ptr<ArchiveWriter>> ArchiveWriter::create(const QString &archivePath)
{
    const QString temp = unpredictableTempName(archivePath);
    const auto fd = openNewFile(temp, 0644);
    if (!fd)
        return fd.error();
    archive *a = archive_write_new();
    std::unique_ptr<ArchiveWriter> writer(new ArchiveWriter(archivePath, temp, *fd, a));
    if (!a)
        return Error{u"out of memory creating an archive"_s, temp, 0, 0, {}};
    if (archive_write_add_filter_gzip(a) != ARCHIVE_OK || archive_write_set_format_pax_restricted(a) != ARCHIVE_OK ||
        archive_write_open_fd(a, *fd) != ARCHIVE_OK)
        return archiveError(a, temp, u"cannot create the archive"_s);
    return writer;
}

namespace {

Entry fileEntry(const QString &name, qint64 size, qint64 modifiedSeconds)
{
    Entry entry(archive_entry_new());
    archive_entry_update_pathname_utf8(entry.get(), name.toUtf8().constData());
    archive_entry_set_filetype(entry.get(), AE_IFREG);
    archive_entry_set_perm(entry.get(), 0644);
    archive_entry_set_size(entry.get(), size);
    archive_entry_set_mtime(entry.get(), modifiedSeconds, 0);
    return entry;
}

} // namespace

Expected<void> ArchiveWriter::addBytes(const QString &name, const QByteArray &bytes)
{
    const Entry entry = fileEntry(name, bytes.size(), QDateTime::currentSecsSinceEpoch());
    if (archive_write_header(m_archive, entry.get()) < ARCHIVE_WARN ||
        archive_write_data(m_archive, bytes.constData(), size_t(bytes.size())) < 0)
        return archiveError(m_archive, m_temp, u"cannot add %1 to the archive"_s.arg(name));
    return {};
}

Expected<void> ArchiveWriter::addFile(const QString &name, const QString &path)
{
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return posixError(path, u"cannot read"_s);
    struct stat st {};
    Expected<void> added;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        added = Error{u"is not a regular file: not added to the archive"_s, path, 0, 0, {}};
    } else {
        const Entry entry = fileEntry(name, qint64(st.st_size), qint64(st.st_mtim.tv_sec));
        if (archive_write_header(m_archive, entry.get()) < ARCHIVE_WARN)
            added = archiveError(m_archive, path, u"cannot add to the archive"_s);
        else {
            bool cancelled = false; // nothing cancels a bundle's writer
            added = copyFileData(m_archive, fd, path, qint64(st.st_size), {{0, qint64(st.st_size)}}, {}, cancelled);
        }
    }
    ::close(fd);
    return added;
}

Expected<void> ArchiveWriter::commit()
{
    if (archive_write_close(m_archive) != ARCHIVE_OK)
        return archiveError(m_archive, m_temp, u"cannot finish the archive"_s);
    if (::fsync(m_fd) != 0)
        return posixError(m_temp, u"cannot write to disk"_s);
    const int fd = std::exchange(m_fd, -1);
    if (::close(fd) != 0)
        return posixError(m_temp, u"cannot write to disk"_s);
    if (::rename(QFile::encodeName(m_temp).constData(), QFile::encodeName(m_path).constData()) != 0)
        return posixError(m_path, u"cannot rename into place"_s);
    m_committed = true;
    return {};
}

// ---- ArchiveReader

ArchiveReader::ArchiveReader(QString archivePath, archive *reader, ArchiveLimits limits)
    : m_path(std::move(archivePath)), m_archive(reader), m_limits(limits)
{
}

ArchiveReader::~ArchiveReader()
{
    if (m_archive)
        archive_read_free(m_archive);
}

Expected<std::unique_ptr<ArchiveReader>> ArchiveReader::open(const QString &archivePath, ArchiveLimits limits)
{
    Error error;
    ReadArchive a = openForReading(archivePath, &error);
    if (!a)
        return error;
    return std::unique_ptr<ArchiveReader>(new ArchiveReader(archivePath, a.release(), limits));
}

Expected<std::optional<ArchiveEntry>> ArchiveReader::next()
{
    archive_entry *entry = nullptr;
    const int r = archive_read_next_header(m_archive, &entry);
    if (r == ARCHIVE_EOF)
        return std::optional<ArchiveEntry>();
    if (r < ARCHIVE_WARN)
        return headerError(m_archive, m_path);
    const QString hint = u"this archive was not made by Ferry, or it was altered: do not use it"_s;
    if (++m_entries > m_limits.maxEntries)
        return Error{u"the archive holds more than %1 entries: refused"_s.arg(m_limits.maxEntries), m_path, 0, 0, hint};
    ArchiveEntry e;
    e.name = entryName(entry);
    if (!staysInside(e.name))
        return outsideError(e.name, m_path);
    e.size = archive_entry_size_is_set(entry) ? archive_entry_size(entry) : 0;
    if (archive_entry_hardlink(entry))
        e.kind = ArchiveEntry::Kind::HardLink;
    else if (archive_entry_filetype(entry) == AE_IFLNK)
        e.kind = ArchiveEntry::Kind::SymbolicLink;
    else if (archive_entry_filetype(entry) == AE_IFDIR)
        e.kind = ArchiveEntry::Kind::Folder;
    else if (archive_entry_filetype(entry) != AE_IFREG)
        e.kind = ArchiveEntry::Kind::Other;
    // The declared size is checked before a byte is read; read() counts what really comes.
    if (e.size < 0 || e.size > m_limits.maxEntryBytes || e.size > m_limits.maxTotalBytes - m_total)
        return Error{u"'%1' in the archive declares %2 bytes, more than Ferry reads from an archive (%3 in all): "
                     u"refused"_s.arg(e.name)
                         .arg(e.size)
                         .arg(m_limits.maxTotalBytes),
                     m_path, 0, 0, hint};
    m_entryRead = 0;
    m_entrySize = e.size;
    return std::optional<ArchiveEntry>(e);
}

Expected<qint64> ArchiveReader::read(char *buffer, qint64 max)
{
    const la_ssize_t n = archive_read_data(m_archive, buffer, size_t(max));
    if (n < 0)
        return archiveError(m_archive, m_path, u"damaged archive"_s);
    m_entryRead += n;
    m_total += n;
    if (m_entryRead > m_entrySize || m_total > m_limits.maxTotalBytes)
        return Error{u"the archive inflates to more than it declares or Ferry reads (%1 bytes in all): refused"_s.arg(
                         m_limits.maxTotalBytes),
                     m_path, 0, 0, u"this archive was not made by Ferry, or it was altered: do not use it"_s};
    return qint64(n);
}

} // namespace ferry::run
