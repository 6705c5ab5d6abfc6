#include "common/privatedir.h"

#include "common/safefile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>
#include <QSysInfo>

#include <cerrno>
#include <cstdlib>

#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

constexpr qsizetype kLongestTempBase = 48; // leaves room for socket names under the folder

const QString kHint = u"remove it (or set XDG_RUNTIME_DIR to a folder only you can use) and try again"_s;

QString tempBase()
{
    const QString base = QDir::tempPath();
    return base.size() <= kLongestTempBase ? base : u"/tmp"_s;
}

QString namePrefix()
{
    return tempBase() + u"/ferry-"_s + QString::number(::geteuid()) + u'-';
}

// Where privateTempDir() remembers its folder: one line, in the user's own cache folder.
QString rememberedFile()
{
    QString host = QSysInfo::machineHostName();
    host.removeIf([](QChar c) { return !(c.isLetterOrNumber() || c == u'.' || c == u'-'); });
    return QStandardPaths::writableLocation(QStandardPaths::GenericCacheLocation) + u"/ferry/private-tmp-"_s +
           (host.isEmpty() ? u"host"_s : host);
}

// The remembered folder when it still passes every check; empty otherwise.
QString rememberedDir()
{
    const auto read = readRegularFile(rememberedFile(), 4096);
    if (!read || !read->has_value())
        return {};
    const QString path = QString::fromUtf8(**read).trimmed();
    const QString rest = path.mid(namePrefix().size());
    if (!path.startsWith(namePrefix()) || rest.isEmpty() || rest.contains(u'/') || !checkPrivateDir(path))
        return {};
    return path;
}

} // namespace

Expected<void> checkPrivateDir(const QString &path)
{
    struct stat st {};
    if (path.isEmpty() || !QDir::isAbsolutePath(path))
        return Error{u"a private folder needs an absolute path"_s, path, 0, 0, {}};
    if (::lstat(QFile::encodeName(path).constData(), &st) != 0)
        return Error{u"cannot check the folder: "_s + errnoText(errno), path, 0, 0, {}};
    if (S_ISLNK(st.st_mode))
        return Error{u"is a symbolic link, not a private folder of yours"_s, path, 0, 0, kHint};
    if (!S_ISDIR(st.st_mode))
        return Error{u"is not a folder"_s, path, 0, 0, kHint};
    if (st.st_uid != ::geteuid())
        return Error{u"belongs to another user (uid %1), so it is not private to you"_s.arg(st.st_uid), path, 0, 0,
                     kHint};
    if ((st.st_mode & 077) != 0)
        return Error{u"is open to other users (mode %1; only 0700 is private)"_s.arg(
                         QString::number(st.st_mode & 07777, 8).rightJustified(4, u'0')),
                     path, 0, 0, kHint};
    return {};
}

Expected<void> ensurePrivateDir(const QString &path)
{
    if (!path.isEmpty() && ::mkdir(QFile::encodeName(path).constData(), 0700) != 0 && errno != EEXIST)
        return Error{u"cannot create the folder: "_s + errnoText(errno), path, 0, 0,
                     u"check that its parent folder exists and is yours"_s};
    return checkPrivateDir(path);
}

Expected<QString> privateTempDir()
{
    if (const QString remembered = rememberedDir(); !remembered.isEmpty())
        return remembered;
    QByteArray name = QFile::encodeName(namePrefix() + u"XXXXXX"_s);
    if (::mkdtemp(name.data()) == nullptr)
        return Error{u"cannot create a private folder: "_s + errnoText(errno), tempBase(), 0, 0,
                     u"check that the temp folder is writable"_s};
    const QString made = QFile::decodeName(name);
    if (const auto checked = checkPrivateDir(made); !checked)
        return checked.error();
    const QString file = rememberedFile();
    if (!QDir().mkpath(QFileInfo(file).path()))
        return Error{u"cannot create the folder"_s, QFileInfo(file).path(), 0, 0, u"check your cache folder"_s};
    if (const auto written = replaceFileSafely(file, QFile::encodeName(made) + '\n', 0600); !written)
        return written.error();
    // Two processes may have made one each at once: both take whichever was remembered last.
    const QString settled = rememberedDir();
    if (!settled.isEmpty() && settled != made)
        ::rmdir(name.constData());
    return settled.isEmpty() ? made : settled;
}

Expected<QString> privateRuntimeDir()
{
    const QString xdg = qEnvironmentVariable("XDG_RUNTIME_DIR");
    if (!xdg.isEmpty() && QDir::isAbsolutePath(xdg) && ensurePrivateDir(QDir::cleanPath(xdg)))
        return QDir::cleanPath(xdg);
    const QString systemd = u"/run/user/"_s + QString::number(::geteuid());
    if (checkPrivateDir(systemd))
        return systemd;
    return privateTempDir();
}

} // namespace ferry
