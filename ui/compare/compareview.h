// CompareView: two or more runs side by side against a baseline, with parameters, code diffs,
// environments and metrics.
#pragma once

// Two or more runs side by side (Run ▸ Compare, the runs table's context menu): the first
// selected run is the baseline, each other run is compared with it. Tabs: the parameters that
// differ (or all), the code (per file, a unified diff, highlighted), the environments' changes,
// where each run stood (target, snapshot, git) and what else differs, and the metrics (last,
// best, at a chosen step, each other run's difference from the baseline) above their curves
// overlaid in the chart panels. Read off the GUI thread. Escape, Ctrl+W and Close close it.
#include "ui/compare/comparison.h"

#include <QFutureWatcher>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QListWidget;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTableWidget;
class QTabWidget;
class QTreeWidget;

namespace ferry::ui {

class DiffHighlighter;
class LossChartPanel;

class CompareView : public QWidget {
    Q_OBJECT
public:
    explicit CompareView(QWidget *parent = nullptr);
    ~CompareView() override; // waits for a read in progress

    // The store must outlive this view or be replaced first (this waits for a read using it).
    void setStore(run::RunStore *store, const QString &runsDir);
    // Reads and compares the runs on a worker thread (the first is the baseline); `loaded` when shown.
    void compare(const QStringList &runIds);

    const std::optional<Comparison> &comparison() const { return m_comparison; }
    QTabWidget *tabs() const { return m_tabs; }
    QTableWidget *parameterTable() const { return m_parameters; }
    QCheckBox *showAllParameters() const { return m_allParameters; }
    QComboBox *codeAgainst() const { return m_against; }
    QListWidget *fileList() const { return m_files; }
    QPlainTextEdit *diffText() const { return m_diff; }
    DiffHighlighter *highlighter() const { return m_highlighter; }
    QTreeWidget *environmentTree() const { return m_environment; }
    QTableWidget *setupTable() const { return m_setup; }
    QTreeWidget *otherDifferences() const { return m_other; }
    QTableWidget *metricTable() const { return m_metrics; }
    QSpinBox *stepBox() const { return m_step; }
    LossChartPanel *curves() const { return m_curves; }
    QPushButton *closeButton() const { return m_close; }

Q_SIGNALS:
    void loaded(); // the comparison is shown
    void problem(const ferry::Error &error);

private:
    QWidget *buildCodePage();
    QWidget *buildMetricsPage();
    void read();
    void showComparison(const Comparison &comparison);
    void showPair(int index); // the code of the baseline against run index + 1
    void showFile(int row);
    void showParameters();
    void showMetrics();

    run::RunStore *m_store = nullptr;
    QString m_objectsDir;
    QStringList m_requested;
    bool m_readAgain = false;
    QFutureWatcher<Expected<Comparison>> m_watcher;
    std::optional<Comparison> m_comparison;

    QLabel *m_summary;
    QTabWidget *m_tabs;
    QCheckBox *m_allParameters;
    QTableWidget *m_parameters;
    QComboBox *m_against;
    QLabel *m_codeNote;
    QListWidget *m_files;
    QPlainTextEdit *m_diff;
    DiffHighlighter *m_highlighter;
    QTreeWidget *m_environment;
    QTableWidget *m_setup;
    QTreeWidget *m_other;
    QSpinBox *m_step;
    QTableWidget *m_metrics;
    LossChartPanel *m_curves;
    QPushButton *m_close = nullptr;
};

} // namespace ferry::ui
