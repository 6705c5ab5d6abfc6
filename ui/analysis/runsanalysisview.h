// RunsAnalysisView: the Analysis tab: a scatter, parallel coordinates and parameter importance
// over any runs, read off the GUI thread.
#pragma once

// A tab of the document area (ui/document/) over the runs it is given (setRuns: those selected in
// the runs table, or all the table shows; ui/window/analysiscontroller.h keeps it in step):
// - a scatter of any two values of each run (a parameter, or a metric's last, best, min, max or
//   value at a step), coloured by a third (a colour scale with its least and greatest value) or by
//   each run's own colour; log scales to toggle; the pointer names a run, a click selects it;
// - parallel coordinates over the parameters chosen and a metric, lines coloured by the metric;
//   ranges dragged on the axes, and the runs inside them selected in the table on request;
// - parameter importance against a metric: parameter, importance, correlation (with bars),
//   sorted by importance, with what the core left out and why.
// The store is read through QtConcurrent (readRuns, readValues, parameterImportance): the tab
// stays responsive, a result for runs no longer shown is dropped, and the last picture stays until
// the next is ready.
#include "analysis/importance.h"
#include "ui/analysis/runsanalysisdata.h"
#include "ui/document/document.h"

#include <QFutureWatcher>
#include <QSet>
#include <QStringList>

#include <memory>
#include <optional>

class QCheckBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTabWidget;
class QTableView;
class QToolButton;

namespace ferry::run {
class RunStore;
}

namespace ferry::ui {

class ImportanceModel;
class ParallelCoordinates;
class RunValueChooser;
class ScatterPlot;

class RunsAnalysisView final : public Document {
    Q_OBJECT
public:
    explicit RunsAnalysisView(QWidget *parent = nullptr);
    ~RunsAnalysisView() override;

    // The store the runs are read from; nullptr: none (waits for what is being read from the old
    // one, which may be closing).
    void setStore(run::RunStore *store);
    // The runs to analyse, what they are (said above the plots: "the 12 runs the table shows") and
    // those drawn over the others (selected in the table). The same runs again only redraw.
    void setRuns(const QStringList &runIds, const QString &caption, const QSet<QString> &highlighted = {});
    QStringList runIds() const { return m_ids; }
    // Reads the runs again when some were still going at the last read (new points, a new end).
    void refresh();
    // How a run is named and coloured (its name in the table, its colour in the chart).
    void setRunLooks(const RunLooks &looks);

    // The Document: a view, not a file.
    QString path() const override { return {}; }
    QString title() const override { return tr("Analysis"); }
    bool isModified() const override { return false; }
    bool save() override { return true; }
    bool maybeClose() override { return true; }

    // The filter box above the plots: the runs table's, mirrored (the controller keeps them equal).
    QLineEdit *filterEdit() const { return m_filter; }

    // For tests and screenshots.
    QTabWidget *tabs() const { return m_tabs; }
    ScatterPlot *scatter() const { return m_scatter; }
    RunValueChooser *scatterX() const { return m_x; }
    RunValueChooser *scatterY() const { return m_y; }
    RunValueChooser *scatterColor() const { return m_color; }
    QCheckBox *logX() const { return m_logX; }
    QCheckBox *logY() const { return m_logY; }
    QLabel *scatterNote() const { return m_scatterNote; } // the runs drawn, and those left out
    ParallelCoordinates *parallel() const { return m_parallel; }
    const PlotTable &parallelData() const { return *m_table; }
    RunValueChooser *parallelMetric() const { return m_parallelMetric; }
    QStringList parallelParams() const { return m_chosenParams; }
    void setParallelParams(const QStringList &params); // the axes, in this order (as the menu does)
    QTableView *importanceTable() const { return m_importanceTable; }
    ImportanceModel *importanceModel() const { return m_importance; }
    RunValueChooser *importanceMetric() const { return m_importanceMetric; }
    QLabel *importanceNotes() const { return m_importanceNotes; }
    const RunsRead &read() const { return m_read; }
    // Whether a read is under way (the tests wait for it to end).
    bool isReading() const;

Q_SIGNALS:
    void runClicked(const QString &runId);               // a point or a line: select it in the table
    void selectRunsRequested(const QStringList &runIds); // the runs inside the parallel coordinates' ranges
    void readDone();                                     // what was asked is read and drawn (tests, screenshots)

private:
    struct Loaded {
        quint64 generation = 0;
        std::optional<RunsRead> read; // when the runs were read again
        RunValueColumns values;
    };
    struct Importance {
        quint64 generation = 0;
        QString metric;
        std::optional<run::ImportanceReport> report;
        QString error; // why there is none
    };
    QWidget *makeScatterPage();
    QWidget *makeParallelPage();
    QWidget *makeImportancePage();
    void load(bool readRuns); // reads what the views need (the runs again too, when asked)
    void loaded();            // a read came back
    void chooseDefaults();    // first values to show, once the names are known
    QStringList neededSpecs() const;
    void redraw(); // the plots from what is read, or a read of what is missing
    void drawScatter();
    void drawParallel();
    void loadImportance();
    void importanceLoaded();
    void showParamMenu();
    RunLook lookOf(const run::RunRecord &record) const;

    run::RunStore *m_store = nullptr;
    QStringList m_ids;
    QSet<QString> m_highlighted;
    RunLooks m_looks;
    quint64 m_generation = 0; // the runs' set: bumped when it changes; reads for an older one are dropped
    bool m_readAgain = false; // a read asked for while one runs: started when it ends
    bool m_pending = false;
    // A read started whose result has not been taken yet (until its watcher's finished(): a new
    // setFuture before it would drop that result).
    bool m_readingBusy = false, m_rankingBusy = false;
    RunsRead m_read;
    RunValueColumns m_values; // for m_read's runs
    bool m_defaultsChosen = false;
    QStringList m_chosenParams;
    bool m_paramsChosenByUser = false;
    bool m_autoLogX = true, m_autoLogY = true; // a value just chosen: its log scale by logByDefault once read
    QString m_importanceShown;                 // "generation/metric" the table shows or is being read

    QLabel *m_caption = nullptr;
    QLineEdit *m_filter = nullptr;
    QTabWidget *m_tabs = nullptr;
    RunValueChooser *m_x = nullptr, *m_y = nullptr, *m_color = nullptr;
    QCheckBox *m_logX = nullptr, *m_logY = nullptr;
    ScatterPlot *m_scatter = nullptr;
    QLabel *m_scatterNote = nullptr;
    RunValueChooser *m_parallelMetric = nullptr;
    QToolButton *m_paramsButton = nullptr;
    QPushButton *m_selectInRange = nullptr;
    ParallelCoordinates *m_parallel = nullptr;
    std::unique_ptr<PlotTable> m_table;
    QWidget *m_importancePage = nullptr;
    RunValueChooser *m_importanceMetric = nullptr;
    QLabel *m_importanceSummary = nullptr;
    QTableView *m_importanceTable = nullptr;
    ImportanceModel *m_importance = nullptr;
    QLabel *m_importanceNotes = nullptr;
    QFutureWatcher<Loaded> m_reading;
    QFutureWatcher<Importance> m_ranking;
};

} // namespace ferry::ui
