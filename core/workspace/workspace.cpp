#include "workspace/workspace.h"

#include <QDir>
#include <QFileInfo>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace ferry::workspace {

namespace {

Error failure(const QString &path, const QString &message, const QString &hint)
{
    return Error{message, path, 0, 0, hint};
}

} // namespace

Expected<Workspace> Workspace::open(const QString &path)
{
    if (path.trimmed().isEmpty())
        return failure(path, u"no workspace folder given"_s, u"name a folder, e.g. 'ferry ~/my-project'"_s);
    const QFileInfo info(path);
    if (!info.exists())
        return failure(path, u"no such folder"_s,
                       u"create it first (mkdir), or use File > New Workspace, which creates it"_s);
    if (!info.isDir())
        return failure(path, u"not a folder; a workspace is a folder"_s,
                       u"open the folder that contains this file instead"_s);

    Workspace ws(QDir::cleanPath(info.absoluteFilePath()));
    QDir root(ws.m_root);
    if (!root.mkpath(u".ferry/runs"_s))
        return failure(ws.stateDir(), u"cannot create Ferry's state folder"_s,
                       u"check that you may write to the workspace folder"_s);

    // Runs, logs and models are not source: keep them out of the user's git repository.
    const QString ignore = ws.stateDir() + u"/.gitignore"_s;
    if (!QFileInfo::exists(ignore)) {
        QSaveFile file(ignore);
        if (!file.open(QIODevice::WriteOnly) || file.write("# Ferry's run store and run folders\n*\n") < 0 ||
            !file.commit())
            return failure(ignore, u"cannot write: "_s + file.errorString(),
                           u"check that you may write to the workspace folder"_s);
    }
    return ws;
}

Expected<Workspace> Workspace::create(const QString &path)
{
    if (path.trimmed().isEmpty())
        return failure(path, u"no workspace folder given"_s, u"choose a folder for the new workspace"_s);
    const QFileInfo info(path);
    if (info.exists() && !info.isDir())
        return failure(path, u"a file of that name exists"_s, u"choose another name for the workspace"_s);
    if (!QDir().mkpath(QDir(path).filePath(u"environments"_s)))
        return failure(path, u"cannot create the workspace folder"_s,
                       u"check that you may write to the parent folder"_s);
    return open(path);
}

QString Workspace::name() const
{
    return QFileInfo(m_root).fileName();
}

QString Workspace::stateDir() const
{
    return m_root + u'/' + stateDirName();
}

QString Workspace::runsDir() const
{
    return stateDir() + u"/runs"_s;
}

QString Workspace::kernelsDir() const
{
    return stateDir() + u"/kernels"_s;
}

QString Workspace::sweepsDir() const
{
    return stateDir() + u"/sweeps"_s;
}

QString Workspace::sweepFilesDir() const
{
    return m_root + u"/sweeps"_s;
}

QString Workspace::environmentsDir() const
{
    return m_root + u"/environments"_s;
}

} // namespace ferry::workspace
