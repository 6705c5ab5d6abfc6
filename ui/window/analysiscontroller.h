// AnalysisController: the Analysis tab kept in step with the runs table: its runs, its filter and
// its selection; a click in the tab selects the run in the table.
#pragma once

// Opens the Analysis tab (ui/analysis/runsanalysisview.h) in the document area and feeds it the
// runs table's runs: the runs selected there when two or more are, else every run the table shows
// (its filter applied), the selected ones highlighted. The tab's filter box and the table's are
// one (either edits both). A run clicked in a plot is selected in the table (made current, when
// the tab analyses the selection, so that the selection stays). New points of runs still going are
// read again every few seconds while the tab is in view.
#include "ui/analysis/runsanalysisview.h" // whole: a QPointer to it

#include <QColor>
#include <QObject>
#include <QPointer>
#include <QTimer>

#include <functional>

namespace ferry::run {
class RunStore;
}

namespace ferry::ui {

class DocumentArea;
class RunsView;

// A run as the window's views name and colour it: its name in the runs table (else `storedName`,
// else its id) with the end of its id, in `color` (its colour in the chart).
RunLook runLookInTable(const RunsView &runs, const QString &runId, const QString &storedName, const QColor &color);

class AnalysisController final : public QObject {
    Q_OBJECT
public:
    AnalysisController(RunsView *runs, DocumentArea *documents, QObject *parent = nullptr);
    ~AnalysisController() override; // the tab goes with it: it asks this for the runs' names

    // The open workspace's store; nullptr when it closes (the tab waits for its reads first).
    void setStore(run::RunStore *store);
    // A run's colour, the one it has in the chart (RunColors); none: grey.
    void setRunColor(const std::function<QColor(const QString &runId)> &colorOf) { m_colorOf = colorOf; }
    RunsAnalysisView *view() const { return m_view; } // nullptr until opened, and once closed

public Q_SLOTS:
    void open(); // Run > Analyse Runs: the tab, made on first use, in front

private:
    void follow(); // the tab's runs from the table's
    void runClicked(const QString &runId);
    void selectRuns(const QStringList &runIds);

    RunsView *m_runs;
    DocumentArea *m_documents;
    run::RunStore *m_store = nullptr;
    QPointer<RunsAnalysisView> m_view;
    std::function<QColor(const QString &)> m_colorOf;
    QTimer m_follow;              // the table changed: follow once per burst
    QTimer m_refresh;             // the runs' rows changed: read the values again, at most this often
    bool m_fromSelection = false; // the tab shows the selected runs
};

} // namespace ferry::ui
