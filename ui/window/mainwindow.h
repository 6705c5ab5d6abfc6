// The main window's layout: its panels, docks, menus and status bar; what they do is its Workbench's.
#pragma once

#include "ui/window/runscontroller.h"
#include "ui/window/workbench.h"

#include <QMainWindow>

#include <memory>

class QDockWidget;
class QLabel;
class QMenu;
class QSettings;
class QSplitter;
class QStackedWidget;
class QTabWidget;

namespace ferry::ui {

class WindowPlacement;

// Lays out the workbench: menus, docks, the chart with the runs, log and problems below it, the
// run details, train panel and datasets beside, the environment editor tabbed with them. Each
// concern is its own widget; the window makes and places them and hands them to its Workbench
// (ui/window/workbench.h), which owns the open workspace's session and the menus' actions and
// connects the panels. A new panel (a notebook tab) is placed here and wired there.
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
    // Opens the environment file in the editor and brings the editor into view.
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

    QMenu *recentMenu() const { return m_recentMenu; }
    EmptyStateWidget *emptyState() const { return m_panels.emptyState; }
    TrainPanel *trainPanel() const { return m_panels.train; }
    DatasetPanel *datasetPanel() const { return m_panels.datasets; }
    RunsView *runsView() const { return m_panels.runs; }
    LossChartPanel *chartPanel() const { return m_panels.chart; }
    ProblemsPanel *problems() const { return m_panels.problems; }
    EnvironmentEditors *environmentEditors() const { return m_panels.environments; }

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
    void bringForward(QWidget *panel); // the tab that holds it
    void bringEnvironmentsForward();   // the environment editors' dock, raised over the Experiment tab

    QSettings &m_settings;
    WorkbenchPanels m_panels; // made and placed here; the Workbench connects them
    QStackedWidget *m_centre = nullptr;
    QSplitter *m_runsArea = nullptr; // the chart above, runs / log / problems below
    QTabWidget *m_bottomTabs = nullptr;
    QTabWidget *m_sideTabs = nullptr;
    QDockWidget *m_environmentDock = nullptr;
    // The Experiment dock's share of the window's width (the workspace dock has 0.17), which it
    // takes back when it comes forward after the environment editor widened the side: the chart
    // stays the largest part.
    static constexpr double kExperimentShare = 0.22;
    bool m_experimentNarrowsBack = false;
    bool m_environmentsForwardOnShow = false;
    QMenu *m_recentMenu = nullptr;
    QLabel *m_workspaceLabel = nullptr;
    Workbench *m_workbench = nullptr; // a child, deleted first: it closes the workspace while the panels are there
    std::unique_ptr<WindowPlacement> m_placement;
};

} // namespace ferry::ui
