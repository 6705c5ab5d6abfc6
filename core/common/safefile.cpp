#include "common/safefile.h"

#include <QFile>
#include <QRandomGenerator>

#include <cerrno>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

Error refusedEntry(const QString &path, EntryKind kind)
{
    switch (kind) {
    case EntryKind::Symlink:
        return Error{u"is a symbolic link, which Ferry does not follow here"_s, path, 0, 0,
                     u"something inside the run or from the host planted it; the file itself is needed"_s};
    case EntryKind::Directory:
        return Error{u"is a folder, not a file"_s, path, 0, 0, {}};
    default:
        return Error{u"not a regular file (a device, pipe or socket)"_s, path, 0, 0, {}};
    }
}

// Writes all of `bytes` to `fd` and syncs; errno-based Error naming `path` on failure.
Expected<void> writeAll(int fd, const QByteArray &bytes, const QString &path)
{
    qsizetype done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::write(fd, bytes.constData() + done, size_t(bytes.size() - done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return Error{u"cannot write: "_s + errnoText(errno), path, 0, 0, u"check free disk space"_s};
        done += n;
    }
    if (::fsync(fd) != 0)
        return Error{u"cannot write: "_s + errnoText(errno), path, 0, 0, u"check free disk space"_s};
    return {};
}

// A path as the system takes it; one holding a NUL is refused (the system would cut the name
// there: review H2, a ".yml" suffix dropped).
Expected<QByteArray> nativePath(const QString &path)
{
    if (path.contains(QChar(0)))
        return Error{u"the path holds a NUL character"_s, QString(path).replace(QChar(0), u"\\0"_s), 0, 0,
                     u"a file name never holds one: where it came from is not to be trusted"_s};
    return QFile::encodeName(path);
}

} // namespace

bool isSingleName(QStringView name)
{
    return !name.isEmpty() && name != "."_L1 && name != ".."_L1 && !name.contains(u'/') && !name.contains(QChar(0));
}

bool isPathOfNames(QStringView path)
{
    for (const QStringView part : path.split(u'/')) {
        if (!isSingleName(part))
            return false;
    }
    return true;
}

EntryKind entryKind(const QString &path)
{
    struct stat st {};
    const auto native = nativePath(path);
    if (!native || ::lstat(native->constData(), &st) != 0)
        return EntryKind::Missing;
    if (S_ISLNK(st.st_mode))
        return EntryKind::Symlink;
    if (S_ISREG(st.st_mode))
        return EntryKind::RegularFile;
    if (S_ISDIR(st.st_mode))
        return EntryKind::Directory;
    return EntryKind::Other;
}

namespace {

// Opens `path` for `flags`, never through a link at the name (O_NOFOLLOW) nor blocking on a fifo
// (O_NONBLOCK), and only a regular file. -1: there is nothing at the name (ENOENT).
Expected<int> openRegular(const QString &path, int flags, mode_t mode, const QString &verb)
{
    const auto native = nativePath(path);
    if (!native)
        return native.error();
    const int fd = ::open(native->constData(), flags | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, mode);
    if (fd < 0) {
        const int error = errno;
        if (error == ENOENT)
            return -1;
        if (error == ELOOP)
            return refusedEntry(path, EntryKind::Symlink);
        return Error{u"cannot %1: "_s.arg(verb) + errnoText(error), path, 0, 0, {}};
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        return refusedEntry(path, S_ISDIR(st.st_mode) ? EntryKind::Directory : EntryKind::Other);
    }
    return fd;
}

// At most `maxBytes` of a regular file; more is refused (`refuseMore`) or left unread.
Expected<std::optional<QByteArray>> readRegular(const QString &path, qint64 maxBytes, bool refuseMore)
{
    const auto fd = openRegular(path, O_RDONLY, 0, u"read"_s);
    if (!fd)
        return fd.error();
    if (*fd < 0)
        return std::optional<QByteArray>();
    QByteArray bytes;
    char buffer[65536];
    for (;;) {
        const qint64 room = refuseMore ? qint64(sizeof buffer) : qMin(qint64(sizeof buffer), maxBytes - bytes.size());
        if (room <= 0)
            break;
        const ssize_t n = ::read(*fd, buffer, size_t(room));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            const int error = errno;
            ::close(*fd);
            return Error{u"cannot read: "_s + errnoText(error), path, 0, 0, {}};
        }
        if (n == 0)
            break;
        if (bytes.size() + n > maxBytes) {
            ::close(*fd);
            return Error{u"too large (more than %1 bytes)"_s.arg(maxBytes), path, 0, 0, {}};
        }
        bytes.append(buffer, n);
    }
    ::close(*fd);
    return std::optional<QByteArray>(bytes);
}

} // namespace

Expected<std::optional<QByteArray>> readRegularFile(const QString &path, qint64 maxBytes)
{
    return readRegular(path, maxBytes, true);
}

Expected<std::optional<QByteArray>> readRegularFileHead(const QString &path, qint64 maxBytes)
{
    return readRegular(path, maxBytes, false);
}

Expected<int> openNewFile(const QString &path, mode_t mode)
{
    const auto native = nativePath(path);
    if (!native)
        return native.error();
    const int fd = ::open(native->constData(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (fd < 0) {
        const int error = errno;
        if (error == EEXIST)
            return Error{u"already exists (a file or link Ferry did not make is at this name)"_s, path, 0, 0, {}};
        return Error{u"cannot create: "_s + errnoText(error), path, 0, 0,
                     u"check that the folder exists and is writable"_s};
    }
    return fd;
}

Expected<void> createNewFile(const QString &path, const QByteArray &bytes, mode_t mode)
{
    const auto fd = openNewFile(path, mode);
    if (!fd)
        return fd.error();
    const auto written = writeAll(*fd, bytes, path);
    ::close(*fd);
    if (!written)
        ::unlink(QFile::encodeName(path).constData());
    return written;
}

Expected<void> createNewFileBeneath(const QString &root, const QString &relative, const QByteArray &bytes, mode_t mode)
{
    const QString path = root + u'/' + relative;
    if (!isPathOfNames(relative))
        return Error{u"'%1' is not a path inside its folder"_s.arg(relative), root, 0, 0,
                     u"where it came from is not to be trusted"_s};
    const QStringList parts = relative.split(u'/');
    const auto native = nativePath(root);
    if (!native)
        return native.error();
    int dir = ::open(native->constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (dir < 0)
        return Error{u"cannot open the folder: "_s + errnoText(errno), root, 0, 0, {}};
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        const QByteArray name = QFile::encodeName(parts[i]);
        if (::mkdirat(dir, name.constData(), 0700) != 0 && errno != EEXIST) {
            const int error = errno;
            ::close(dir);
            return Error{u"cannot make the folder: "_s + errnoText(error), path, 0, 0, {}};
        }
        const int next = ::openat(dir, name.constData(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        const int error = errno;
        ::close(dir);
        if (next < 0)
            return Error{
                error == ELOOP || error == ENOTDIR
                    ? u"'%1' on the way is a link or no folder, which Ferry does not follow here"_s.arg(parts[i])
                    : u"cannot open the folder: "_s + errnoText(error),
                path,
                0,
                0,
                {}};
        dir = next;
    }
    const int fd = ::openat(dir, QFile::encodeName(parts.last()).constData(),
                            O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    const int error = errno;
    ::close(dir);
    if (fd < 0)
        return Error{error == EEXIST ? u"already exists (a file or link is at this name)"_s
                                     : u"cannot create: "_s + errnoText(error),
                     path,
                     0,
                     0,
                     {}};
    const auto written = writeAll(fd, bytes, path);
    ::close(fd);
    return written;
}

Expected<void> replaceFileSafely(const QString &path, const QByteArray &bytes, mode_t mode)
{
    if (const auto native = nativePath(path); !native)
        return native.error();
    const QString temp = unpredictableTempName(path);
    const auto created = createNewFile(temp, bytes, mode);
    if (!created)
        return created.error();
    if (::rename(QFile::encodeName(temp).constData(), QFile::encodeName(path).constData()) != 0) {
        const int error = errno;
        ::unlink(QFile::encodeName(temp).constData());
        return Error{u"cannot replace: "_s + errnoText(error), path, 0, 0, {}};
    }
    return {};
}

Expected<void> appendToFileSafely(const QString &path, const QByteArray &bytes, mode_t mode)
{
    const auto opened = openRegular(path, O_WRONLY | O_APPEND | O_CREAT, mode, u"write"_s);
    if (!opened)
        return opened.error();
    const int fd = *opened;
    const auto written = writeAll(fd, bytes, path);
    ::close(fd);
    return written;
}

QString unpredictableTempName(const QString &path)
{
    static constexpr char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
    QString suffix;
    for (int i = 0; i < 12; ++i)
        suffix += QChar::fromLatin1(alphabet[QRandomGenerator::system()->bounded(int(sizeof alphabet) - 1)]);
    return path + u".tmp-"_s + suffix;
}

} // namespace ferry
