// RunsView: the sortable runs table with a filter box that takes words or a run query.
#pragma once

#include "ui/runs/runsmodel.h"

#include <QSortFilterProxyModel>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QLabel;
class QLineEdit;
class QTableView;

namespace ferry::ui {

// Sorts by RunsModel::SortRole and keeps the rows the query selects (RunsModel::MatchesRole) whose
// id, name, target, status, environment or tags contain every word of the filter (case-insensitive).
class RunsFilterModel : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit RunsFilterModel(QObject *parent = nullptr);
    void setFilterWords(const QString &text);

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QStringList m_words;
};

// The runs table: a filter box above a sortable table with one row per run. The filter is words,
// or a query (docs/run-queries.md: `hp.lr < 0.01 and tag = baseline`) when it has an operator or a
// parenthesis; a query that does not parse is said below the box, with its column.
class RunsView : public QWidget {
    Q_OBJECT
public:
    explicit RunsView(QWidget *parent = nullptr);

    RunsModel *model() const { return m_model; }
    RunsFilterModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }
    QLabel *filterError() const { return m_filterError; }
    // Whether the filter text is read as a query rather than as words.
    static bool isQuery(const QString &filterText);

    QStringList selectedRunIds() const; // in table order
    QString currentRunId() const;

public Q_SLOTS:
    void setRows(const QList<ferry::ui::RunRow> &rows); // connect RunsLoader::loaded here
    void selectRuns(const QStringList &runIds);         // the first becomes current

Q_SIGNALS:
    void selectionChanged(const QStringList &runIds); // the runs to overlay in the chart
    void currentRunChanged(const QString &runId);     // empty: none
    // The filter's query changed (empty: none); connect RunsLoader::setQuery here.
    void queryChanged(const ferry::run::RunQuery &query);

private:
    void emitSelection();
    void emitCurrent();
    void filterChanged(const QString &text);

    RunsModel *m_model;
    RunsFilterModel *m_proxy;
    QLineEdit *m_filter;
    QLabel *m_filterError;
    QString m_query; // the text of the query in force; empty: none
    QTableView *m_table;
    QTimer m_tick; // running runs' durations
    QStringList m_lastSelection;
    QString m_lastCurrent;
};

} // namespace ferry::ui
