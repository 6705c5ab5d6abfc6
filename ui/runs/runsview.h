// RunsView: the sortable runs table with a filter box that takes words or a run query.
#pragma once

#include "ui/runs/runsmodel.h"

#include <QSortFilterProxyModel>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QMenu;
class QSettings;
class QTableView;

namespace ferry::ui {

// Sorts by RunsModel::SortRole (numbers as numbers, before words; a run without a value last in
// either order) and keeps the rows the query selects (RunsModel::MatchesRole) whose id, name,
// target, status, environment or tags contain every word of the filter (case-insensitive).
class RunsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunsFilterModel(QObject *parent = nullptr);
    void setFilterWords(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;
    bool lessThan(const QModelIndex &left, const QModelIndex &right) const override;

private:
    QStringList m_words;
};

// The runs table: a filter box above a sortable table with one row per run, a column per
// parameter and per metric. The filter is words, or a query (docs/run-queries.md: `hp.lr < 0.01
// and tag = baseline`) when it has an operator or a parenthesis; a query that does not parse is
// said below the box, with its column. The header's context menu chooses the columns shown; the
// choices are kept in the settings given (setSettings), by column key (RunsModel::columnKey).
class RunsView : public QWidget {
    Q_OBJECT
public:
    explicit RunsView(QWidget *parent = nullptr);

    RunsModel *model() const { return m_model; }
    RunsFilterModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }
    QLabel *filterError() const { return m_filterError; }
    QLabel *emptyHint() const { return m_emptyHint; } // over the table while it shows no run
    // Whether the filter text is read as a query rather than as words.
    static bool isQuery(const QString &filterText);

    // Where the column choices are kept (nullptr: nowhere); they apply at once.
    void setSettings(QSettings *settings);
    // The column chooser (the header's context menu): one checkable entry per column, the
    // parameters' and metrics' under their own headings. The caller owns it.
    QMenu *columnMenu(QWidget *parent);
    bool isColumnShown(const QString &key) const;
    void setColumnShown(const QString &key, bool shown); // kept in the settings
    // Shown unless chosen otherwise: every column but the key-metrics cell and the machine's samples.
    static bool shownByDefault(const QString &key);

    QStringList selectedRunIds() const; // in table order
    // The run whose details and log are shown: the current row while selected, else the first
    // selected; empty with none selected.
    QString currentRunId() const;

public Q_SLOTS:
    void setRows(const QList<ferry::ui::RunRow> &rows); // connect RunsLoader::loaded here
    void selectRuns(const QStringList &runIds);         // the first becomes current

Q_SIGNALS:
    void selectionChanged(const QStringList &runIds); // the runs to overlay in the chart
    void currentRunChanged(const QString &runId);     // empty: none (currentRunId)
    // The filter's query changed (empty: none); connect RunsLoader::setQuery here.
    void queryChanged(const ferry::run::RunQuery &query);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override; // the hint follows the table's size

private:
    void emitSelection();
    void emitCurrent();
    void filterChanged(const QString &text);
    void columnsAdded(int first, int last); // their width and whether they show
    void showColumnMenu(const QPoint &at);
    void updateEmptyHint();
    QList<int> selectedRows() const; // the proxy's rows with a cell selected, in order

    RunsModel *m_model;
    RunsFilterModel *m_proxy;
    QLineEdit *m_filter;
    QLabel *m_filterError;
    QString m_query; // the text of the query in force; empty: none
    QTableView *m_table;
    QLabel *m_emptyHint;
    QSettings *m_settings = nullptr;
    QStringList m_hidden, m_shown; // the columns chosen hidden, and shown though hidden by default
    QTimer m_tick;                 // running runs' durations
    QStringList m_lastSelection;
    QString m_lastCurrent;
};

} // namespace ferry::ui
