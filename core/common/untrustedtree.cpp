#include "common/untrustedtree.h"

#include "common/uniquefd.h"

#include <QFile>
#include <QStringList>

#include <cerrno>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

constexpr int kFolderFlags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;

struct Walk {
    const std::function<bool(QStringView)> &wanted;
    TreeLimits limits;
    qsizetype seen = 0;
    QList<TreeFile> files;

    // Lists the folder open as `fd` (taken over), `prefix` its path below the root.
    void folder(int fd, const QString &prefix, int depth)
    {
        DIR *dir = ::fdopendir(fd);
        if (!dir) {
            ::close(fd);
            return;
        }
        QList<QByteArray> subfolders;
        while (const dirent *entry = ::readdir(dir)) {
            const QByteArray name(entry->d_name);
            if (name == "." || name == "..")
                continue;
            if (++seen > limits.maxEntries)
                break;
            struct stat st {};
            // The entry itself, never what a link names.
            if (::fstatat(::dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0)
                continue;
            const QString text = QFile::decodeName(name);
            if (S_ISDIR(st.st_mode)) {
                if (depth < limits.maxDepth)
                    subfolders << name;
            } else if (S_ISREG(st.st_mode) && (!wanted || wanted(text))) {
                files.append(TreeFile{prefix + text, qint64(st.st_size), modifiedMs(st)});
            }
        }
        for (const QByteArray &name : std::as_const(subfolders)) {
            if (seen > limits.maxEntries)
                break;
            // Swapped for a link since the listing: O_NOFOLLOW refuses it.
            const int child = ::openat(::dirfd(dir), name.constData(), kFolderFlags);
            if (child >= 0)
                folder(child, prefix + QFile::decodeName(name) + u'/', depth + 1);
        }
        ::closedir(dir);
    }
};

} // namespace

QList<TreeFile> listRegularFiles(const QString &root, const std::function<bool(QStringView name)> &wanted,
                                 TreeLimits limits)
{
    Walk walk{wanted, limits, 0, {}};
    const int fd = ::open(QFile::encodeName(root).constData(), kFolderFlags);
    if (fd >= 0)
        walk.folder(fd, QString(), 0);
    return walk.files;
}

Expected<std::optional<QByteArray>> readTreeFile(const QString &root, const QString &path, qint64 offset,
                                                 qint64 maxBytes)
{
    const QString full = root + u'/' + path;
    UniqueFd folder(::open(QFile::encodeName(root).constData(), kFolderFlags));
    if (!folder.valid())
        return errno == ENOENT ? Expected<std::optional<QByteArray>>(std::nullopt)
                               : Error{u"cannot open the folder: "_s + errnoText(errno), root, 0, 0, {}};
    const QStringList parts = path.split(u'/', Qt::SkipEmptyParts);
    if (parts.isEmpty() || parts.contains(u".."_s))
        return Error{u"not a path inside the folder"_s, full, 0, 0, {}};
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) {
        UniqueFd next(::openat(folder.get(), QFile::encodeName(parts.at(i)).constData(), kFolderFlags));
        if (!next.valid()) {
            const int error = errno;
            if (error == ENOENT)
                return std::optional<QByteArray>{};
            return Error{error == ELOOP || error == ENOTDIR ? u"refused: a link or a file where a folder should be"_s
                                                            : u"cannot open: "_s + errnoText(error),
                         full,
                         0,
                         0,
                         {}};
        }
        folder = std::move(next);
    }
    UniqueFd file(::openat(folder.get(), QFile::encodeName(parts.last()).constData(),
                           O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
    if (!file.valid()) {
        const int error = errno;
        if (error == ENOENT)
            return std::optional<QByteArray>{};
        return Error{
            error == ELOOP ? u"refused: a link, not a file"_s : u"cannot open: "_s + errnoText(error), full, 0, 0, {}};
    }
    struct stat st {};
    if (::fstat(file.get(), &st) != 0 || !S_ISREG(st.st_mode))
        return Error{u"refused: not a regular file"_s, full, 0, 0, {}};
    const qint64 available = std::max<qint64>(0, qint64(st.st_size) - offset);
    QByteArray bytes(std::min(available, maxBytes), Qt::Uninitialized);
    qint64 done = 0;
    while (done < bytes.size()) {
        const ssize_t n = ::pread(file.get(), bytes.data() + done, size_t(bytes.size() - done), offset + done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return Error{u"cannot read: "_s + errnoText(errno), full, 0, 0, {}};
        if (n == 0)
            break; // it shrank meanwhile (a rewrite)
        done += n;
    }
    bytes.truncate(done);
    return std::optional<QByteArray>(std::move(bytes));
}

qint64 modifiedMs(const struct stat &st)
{
    return qint64(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
}

} // namespace ferry
