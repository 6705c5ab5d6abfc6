// SweepView: a workspace's sweeps with their trials, plots and curves, read from what each
// controller writes.
#pragma once

// The sweep view: a workspace's sweeps (the newest first), and for the one chosen its trials
// (a sortable table), the objective so far, the parallel coordinates (drag ranges on the axes to
// filter the table and the other plots), the objective against each parameter and every trial's
// curves overlaid in the metric panels, the best highlighted. "Re-run best with…" hands the best
// trial's run to the launch dialog; Cancel asks the sweep's controller to stop it; Resume starts
// a controller again for a sweep whose controller is gone. It reads what the controller writes
// (.ferry/sweeps/ID/state.json and the run store) once a second; it drives nothing itself.
#include "run/runspec.h"
#include "sweep/sweepstate.h"
#include "ui/sweep/sweepplotdata.h"
#include "workspace/workspace.h"

#include <QHash>
#include <QTimer>
#include <QWidget>

#include <memory>
#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QSplitter;
class QTableView;
class QTabWidget;

namespace ferry::run {
class RunStore;
}

namespace ferry::ui {

class LossChartPanel;
class ObjectivePlot;
class ParallelCoordinates;
class ParameterScatter;
class SeriesStore;
class SweepTrialsFilter;
class SweepTrialsModel;

class SweepView : public QWidget {
    Q_OBJECT
public:
    explicit SweepView(QWidget *parent = nullptr);
    ~SweepView() override;

    // The workspace and its run store (the trials' curves); ferryProgram starts a controller on
    // Resume. A null store: no curves.
    void setWorkspace(const workspace::Workspace &workspace, run::RunStore *store, const QString &ferryProgram);
    // No workspace: the timer stops and the store is let go (before it closes).
    void clearWorkspace();
    // Shows the sweep with this id (after a refresh of the list); false when there is none.
    bool showSweep(const QString &id);
    QString currentSweep() const;

    // For tests, benchmarks and screenshots.
    SweepTrialsModel *model() const { return m_model; }
    SweepTrialsFilter *filter() const { return m_filter; }
    QTableView *table() const { return m_table; }
    QTabWidget *tabs() const { return m_tabs; }
    ParallelCoordinates *parallelCoordinates() const { return m_parallel; }
    ObjectivePlot *objectivePlot() const { return m_objective; }
    ParameterScatter *parameterScatter() const { return m_scatter; }
    LossChartPanel *curves() const { return m_curves; }
    SweepPlotData &plotData() { return m_data; }
    QPushButton *rerunButton() const { return m_rerun; }
    // The state shown now, as read from the sweep's folder.
    const sweep::SweepState &state() const;

public Q_SLOTS:
    // Reads the sweeps and the shown sweep's state again (the timer's job, once a second).
    void refresh();

Q_SIGNALS:
    // The best trial's run, as the launch dialog takes it (its sweep tags removed).
    void rerunRequested(const ferry::run::RunSpec &spec);
    void problem(const QString &text);

protected:
    void showEvent(QShowEvent *event) override;

private:
    void fitTrialTable(); // the table wide enough for its columns, up to 60% of the window
    void reloadList();
    void loadSweep(const QString &id);
    void applyFilter();
    void loadCurves();
    void rerunBest();
    void cancelSweep();
    void resumeSweep();
    void updateButtons();

    std::optional<workspace::Workspace> m_workspace;
    run::RunStore *m_store = nullptr;
    QString m_ferryProgram;
    QComboBox *m_sweeps;
    QLabel *m_summary;
    QPushButton *m_rerun;
    QPushButton *m_cancel;
    QPushButton *m_resume;
    QTableView *m_table;
    QSplitter *m_split = nullptr;
    SweepTrialsModel *m_model;
    SweepTrialsFilter *m_filter;
    QTabWidget *m_tabs;
    ObjectivePlot *m_objective;
    ParallelCoordinates *m_parallel;
    ParameterScatter *m_scatter;
    LossChartPanel *m_curves;
    std::shared_ptr<SeriesStore> m_series;
    QHash<QString, qsizetype> m_loadedPoints; // runId \x1f metric -> points in the chart's store
    SweepPlotData m_data;
    QString m_shownId;
    QByteArray m_shownState; // state.json as last read: unchanged, nothing to redo
    bool m_controllerRunning = false;
    QTimer m_timer;
};

} // namespace ferry::ui
