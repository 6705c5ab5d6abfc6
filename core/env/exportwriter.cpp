#include "env/exportwriter.h"

#include "common/textfile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::env {

namespace {

Expected<void> copyFolder(const QString &from, const QString &to)
{
    QDir target(to);
    if (target.exists() && !target.removeRecursively())
        return Error{u"cannot replace the earlier copy"_s, to, 0, 0, u"check the folder's permissions"_s};
    if (!QDir().mkpath(to))
        return Error{u"cannot create the folder"_s, to, 0, 0, u"check the folder's permissions"_s};
    QDirIterator it(from, QDir::Files | QDir::Dirs | QDir::NoDotAndDotDot | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString source = it.next();
        const QString destination = to + u'/' + QDir(from).relativeFilePath(source);
        const QFileInfo info = it.fileInfo();
        if (info.isDir()) {
            if (!QDir().mkpath(destination))
                return Error{u"cannot create the folder"_s, destination, 0, 0, {}};
        } else if (!QFile::copy(source, destination)) {
            return Error{u"cannot copy "_s + source, destination, 0, 0, u"check free disk space"_s};
        }
    }
    return {};
}

} // namespace

Expected<QStringList> writeGeneratedFiles(const QList<GeneratedFile> &files, const QString &dir)
{
    QStringList written;
    for (const GeneratedFile &file : files) {
        const QString path = QDir(dir).filePath(file.name);
        if (!QDir().mkpath(QFileInfo(path).absolutePath()))
            return Error{u"cannot create the folder"_s, QFileInfo(path).absolutePath(), 0, 0,
                         u"check the folder's permissions"_s};
        if (!file.copyFrom.isEmpty()) {
            const auto copied = copyFolder(file.copyFrom, path);
            if (!copied)
                return copied.error();
        } else {
            const auto saved = writeTextFileAtomically(path, file.text);
            if (!saved)
                return saved.error();
        }
        written << path;
    }
    return written;
}

} // namespace ferry::env
