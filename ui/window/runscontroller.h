// The window's run panels wired together: runs table, chart, log, details, train panel, launch, sweeps, compare.
#pragma once

#include "common/error.h"
#include "run/runspec.h"
#include "ui/runs/runsmodel.h"
#include "ui/window/workbenchparts.h"
#include "workspace/workspace.h"

#include <QHash>
#include <QObject>
#include <QStringList>

#include <optional>

class QPoint;
class QSettings;
class QTimer;
class QWidget;

namespace ferry::run {
class RunStore;
}

namespace ferry::ui {

class CompareView;
class RunActions;
class RunColors;
class SweepView;
class WorkspaceSession;

// Everything the window does with runs, between its panels and the open workspace's session:
// the session's runs go into the table, the selected runs (or the newest, with none selected)
// into the chart, the current run's log and details beside; the details' and table's requests
// (cancel, delete, re-run, re-run exactly, export) go to RunActions or, for an embedded run, the
// train panel; the sweeps and compare windows open from here. The Workbench makes one, attaches
// it to each session it opens and detaches it before the session goes. Outcomes go out as
// signals: problems, status messages and the panel to bring into view.
// A run in a legend: its name as the runs table shows it and the end of its id, "train lr=0.03
// (0eaa)"; the id alone when the run is not (yet) in the table.
QString runLegendLabel(const RunRow &row, const QString &runId);

class RunsController : public QObject {
    Q_OBJECT
public:
    // `workspace`: the Workbench's open workspace (it outlives this); `window`: the parent of
    // the dialogs and of the sweeps and compare windows.
    RunsController(QSettings &settings, const WorkbenchServices &services, const WorkbenchPanels &panels,
                   const std::optional<workspace::Workspace> &workspace, QWidget *window, QObject *parent);

    // The session's runs into the panels, its store to the parts that start and show runs.
    void attach(WorkspaceSession *session);
    // Before the session goes: the runs being started finish, the panels and windows let go of
    // its store and empty.
    void detach();

    RunActions *runActions() const { return m_actions; }
    SweepView *sweepView() const { return m_sweepView; }       // nullptr until first shown
    CompareView *compareView() const { return m_compareView; } // nullptr until first shown

public Q_SLOTS:
    void startScriptRun(const QString &script = {}); // the launch dialog, with this script chosen
    void reload();                                   // the table reads the store again
    void findRun();                                  // Run > Find a Run: the table's filter, focused
    // The sweeps window (ui/sweep/sweepview.h), showing this sweep when one is named.
    void showSweeps(const QString &sweepId = {});
    void openSweepForm(); // Run > New Sweep…: the sweep form, beside the launch dialog
    // The compare view (ui/compare/) for these runs, the first the baseline.
    void compareRuns(const QStringList &runIds);
    // The run again with the code of its snapshot (RunActions::rerunExactly); an embedded
    // run trains again in the train panel.
    void rerunExactly(const QString &runId);
    void rerun(const run::RunSpec &spec); // with changes: the launch dialog, or the train panel
    void compareSelectedRuns();           // Run > Compare Selected Runs: those selected in the table
    void rerunCurrentExactly();           // Run > Re-run Exactly: the table's current run
    // The run selected and current in the table (its filter cleared if it hid the run), its log
    // and details beside: a click on its notification (ui/alerts/runalerts.h).
    void showRun(const QString &runId);
    // Stops a run as its Cancel does (also an idle GPU's run, ui/alerts/runalerts.h).
    void cancelRun(const QString &runId);

Q_SIGNALS:
    void problem(const ferry::Error &error);
    void statusMessage(const QString &text, int timeoutMs);
    void panelRequested(QWidget *panel); // the window brings it into view
    void analysisRequested();            // the table's menu: the Analysis tab (ui/window/analysiscontroller.h)
    void imagesRequested();              // the table's menu: the Media tab's images (ui/window/mediacontroller.h)
    void distributionsRequested();       // and its distributions
    void alertRulesRequested(const QString &runId); // the table's Alerts… for a run

private:
    void runsLoaded(const QList<RunRow> &rows);
    void selectionChanged(const QStringList &runIds);
    void followTable();
    QString chartCaption(const QStringList &selected) const; // what the chart shows, and what it leaves out
    void currentRunChanged(const QString &runId);
    void fetchShownRankLog();             // a run across nodes still going: the shown rank's log, from its host
    void showTableMenu(const QPoint &at); // the runs table's context menu: compare and re-run
    void reportText(const QString &text); // a problem that is one sentence
    QString runsDir() const;
    run::RunStore *store() const;

    QSettings &m_settings;
    WorkbenchPanels m_panels;
    const std::optional<workspace::Workspace> &m_workspace;
    QString m_ferryBinary;
    QWidget *m_window;
    WorkspaceSession *m_session = nullptr; // the Workbench's; nullptr: detached
    RunActions *m_actions;                 // start, re-run, cancel, delete and export script runs
    SweepView *m_sweepView = nullptr;
    CompareView *m_compareView = nullptr;

    QHash<QString, RunRow> m_rows;
    QStringList m_newestRuns;       // charted while no run is selected
    QString m_selectAfterLoad;      // a run just started: selected once the table has it
    QString m_currentRun;           // the run whose log and details are shown
    QString m_quietRun;             // started by the train panel: selected without taking the side dock
    QTimer *m_rankLogs;             // while rank K > 0 of a run still going is shown: copies its log here
    RunColors *m_colors;            // every run's colour, for every view (kept in .ferry/run-colors.json)
    QTimer *m_followTable;          // the table's rows changed: the chart follows (once per burst)
    int m_tableRunsWithMetrics = 0; // of the runs the table shows
};

} // namespace ferry::ui
