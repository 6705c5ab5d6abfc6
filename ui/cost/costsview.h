// CostsView: the cost report in the window (Run > Costs): what the workspace's runs and kernels
// took and cost, per run or grouped by target, sweep, tag or month, as `ferry cost report` has it.
#pragma once

#include "cost/costreport.h"
#include "store/runstore.h"

#include <QFutureWatcher>
#include <QWidget>

class QComboBox;
class QDateEdit;
class QLabel;
class QTableWidget;

namespace ferry::ui {

// The report of core/cost/costreport.h over the store's runs and the kernels' sessions, read off
// the GUI thread (a kernel on a host is probed): one row per run, or per group with the same
// grouping as `--by`, the total below, each cost with its rate and that rate's source; a run at
// an unknown rate says "unknown", never 0.
class CostsView : public QWidget {
    Q_OBJECT
public:
    explicit CostsView(QWidget *parent = nullptr);
    ~CostsView() override; // waits for a read in progress

    // What it reports on; `store` must outlive the view or be replaced first (nullptr: nothing).
    void setSource(run::RunStore *store, const QString &kernelsDir, const QString &ferryBinary,
                   const cost::Rates &rates);
    // Reads the runs and kernels again (the rates as set).
    void refresh();
    // The blocking read: the report's rows since `sinceMs` (runs, then kernels), any thread.
    static QList<cost::RunCost> load(const run::RunStore &store, const QString &kernelsDir, const QString &ferryBinary,
                                     const cost::Rates &rates, qint64 sinceMs, qint64 nowMs);

    QComboBox *groupingBox() const { return m_grouping; } // Run, Target, Sweep, Tag, Month
    QDateEdit *sinceEdit() const { return m_since; }
    QTableWidget *table() const { return m_table; }
    QLabel *totalLabel() const { return m_total; }
    bool isLoading() const { return m_watcher.isRunning(); }

Q_SIGNALS:
    void loaded(); // the table shows the last read

private:
    void showRows();
    void showRuns();
    void showGroups(cost::Grouping grouping);

    run::RunStore *m_store = nullptr;
    QString m_kernelsDir;
    QString m_ferry;
    cost::Rates m_rates;
    QList<cost::RunCost> m_rows;
    QFutureWatcher<QList<cost::RunCost>> m_watcher;
    bool m_again = false;
    QComboBox *m_grouping;
    QDateEdit *m_since;
    QTableWidget *m_table;
    QLabel *m_total;
};

} // namespace ferry::ui
