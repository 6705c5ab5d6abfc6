// RecentWorkspaces: the most recently opened workspaces, newest first, kept in the settings.
#pragma once

#include <QSettings>
#include <QStringList>

namespace ferry::workspace {

// The most recently opened workspaces, newest first, kept in the given settings.
class RecentWorkspaces {
public:
    static constexpr int kDefaultLimit = 10;

    explicit RecentWorkspaces(QSettings &settings, int limit = kDefaultLimit);

    // Folders that still exist; vanished ones are skipped (and dropped at the next add()).
    QStringList paths() const;
    void add(const QString &path);
    void remove(const QString &path);
    void clear();

private:
    QStringList stored() const;
    void store(const QStringList &paths);

    QSettings &m_settings;
    int m_limit;
};

} // namespace ferry::workspace
