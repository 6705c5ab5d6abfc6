#pragma once

#include "common/error.h"
#include "run/runspec.h"
#include "training/trainerengine.h"
#include "ui/runs/runsmodel.h"
#include "workspace/workspace.h"

#include <QFuture>
#include <QHash>
#include <QMainWindow>

#include <functional>
#include <memory>
#include <optional>

class QAction;
class QDockWidget;
class QLabel;
class QMenu;
class QSettings;
class QStackedWidget;
class QTabWidget;
class QTimer;

namespace ferry::run {
class RunStore;
}
namespace ferry::workspace {
class RecentWorkspaces;
}
namespace ferry::secrets {
class SecretStore;
}

namespace ferry::ui {

struct DropPlan;
class CompareView;
class DatasetPanel;
class EmptyStateWidget;
class EnvironmentEditors;
class LogView;
class LossChartPanel;
class Preferences;
class RunActions;
class ProblemsPanel;
class RunDetailsView;
class RunsView;
class SweepView;
class TrainPanel;
class WindowPlacement;
class WorkspaceOverview;
class WorkspaceSession;
class WorkspaceTree;

// What the window needs from the application: the trainer (loaded on first use) and the
// `ferry` executable local runs are supervised by.
struct WorkbenchServices {
    std::function<Expected<run::TrainerEngine *>()> trainer;
    QString ferryBinary;
    secrets::SecretStore *secrets = nullptr; // the OS keychain; none: no Secrets page
};

// Assembles the workbench: menus, docks, the chart with the runs, log and problems below it,
// the run details, train panel and datasets beside. Each concern is its own widget; the window
// connects them, and to the open workspace's session (its run store and the threads that read it).
class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    MainWindow(QSettings &settings, workspace::RecentWorkspaces &recent, WorkbenchServices services,
               QWidget *parent = nullptr);
    ~MainWindow() override;

    void setWorkspace(const workspace::Workspace &workspace);
    const std::optional<workspace::Workspace> &workspace() const { return m_workspace; }
    // Opens the folder as a workspace; on failure tells the user and returns false.
    bool openWorkspaceAt(const QString &path);
    // The workspace open when Ferry last closed (the first of the recent ones); false: none.
    bool reopenLastWorkspace();
    // Copies the example workspace to `folder` (unless it is there already) and opens it.
    bool openExample(const QString &folder);
    // Paths from the command line, a double-click in a file manager or another `ferry` (single
    // instance). A folder first is the workspace; else the first file picks it (an environment's
    // own workspace, the one a file lies in, the one open, or the last one). Environments open in
    // the editor; everything else goes where a drop of it would (datasets, notebooks).
    void openPaths(const QStringList &paths);

    QMenu *recentMenu() const { return m_recentMenu; }
    EmptyStateWidget *emptyState() const { return m_emptyState; }
    TrainPanel *trainPanel() const { return m_train; }
    DatasetPanel *datasetPanel() const { return m_datasets; }
    RunsView *runsView() const { return m_runs; }
    SweepView *sweepView() const { return m_sweepView; }       // nullptr until first shown
    CompareView *compareView() const { return m_compareView; } // nullptr until first shown
    LossChartPanel *chartPanel() const { return m_chart; }
    ProblemsPanel *problems() const { return m_problems; }
    EnvironmentEditors *environmentEditors() const { return m_environments; }
    Preferences *preferences() const { return m_preferences; }
    // Opens the environment file in the editor and brings the editor into view.
    void openEnvironment(const QString &path);
    run::RunStore *store() const; // nullptr: no workspace, or its runs could not be opened

public Q_SLOTS:
    void startScriptRun();
    void startScriptRunOf(const QString &script); // the launch dialog, with this script chosen
    // The sweeps window (ui/sweep/sweepview.h), showing this sweep when one is named.
    void showSweeps(const QString &sweepId = {});
    void openSweepForm();                          // Run > New Sweep…: the sweep form, beside the launch dialog
    void reportProblem(const ferry::Error &error); // a part's problem, as it said it: to the list and the status bar
    // The compare view (ui/compare/) for these runs, the first the baseline (mainwindowcompare.cpp).
    void compareRuns(const QStringList &runIds);
    // The run again with the code of its snapshot (RunActions::rerunExactly).
    void rerunExactly(const QString &runId);

protected:
    void closeEvent(QCloseEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dropEvent(QDropEvent *event) override;

private:
    void routeDrop(const DropPlan &plan);
    void createMenus();
    void createDocks();
    void rebuildRecentMenu();
    void chooseWorkspaceToOpen();
    void chooseWorkspaceToCreate();
    void showAbout();
    void reportError(const QString &what, const Error &error);
    void closeWorkspace();
    void leaveWorkspace(); // File > Close Workspace: back to the empty state
    void openWorkspaceFor(const QString &file);
    void bringEnvironmentsForward(); // the environment editors' dock, raised over the Experiment tab
    void wireSession();              // the open session's signals to the widgets
    void reloadRuns();
    void runsLoaded(const QList<RunRow> &rows);
    void selectionChanged(const QStringList &runIds);
    void currentRunChanged(const QString &runId);
    void fetchShownRankLog(); // a run across nodes still going: the shown rank's log, from its host
    void cancelRun(const QString &runId);
    void deleteRun(const QString &runId);
    void rerun(const run::RunSpec &spec);
    void addCompareActions(QMenu *runMenu); // Run menu entries and the runs table's context menu
    void importEnvironment(const QString &path);
    QString runsDir() const;

    QSettings &m_settings;
    workspace::RecentWorkspaces &m_recent;
    WorkbenchServices m_services;
    std::optional<workspace::Workspace> m_workspace;
    std::unique_ptr<WorkspaceSession> m_session; // nullptr: no workspace, or its runs could not be opened

    QStackedWidget *m_centre;
    EmptyStateWidget *m_emptyState;
    WorkspaceTree *m_workspaceTree;
    WorkspaceOverview *m_overview;
    LossChartPanel *m_chart;
    QTabWidget *m_bottomTabs;
    RunsView *m_runs;
    SweepView *m_sweepView = nullptr;
    CompareView *m_compareView = nullptr;
    LogView *m_log;
    QString m_currentRun; // the run whose log and details are shown
    int m_shownRank = 0;  // which of its ranks' logs the log view shows
    QTimer *m_rankLogs;   // while rank K > 0 of a run still going is shown: copies its log here
    ProblemsPanel *m_problems;
    QTabWidget *m_sideTabs;
    RunDetailsView *m_details;
    TrainPanel *m_train;
    DatasetPanel *m_datasets;
    EnvironmentEditors *m_environments;
    Preferences *m_preferences = nullptr;
    QDockWidget *m_environmentDock = nullptr;
    // The Experiment dock's share of the window's width (the workspace dock has 0.17), which it
    // takes back when it comes forward after the environment editor widened the side: the chart
    // stays the largest part.
    static constexpr double kExperimentShare = 0.22;
    bool m_experimentNarrowsBack = false;
    QMenu *m_recentMenu = nullptr;
    QAction *m_closeAction = nullptr;
    bool m_environmentsForwardOnShow = false;
    QLabel *m_workspaceLabel;

    QHash<QString, RunRow> m_rows;
    QStringList m_newestRuns;        // charted while no run is selected
    QString m_selectAfterLoad;       // a run just started: selected once the table has it
    RunActions *m_actions = nullptr; // start, re-run, cancel, delete and export script runs
    std::unique_ptr<WindowPlacement> m_placement;
};

} // namespace ferry::ui
