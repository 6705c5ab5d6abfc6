#include "run/archive.h"

#include "common/safefile.h"

#include <QDateTime>
#include <QDir>
#include <QDirIterator>
#include <QFile>

#include <archive.h>
#include <archive_entry.h>

#include <cerrno>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

constexpr qint64 kChunk = 256 * 1024;

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

Expected<void> copyFileData(archive *a, int fd, const QString &path, qint64 size)
{
    QByteArray buffer(kChunk, Qt::Uninitialized);
    qint64 left = size; // the header promised this many bytes; libarchive pads if the file shrank
    while (left > 0) {
        const ssize_t n = ::read(fd, buffer.data(), static_cast<size_t>(std::min(left, kChunk)));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return posixError(path, u"cannot read"_s);
        if (n == 0)
            break;
        if (archive_write_data(a, buffer.constData(), static_cast<size_t>(n)) < 0)
            return archiveError(a, path, u"cannot add to the archive"_s);
        left -= n;
    }
    return {};
}

Expected<void> writeFileData(archive *a, const QString &path, qint64 size)
{
    // O_NOFOLLOW: a file swapped for a link after it was listed is refused, not followed.
    const int fd = ::open(QFile::encodeName(path).constData(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return posixError(path, u"cannot read"_s);
    struct stat st {};
    const Expected<void> copied =
        ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)
            ? copyFileData(a, fd, path, size)
            : Expected<void>(Error{u"changed while it was packed: no longer a regular file"_s, path, 0, 0, {}});
    ::close(fd);
    return copied;
}

// `dir` empty: an archive with no entries.
Expected<void> writeArchive(const QString &dir, const QString &temp, int fd)
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

    for (const QString &relative : dir.isEmpty() ? QStringList() : entriesBelow(dir)) {
        const QString absolute = QDir(dir).filePath(relative);
        const QByteArray source = QFile::encodeName(absolute);
        Entry entry(archive_entry_new());
        archive_entry_copy_sourcepath(entry.get(), source.constData());
        if (archive_read_disk_entry_from_file(disk.get(), entry.get(), -1, nullptr) < ARCHIVE_WARN)
            return archiveError(disk.get(), absolute, u"cannot read"_s);
        archive_entry_update_pathname_utf8(entry.get(), relative.toUtf8().constData());
        if (archive_write_header(a.get(), entry.get()) < ARCHIVE_WARN)
            return archiveError(a.get(), absolute, u"cannot add to the archive"_s);
        if (archive_entry_filetype(entry.get()) == AE_IFREG && archive_entry_size(entry.get()) > 0) {
            const auto data = writeFileData(a.get(), absolute, archive_entry_size(entry.get()));
            if (!data)
                return data;
        }
    }
    if (archive_write_close(a.get()) != ARCHIVE_OK)
        return archiveError(a.get(), temp, u"cannot finish the archive"_s);
    return {};
}

// Writes the archive of `dir` (empty: none) to a new file of unpredictable name beside
// `archivePath` (created O_EXCL | O_NOFOLLOW: a link planted at a guessed name redirects
// nothing), syncs it and renames it into place.
Expected<void> writeArchiveInPlace(const QString &dir, const QString &archivePath)
{
    const QString temp = unpredictableTempName(archivePath);
    const auto fd = openNewFile(temp, 0644);
    if (!fd)
        return fd.error();
    auto written = writeArchive(dir, temp, *fd);
    if (written && ::fsync(*fd) != 0)
        written = posixError(temp, u"cannot write to disk"_s);
    if (::close(*fd) != 0 && written)
        written = posixError(temp, u"cannot write to disk"_s);
    if (written && ::rename(QFile::encodeName(temp).constData(), QFile::encodeName(archivePath).constData()) != 0)
        written = posixError(archivePath, u"cannot rename into place"_s);
    if (!written)
        ::unlink(QFile::encodeName(temp).constData());
    return written;
}

ReadArchive openForReading(const QString &archivePath, Error *error)
{
    ReadArchive a(archive_read_new());
    archive_read_support_filter_all(a.get());
    archive_read_support_format_all(a.get());
    if (archive_read_open_filename(a.get(), QFile::encodeName(archivePath).constData(), kChunk) != ARCHIVE_OK) {
        *error = archiveError(a.get(), archivePath, u"cannot open the archive"_s);
        return nullptr;
    }
    return a;
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

Expected<void> packDirectory(const QString &dir, const QString &archivePath)
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
    return writeArchiveInPlace(dir, archivePath);
}

Expected<void> packEmptyArchive(const QString &archivePath)
{
    return writeArchiveInPlace({}, archivePath);
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
        return archiveError(a.get(), archivePath, u"damaged archive"_s);
    return names;
}

Expected<QByteArray> readArchiveFile(const QString &archivePath, const QString &name, qint64 maxBytes)
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
        if (archive_entry_size(entry) > maxBytes)
            return Error{u"'%1' is too large to read (%2 bytes)"_s.arg(name).arg(archive_entry_size(entry)),
                         archivePath, 0, 0, u"unpack the archive instead"_s};
        QByteArray content(static_cast<qsizetype>(archive_entry_size(entry)), Qt::Uninitialized);
        qsizetype done = 0;
        while (done < content.size()) {
            const la_ssize_t n =
                archive_read_data(a.get(), content.data() + done, static_cast<size_t>(content.size() - done));
            if (n < 0)
                return archiveError(a.get(), archivePath, u"damaged archive"_s);
            if (n == 0)
                break;
            done += n;
        }
        content.truncate(done);
        return content;
    }
    if (r != ARCHIVE_EOF)
        return archiveError(a.get(), archivePath, u"damaged archive"_s);
    return Error{u"no file '%1' in the archive"_s.arg(name), archivePath, 0, 0, {}};
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
        else
            added = copyFileData(m_archive, fd, path, qint64(st.st_size));
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
        return archiveError(m_archive, m_path, u"damaged archive"_s);
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
