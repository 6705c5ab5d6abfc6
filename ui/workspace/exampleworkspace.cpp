#include "ui/workspace/exampleworkspace.h"

#include "ui/resources/resources.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>

using namespace Qt::StringLiterals;

namespace ferry::ui {

Expected<void> copyExampleWorkspace(const QString &folder)
{
    initResources();
    const QString prefix = u":/example"_s;
    QDirIterator files(prefix, QDir::Files, QDirIterator::Subdirectories);
    while (files.hasNext()) {
        const QString from = files.next();
        const QString to = folder + from.mid(prefix.size());
        if (QFile::exists(to))
            continue;
        QDir().mkpath(QFileInfo(to).absolutePath());
        if (!QFile::copy(from, to))
            return Error{u"cannot write the file"_s, to, 0, 0, u"check the folder's permissions"_s};
        // Resources are read-only; the copy is the user's to edit.
        QFile::setPermissions(to, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    }
    return {};
}

} // namespace ferry::ui
