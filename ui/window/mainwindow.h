// The main window's layout: its panels, docks, menus and status bar; what they do is its Workbench's.
#pragma once

#include "ui/window/runscontroller.h"
#include "ui/window/workbench.h"

#include <QMainWindow>

#include <memory>

class QLabel;
class QMenu;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace ferry::ui {

class WindowPlacement;

// Lays out the workbench: menus, docks, and tabs in the middle: first the chart with the runs,
// log and problems below it (or the empty state), then the documents open (environments,
// notebooks: ui/document/); the run details, train panel and datasets beside, the workspace's
// files on the other side. The title names the document in view, or the workspace. Each concern
// is its own widget; the window makes and places them and hands them to its Workbench
// (ui/window/workbench.h), which owns the open workspace's session and the menus' actions and
// connects the panels. A new panel is placed here and wired there; a new kind of document opens
// in the document area.
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(QSettings &settings, workspace::RecentWorkspaces &recent, WorkbenchServices services,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    Workbench *workbench() const { return m_workbench; }

    // The workbench's, for app/ and the tests.
    void setWorkspace(const workspace::Workspace &workspace) { m_workbench->setWorkspace(workspace); }
    const std::optional<workspace::Workspace> &workspace() const { return m_workbench->workspace(); }
    // Opens the folder as a workspace; on failure tells the user and returns false.
    bool openWorkspaceAt(const QString &path) { return m_workbench->openWorkspaceAt(path); }
    // The workspace open when Ferry last closed (the first of the recent ones); false: none.
    bool reopenLastWorkspace() { return m_workbench->reopenLastWorkspace(); }
    // Copies the example workspace to `folder` (unless it is there already) and opens it.
    bool openExample(const QString &folder) { return m_workbench->openExample(folder); }
    // Paths from the command line, a double-click in a file manager or another `ferry` (single
    // instance). A folder first is the workspace; else the first file picks it (an environment's
    // own workspace, the one a file lies in, the one open, or the last one). Environments open in
    // the editor; everything else goes where a drop of it would (datasets, notebooks).
    void openPaths(const QStringList &paths) { m_workbench->openPaths(paths); }
    // Opens the environment file in an editor, a tab of the middle of the window, and shows it.
    void openEnvironment(const QString &path) { m_workbench->openEnvironment(path); }
    run::RunStore *store() const { return m_workbench->store(); } // nullptr: no workspace, or no runs
    Preferences *preferences() const { return m_workbench->preferences(); }
    // The sweeps window (ui/sweep/sweepview.h), showing this sweep when one is named.
    void showSweeps(const QString &sweepId = {}) { m_workbench->runsController()->showSweeps(sweepId); }
    // The compare view (ui/compare/) for these runs, the first the baseline.
    void compareRuns(const QStringList &runIds) { m_workbench->runsController()->compareRuns(runIds); }
    // The sweeps and compare windows: nullptr until first shown.
    SweepView *sweepView() const { return m_workbench->runsController()->sweepView(); }
    CompareView *compareView() const { return m_workbench->runsController()->compareView(); }

    // Shown, raised and activated (un-minimised, a maximised window stays so): another `ferry`
    // handing it paths, a click on its notification.
    void comeForward();

    QMenu *recentMenu() const { return m_recentMenu; }
    EmptyStateWidget *emptyState() const { return m_panels.emptyState; }
    TrainPanel *trainPanel() const { return m_panels.train; }
    DatasetPanel *datasetPanel() const { return m_panels.datasets; }
    RunsView *runsView() const { return m_panels.runs; }
    LossChartPanel *chartPanel() const { return m_panels.chart; }
    ProblemsPanel *problems() const { return m_panels.problems; }
    EnvironmentEditors *environmentEditors() const { return m_panels.environments; }
    // The middle of the window: the runs' tab, then the documents (ui/document/documentarea.h).
    DocumentArea *documentArea() const { return m_panels.documents; }

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void createCentre();
    void createMenus();
    void createDocks();
    void showWorkspace();              // the title, the status bar's workspace, the centre
    void showTitle();                  // the document in view (with its unsaved mark), or the workspace
    void bringForward(QWidget *panel); // the tab that holds it

    QSettings &m_settings;
    WorkbenchPanels m_panels;           // made and placed here; the Workbench connects them
    QStackedWidget *m_centre = nullptr; // the home tab: the empty state, or the runs area
    QSplitter *m_runsArea = nullptr;    // the chart above, runs / log / problems below
    QTabWidget *m_bottomTabs = nullptr;
    QTabWidget *m_sideTabs = nullptr;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_workspaceLabel = nullptr;
    Workbench *m_workbench = nullptr; // a child, deleted first: it closes the workspace while the panels are there
    std::unique_ptr<WindowPlacement> m_placement;
};

} // namespace ferry::ui
