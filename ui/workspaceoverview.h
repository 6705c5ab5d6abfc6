#pragma once

#include <QTreeWidget>

class QFileSystemWatcher;
class QTimer;

namespace ferry::ui {

// The open workspace by what its files are for: environments (with their image tags), training
// scripts and datasets. Rescanned when the folder changes. Double-click asks the window to use
// the item: a script opens the launch dialog, a dataset is previewed and bound, an environment
// is checked.
class WorkspaceOverview : public QTreeWidget {
    Q_OBJECT
public:
    enum class Kind { Environment, Script, Dataset };
    explicit WorkspaceOverview(QWidget *parent = nullptr);

    void setRoot(const QString &path); // empty: nothing shown
    // The paths listed under a kind, relative to the root, sorted.
    QStringList entries(Kind kind) const;

public Q_SLOTS:
    void rescan();

Q_SIGNALS:
    void activated(ferry::ui::WorkspaceOverview::Kind kind, const QString &path);

private:
    QString m_root;
    QFileSystemWatcher *m_watcher;
    QTimer *m_rescan;
};

} // namespace ferry::ui
