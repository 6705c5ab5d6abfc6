// What the window does: the open workspace and its session, the menus' actions, and the wiring between its panels.
#pragma once

#include "common/error.h"
#include "ui/window/workbenchparts.h"
#include "workspace/workspace.h"

#include <QList>
#include <QObject>
#include <QPointer>
#include <QStringList>

#include <memory>
#include <optional>

class QAction;
class QMenu;
class QSettings;
class QWidget;

namespace ferry::run {
class RunStore;
}
namespace ferry::workspace {
class RecentWorkspaces;
}

namespace ferry::ui {

class CostsView;

struct DropPlan;
class Preferences;
class AnalysisController;
class MediaController;
class RunAlerts;
class RunsController;
class WorkspaceSession;

// The menus' actions, made by the Workbench with their keys; the window puts them in its menus.
struct WorkbenchActions {
    QAction *newWorkspace = nullptr;
    QAction *openWorkspace = nullptr;
    QAction *save = nullptr;     // the current document; enabled while one is
    QAction *closeTab = nullptr; // the current document's tab; enabled while one is
    QAction *nextTab = nullptr;  // the tabs of the middle of the window, in turn
    QAction *previousTab = nullptr;
    QAction *closeWorkspace = nullptr; // enabled while a workspace is open
    QAction *settings = nullptr;
    QAction *quit = nullptr;
    QList<QAction *> environment; // the environment editors' New… and Open…
    QAction *openNotebook = nullptr;
    QList<QAction *> notebook; // the current notebook's: run all, interrupt, restart...; enabled while one is
    QAction *startRun = nullptr;
    QAction *newSweep = nullptr;
    QAction *sweeps = nullptr;
    QAction *train = nullptr;
    QAction *findRun = nullptr;
    QAction *refreshRuns = nullptr;
    QAction *compareRuns = nullptr;
    QAction *analyseRuns = nullptr;      // the Analysis tab: scatter, parallel coordinates, importance
    QAction *runImages = nullptr;        // the Media tab's Images: the selected runs' images by step
    QAction *runDistributions = nullptr; // the Media tab's Distributions: a run's histograms by step
    QAction *rerunExactly = nullptr;
    QAction *costs = nullptr; // the Costs window: the cost report (ui/cost/costsview.h)
    QAction *about = nullptr;
};

// The workbench behind the window's layout. It owns the open workspace and its session (the
// run store and the threads that read it), the menus' actions and Preferences, and connects the
// panels the window made: to the session, to each other (a dataset to the train panel, an
// overview entry to where it opens, a problem to the problems panel), and what a path or a drop
// opens. Everything about runs is its RunsController's. Outcomes for the window's own parts go
// out as signals (the status bar, a panel to bring forward, the title); a new panel is made and
// placed by the window and wired here, a new kind of document (a notebook) opened in the document
// area (ui/document/) from here, without touching the run code. The documents belong to the
// workspace: leaving it closes them (unsaved edits asked about first).
class Workbench : public QObject {
    Q_OBJECT
public:
    // `window`: the parent of the dialogs and windows it opens; the QActions are its children.
    Workbench(QSettings &settings, workspace::RecentWorkspaces &recent, WorkbenchServices services,
              const WorkbenchPanels &panels, QWidget *window);
    // Closes the workspace: delete it before the panels (MainWindow's destructor does).
    ~Workbench() override;

    const WorkbenchActions &actions() const { return m_actions; }
    // File > Open Recent: filled from the recent workspaces each time it opens.
    void setRecentMenu(QMenu *menu);
    RunsController *runsController() const { return m_runs; }
    AnalysisController *analysis() const { return m_analysis; }
    MediaController *media() const { return m_media; }
    Preferences *preferences() const { return m_preferences; }
    RunAlerts *alerts() const { return m_alerts; }

    void setWorkspace(const workspace::Workspace &workspace);
    const std::optional<workspace::Workspace> &workspace() const { return m_workspace; }
    run::RunStore *store() const; // nullptr: no workspace, or its runs could not be opened
    // Opens the folder as a workspace; on failure tells the user and returns false.
    bool openWorkspaceAt(const QString &path);
    // The workspace open when Ferry last closed (the first of the recent ones); false: none.
    bool reopenLastWorkspace();
    // Copies the example workspace to `folder` (unless it is there already) and opens it.
    bool openExample(const QString &folder);
    // See MainWindow::openPaths.
    void openPaths(const QStringList &paths);
    // A drop on the window: datasets, environments (imported) and notebooks (the import dialog).
    void openDrop(const DropPlan &plan);
    // Opens the environment file in an editor, a tab of the middle of the window, and shows it.
    void openEnvironment(const QString &path);
    // A notebook (.ipynb, or a percent-format .py) in a tab of its own (or its tab, when open).
    void openNotebook(const QString &path);
    // Before the window closes: asks about unsaved edits in the documents (false: the user stays),
    // then cancels the window's own training (scripts run on).
    bool prepareToClose();

public Q_SLOTS:
    void reportProblem(const ferry::Error &error); // a part's problem, as it said it: to the list and the status bar

Q_SIGNALS:
    // A workspace was opened or left, or its runs could not be opened: the title, the status
    // bar's workspace and the centre (the runs, or the empty state) follow.
    void workspaceChanged();
    void statusMessage(const QString &text, int timeoutMs);
    void panelRequested(QWidget *panel); // the window brings it into view (its tab, its dock)
    void attentionRequested();           // the window comes forward (a click on its notification)

private:
    void createActions();
    void closeWorkspace();
    void showCosts();
    void leaveWorkspace(); // File > Close Workspace: back to the empty state
    void openWorkspaceFor(const QString &file);
    void chooseWorkspaceToOpen();
    void chooseWorkspaceToCreate();
    void rebuildRecentMenu();
    void importEnvironment(const QString &path);
    void reportError(const QString &what, const Error &error);

    QSettings &m_settings;
    workspace::RecentWorkspaces &m_recent;
    WorkbenchServices m_services;
    WorkbenchPanels m_panels;
    QWidget *m_window;
    std::optional<workspace::Workspace> m_workspace;
    std::unique_ptr<WorkspaceSession> m_session; // nullptr: no workspace, or its runs could not be opened
    Preferences *m_preferences;
    RunsController *m_runs;
    AnalysisController *m_analysis; // the Analysis tab, following the runs table
    MediaController *m_media;       // the Media tab, following the runs table's selection
    RunAlerts *m_alerts;
    QPointer<CostsView> m_costs; // made when first shown
    WorkbenchActions m_actions;
    QPointer<QMenu> m_recentMenu;
};

} // namespace ferry::ui
