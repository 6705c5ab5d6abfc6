#pragma once

#include "ui/runs/runsmodel.h"

#include <QSortFilterProxyModel>
#include <QStringList>
#include <QTimer>
#include <QWidget>

class QLineEdit;
class QTableView;

namespace ferry::ui {

// Sorts by RunsModel::SortRole and keeps the rows whose id, name, target, status or
// environment contain every word of the filter (case-insensitive).
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

// The runs table: a filter box above a sortable table with one row per run.
class RunsView : public QWidget {
    Q_OBJECT
public:
    explicit RunsView(QWidget *parent = nullptr);

    RunsModel *model() const { return m_model; }
    RunsFilterModel *proxy() const { return m_proxy; }
    QTableView *table() const { return m_table; }
    QLineEdit *filterEdit() const { return m_filter; }

    QStringList selectedRunIds() const; // in table order
    QString currentRunId() const;

public Q_SLOTS:
    void setRows(const QList<ferry::ui::RunRow> &rows); // connect RunsLoader::loaded here
    void selectRuns(const QStringList &runIds);         // the first becomes current

Q_SIGNALS:
    void selectionChanged(const QStringList &runIds); // the runs to overlay in the chart
    void currentRunChanged(const QString &runId);     // empty: none

private:
    void emitSelection();
    void emitCurrent();

    RunsModel *m_model;
    RunsFilterModel *m_proxy;
    QLineEdit *m_filter;
    QTableView *m_table;
    QTimer m_tick; // running runs' durations
    QStringList m_lastSelection;
    QString m_lastCurrent;
};

} // namespace ferry::ui
