#pragma once

#include "common/error.h"
#include "workspace/workspace.h"

#include <QMainWindow>

#include <optional>

class QDockWidget;
class QLabel;
class QMenu;
class QPlainTextEdit;
class QSettings;

namespace ferry::workspace {
class RecentWorkspaces;
}

namespace ferry::ui {

class EmptyStateWidget;
class WorkspaceTree;

// Assembles the window: menus, docks and the centre. Each concern is its own widget.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(QSettings &settings, workspace::RecentWorkspaces &recent, QWidget *parent = nullptr);

    void setWorkspace(const workspace::Workspace &workspace);
    const std::optional<workspace::Workspace> &workspace() const { return m_workspace; }
    // Opens the folder as a workspace; on failure tells the user and returns false.
    bool openWorkspaceAt(const QString &path);

    QMenu *recentMenu() const { return m_recentMenu; }
    EmptyStateWidget *emptyState() const { return m_emptyState; }

protected:
    void closeEvent(QCloseEvent *event) override;

private:
    void createMenus();
    void createDocks();
    void rebuildRecentMenu();
    void chooseWorkspaceToOpen();
    void chooseWorkspaceToCreate();
    void showAbout();
    void reportError(const QString &what, const Error &error);

    QSettings &m_settings;
    workspace::RecentWorkspaces &m_recent;
    std::optional<workspace::Workspace> m_workspace;

    EmptyStateWidget *m_emptyState;
    WorkspaceTree *m_workspaceTree;
    QLabel *m_runsPlaceholder;
    QPlainTextEdit *m_log;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_workspaceLabel;
};

} // namespace ferry::ui
