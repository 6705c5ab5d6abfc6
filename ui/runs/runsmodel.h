// The runs table's model and the loader that reads runs and their last metric values on a worker
// thread.
#pragma once

#include "cost/rates.h"
#include "store/runstore.h"
#include "tracking/progress.h"
#include "tracking/runquery.h"

#include <QAbstractTableModel>
#include <QFutureWatcher>
#include <QHash>
#include <QIcon>
#include <QList>
#include <QMap>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QTimer>

namespace ferry::ui {

class RunColors;

// One run as the runs table shows it: the stored record, its parameters, the last value of each
// metric, the name that tells it from the other runs of its script (run::distinguishingNames:
// "train lr=0.03 seed=2"), and whether the runs view's query selects it (RunsLoader::setQuery).
struct RunRow {
    run::RunRecord record;
    QMap<QString, double> lastMetrics;
    bool matches = true;
    QList<run::Hyperparameter> params = {};
    QString displayName = {}; // empty: the record's name (or id)
    bool operator==(const RunRow &other) const;
    QString shownName() const; // displayName, else the record's name, else its id
};

// The workspace's runs, one row each, with the fixed columns first, then one per parameter any
// run has and one per metric any run has (its last value), each sorted by name. setRows() applies
// the difference to what is shown (rows and columns inserted, removed, changed), so selections,
// scroll positions and the columns a person chose survive refreshes.
class RunsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        StatusColumn,
        NameColumn,
        IdColumn, // the short id legends show (run::shortRunId)
        TargetColumn,
        EnvironmentColumn,
        StartedColumn,
        DurationColumn,
        ProgressColumn, // how far a running run is (tracking/progress.h): "45 %"
        EtaColumn,      // the time left at its recent rate
        CostColumn,     // its cost so far (cost::costOf: its time × its rate), "unknown" without a rate
        MetricsColumn,  // the key metrics in one cell, hidden by default: the metric columns say more
        FixedColumns
    };
    enum Role {
        // Raw values: status order, ms since the epoch, duration ms, a metric's last value, a
        // parameter's value as a number where it reads as one; none where the run has no value.
        SortRole = Qt::UserRole + 1,
        RunIdRole,
        FilterRole,  // id, name, target, status, environment and tags in one string
        MatchesRole, // bool: the query selects the run (RunRow::matches)
    };
    enum class ColumnKind { Fixed, Parameter, Metric };

    explicit RunsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

    void setRows(QList<RunRow> rows);
    // Where the runs' colours come from (the chart's; ui/chart/runcolors.h): their swatches are
    // the colours their curves have. Not owned; nullptr: each run's preferred colour.
    void setRunColors(RunColors *colors);
    // What the target says about a run not over yet, shown beside its status ("pending,
    // position 2 in the queue, waiting for: Resources"); empty clears it.
    void setDetail(const QString &runId, const QString &detail);
    // How far a run not over yet is (RunMonitor's progress); `known` false clears it.
    void setProgress(const QString &runId, bool known, const ferry::run::Progress &progress);
    std::optional<run::Progress> progress(const QString &runId) const;
    // The rates its Cost column prices runs at (cost::costOf, at now()).
    void setRates(const cost::Rates &rates);
    // A run's cost as the Cost column says it: "1.23 USD", "unknown" (no rate: never 0), "" (not started).
    QString costText(const run::RunRecord &record) const;
    const QList<RunRow> &rows() const { return m_rows; }
    int rowOf(const QString &runId) const; // -1: not shown
    QString runId(int row) const;

    // What a column shows, and a key naming it across refreshes and restarts ("name",
    // "hp:lr", "metric:val_loss"): the column chooser keeps its choices by these keys.
    ColumnKind columnKind(int column) const;
    QString columnName(int column) const; // a parameter's or metric's name; a fixed column's header
    QString columnKey(int column) const;
    int columnOfKey(const QString &key) const; // -1: no such column now
    const QStringList &parameterNames() const { return m_params; }
    const QStringList &metricNames() const { return m_metrics; }

    // The clock running runs' durations are measured against (0: the system clock). Changing
    // it repaints those durations; the view calls it every second.
    void setNow(qint64 nowMs);
    qint64 now() const;

    static QString keyMetricsText(const QMap<QString, double> &lastMetrics); // "val_accuracy 0.982 · loss 0.041"
    static QString durationText(qint64 ms);                                  // "2h 05m", "3m 07s", "12s", "0.4s"
    static int statusOrder(run::RunStatus status);                           // running first, lost last
    static QIcon statusIcon(run::RunStatus status, const QColor &colour);    // run colour swatch + status glyph
    std::optional<qint64> durationMs(const run::RunRecord &record) const;    // empty: not started

    // The ids of the `count` most recently started (else created) runs that have metrics, newest first.
    static QStringList newestRunsWithMetrics(const QList<RunRow> &rows, int count);

private:
    QVariant displayData(const RunRow &row, int column) const;
    std::optional<run::Progress> shownProgress(const run::RunRecord &record) const;
    QVariant sortData(const RunRow &row, int column) const;
    QVariant dynamicData(const RunRow &row, int column, int role) const; // a parameter's or metric's cell
    void setColumns(const QStringList &params, const QStringList &metrics);
    // Removes the names `now` lacks and inserts those it adds, as columns from `first` on.
    void updateColumns(QStringList &shown, const QStringList &now, int first);

    QList<RunRow> m_rows;
    QPointer<RunColors> m_colors;
    QStringList m_params;  // sorted: the columns after the fixed ones
    QStringList m_metrics; // sorted: the columns after the parameters'
    qint64 m_nowMs = 0;
    QHash<QString, QString> m_details;        // run id -> detail, while the run is not over
    QHash<QString, run::Progress> m_progress; // run id -> progress, while the run is not over
    cost::Rates m_rates;
};

// Reads the runs and their last metric values from the store on a worker thread, every
// `interval` while started and on demand, and hands them over as plain values.
class RunsLoader : public QObject {
    Q_OBJECT
public:
    explicit RunsLoader(QObject *parent = nullptr);
    ~RunsLoader() override; // waits for a read in progress

    // The store must outlive the loader or be replaced first: setStore waits for a read that
    // uses the old one. nullptr: nothing is read (and an empty list is emitted).
    void setStore(run::RunStore *store);
    run::RunStore *store() const { return m_store; }

    void start(int intervalMs = 1000);
    void stop();
    bool isLoading() const { return m_watcher.isRunning(); }

    // The blocking read itself; any thread. Finished runs found in `cache` are not read again
    // (their last values and parameters no longer change). Each row says whether `query`
    // selects its run.
    struct CachedRun {
        QMap<QString, double> lastMetrics;
        QList<run::Hyperparameter> params;
    };
    using MetricCache = QHash<QString, CachedRun>;
    static QList<RunRow> load(const run::RunStore &store, MetricCache &cache, const run::RunQuery &query = {});

public Q_SLOTS:
    void reload(); // a read now; if one is running, one more right after it
    // The query the rows are matched against from the next read on (which starts now).
    void setQuery(const ferry::run::RunQuery &query);

Q_SIGNALS:
    void loaded(const QList<ferry::ui::RunRow> &rows);

private:
    struct Result {
        QList<RunRow> rows;
        MetricCache cache;
    };
    void finished();

    run::RunStore *m_store = nullptr;
    QTimer m_timer;
    QFutureWatcher<Result> m_watcher;
    MetricCache m_cache; // last metrics and parameters of finished runs: they no longer change
    run::RunQuery m_query;
    bool m_again = false;
};

} // namespace ferry::ui
