#include "workspace/recentworkspaces.h"

#include "common/setting.h"

#include <QDir>
#include <QFileInfo>

namespace ferry::workspace {

namespace {
const Setting<QStringList> kRecent{"workspaces/recent"};

QString normalised(const QString &path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}
} // namespace

RecentWorkspaces::RecentWorkspaces(QSettings &settings, int limit) : m_settings(settings), m_limit(limit) {}

QStringList RecentWorkspaces::paths() const
{
    QStringList result;
    for (const QString &path : stored()) {
        if (QFileInfo(path).isDir())
            result << path;
    }
    return result;
}

void RecentWorkspaces::add(const QString &path)
{
    const QString entry = normalised(path);
    QStringList list = paths();
    list.removeAll(entry);
    list.prepend(entry);
    while (list.size() > m_limit)
        list.removeLast();
    store(list);
}

void RecentWorkspaces::remove(const QString &path)
{
    QStringList list = stored();
    list.removeAll(normalised(path));
    store(list);
}

void RecentWorkspaces::clear()
{
    store({});
}

QStringList RecentWorkspaces::stored() const
{
    return kRecent.get(m_settings);
}

void RecentWorkspaces::store(const QStringList &paths)
{
    kRecent.set(m_settings, paths);
    m_settings.sync();
}

} // namespace ferry::workspace
