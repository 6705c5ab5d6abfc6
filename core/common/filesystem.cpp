#include "common/filesystem.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSet>

using namespace Qt::StringLiterals;

namespace ferry {

namespace {

// mountinfo escapes space, tab, newline and backslash as \ooo.
QString unescapeMountPoint(const QByteArray &field)
{
    QByteArray out;
    for (qsizetype i = 0; i < field.size(); ++i) {
        if (field.at(i) == '\\' && i + 3 < field.size()) {
            bool ok = false;
            const int value = field.mid(i + 1, 3).toInt(&ok, 8);
            if (ok) {
                out.append(char(value));
                i += 3;
                continue;
            }
        }
        out.append(field.at(i));
    }
    return QString::fromLocal8Bit(out);
}

// The nearest existing folder at or above `path`, canonical (links resolved).
QString existingCanonical(const QString &path)
{
    QString at = QFileInfo(path).absoluteFilePath();
    while (!at.isEmpty()) {
        const QString canonical = QFileInfo(at).canonicalFilePath();
        if (!canonical.isEmpty())
            return canonical;
        const QString parent = QFileInfo(at).absolutePath();
        if (parent == at)
            break;
        at = parent;
    }
    return u"/"_s;
}

} // namespace

bool isNetworkFileSystemType(const QString &type)
{
    static const QSet<QString> network{
        u"nfs"_s,    u"nfs4"_s,  u"cifs"_s, u"smb3"_s,      u"smbfs"_s,  u"afs"_s,   u"ceph"_s,
        u"lustre"_s, u"gpfs"_s,  u"9p"_s,   u"glusterfs"_s, u"beegfs"_s, u"ocfs2"_s, u"gfs2"_s,
        u"davfs"_s,  u"ncpfs"_s, u"coda"_s, u"orangefs"_s,  u"pvfs2"_s,
    };
    if (network.contains(type))
        return true;
    // FUSE file systems name themselves fuse.NAME; these reach another machine.
    static const QSet<QString> networkFuse{
        u"sshfs"_s,   u"glusterfs"_s, u"ceph-fuse"_s, u"s3fs"_s,     u"rclone"_s,    u"gcsfuse"_s,
        u"juicefs"_s, u"davfs"_s,     u"goofys"_s,    u"blobfuse"_s, u"blobfuse2"_s, u"cvmfs2"_s,
    };
    return type.startsWith(u"fuse."_s) && networkFuse.contains(type.mid(5));
}

QString networkFileSystem(const QString &path)
{
    QFile mountinfo(u"/proc/self/mountinfo"_s);
    if (!mountinfo.open(QIODevice::ReadOnly))
        return {};
    const QString target = existingCanonical(path);
    QString bestPoint;
    QString bestType;
    for (const QByteArray &line : mountinfo.readAll().split('\n')) {
        // id parent major:minor root MOUNTPOINT options [optional...] - TYPE source superoptions
        const QList<QByteArray> fields = line.split(' ');
        const qsizetype dash = fields.indexOf("-");
        if (fields.size() < 5 || dash < 0 || dash + 1 >= fields.size())
            continue;
        const QString point = unescapeMountPoint(fields.at(4));
        const bool above = point == u"/"_s || target == point || target.startsWith(point + u'/');
        if (above && point.size() >= bestPoint.size()) { // later mounts of one point hide earlier ones
            bestPoint = point;
            bestType = QString::fromLatin1(fields.at(dash + 1));
        }
    }
    return isNetworkFileSystemType(bestType) ? bestType : QString();
}

} // namespace ferry
