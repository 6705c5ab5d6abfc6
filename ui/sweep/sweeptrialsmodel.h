// The sweep view's table model of trials, and the filter that keeps those the parallel coordinates
// let through.
#pragma once

// A sweep's trials as the sweep view's table shows them: trial, status, objective, duration, progress,
// ETA, cost and
// one column per searched parameter; sortable by raw values (SortRole), filtered to the trials
// the parallel coordinates let through (SweepTrialsFilter).
#include "sweep/sweepfile.h"
#include "sweep/sweepstate.h"

#include <QAbstractTableModel>
#include <QPointer>
#include <QSet>
#include <QSortFilterProxyModel>

#include <optional>

namespace ferry::ui {

class RunsModel;

class SweepTrialsModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column {
        TrialColumn,
        StatusColumn,
        ObjectiveColumn,
        DurationColumn,
        ProgressColumn, // a running trial's progress, ETA and cost so far: the runs table's (setRunsModel)
        EtaColumn,
        CostColumn,
        FirstParameterColumn
    };
    enum Role { SortRole = Qt::UserRole + 1, TrialRole };

    using QAbstractTableModel::QAbstractTableModel;

    void setSweep(const sweep::SweepSpec &spec, const sweep::SweepState &state);
    const sweep::SweepState &state() const { return m_state; }
    const sweep::SweepSpec &spec() const { return m_spec; }
    // Where the trials' progress, ETA and cost come from: the window's runs table model (its
    // progress, rates and clock, docs/cost.md); its changes repaint those columns. Not owned.
    void setRunsModel(const RunsModel *runs);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    QVariant liveData(const sweep::Trial &trial, int column, int role) const;

    QPointer<const RunsModel> m_runs;
    sweep::SweepSpec m_spec;
    sweep::SweepState m_state;
    std::optional<int> m_best;
};

class SweepTrialsFilter : public QSortFilterProxyModel {
    Q_OBJECT
public:
    explicit SweepTrialsFilter(QObject *parent = nullptr);
    // nullopt: every trial.
    void setTrials(std::optional<QSet<int>> trials);

protected:
    bool filterAcceptsRow(int row, const QModelIndex &parent) const override;

private:
    std::optional<QSet<int>> m_trials;
};

} // namespace ferry::ui
