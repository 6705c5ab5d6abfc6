#include "ui/sweep/sweeptrialsmodel.h"

#include "ui/chart/chartaxis.h"
#include "ui/runs/runsmodel.h"

#include <QDateTime>
#include <QFont>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

void SweepTrialsModel::setSweep(const sweep::SweepSpec &spec, const sweep::SweepState &state)
{
    const bool sameShape = spec.parameters.size() == m_spec.parameters.size() && state.id == m_state.id &&
                           state.trials.size() == m_state.trials.size();
    if (sameShape) { // the same rows: their cells change, the selection and sorting stay
        m_spec = spec;
        m_state = state;
        m_best = state.best(spec.goal);
        if (rowCount() > 0)
            Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, columnCount() - 1));
        return;
    }
    beginResetModel();
    m_spec = spec;
    m_state = state;
    m_best = state.best(spec.goal);
    endResetModel();
}

void SweepTrialsModel::setRunsModel(const RunsModel *runs)
{
    if (m_runs)
        disconnect(m_runs, nullptr, this, nullptr);
    m_runs = runs;
    if (runs) {
        connect(runs, &QAbstractItemModel::dataChanged, this, [this] {
            if (rowCount() > 0)
                Q_EMIT dataChanged(index(0, ProgressColumn), index(rowCount() - 1, CostColumn));
        });
    }
}

// A trial's progress, ETA and cost, as the runs table has its run's.
QVariant SweepTrialsModel::liveData(const sweep::Trial &trial, int column, int role) const
{
    const int row = m_runs && !trial.runId.isEmpty() ? m_runs->rowOf(trial.runId) : -1;
    if (row < 0)
        return role == SortRole ? QVariant(-1.0) : QVariant();
    const int runsColumn = column == ProgressColumn ? RunsModel::ProgressColumn
                           : column == EtaColumn    ? RunsModel::EtaColumn
                                                    : RunsModel::CostColumn;
    return m_runs->index(row, runsColumn).data(role == SortRole ? int(RunsModel::SortRole) : role);
}

int SweepTrialsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_state.trials.size());
}

int SweepTrialsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FirstParameterColumn + int(m_spec.parameters.size());
}

QVariant SweepTrialsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case TrialColumn:
        return tr("Trial");
    case StatusColumn:
        return tr("Status");
    case ObjectiveColumn:
        return m_spec.metric.isEmpty() ? tr("Objective") : m_spec.metric;
    case DurationColumn:
        return tr("Duration");
    case ProgressColumn:
        return tr("Progress");
    case EtaColumn:
        return tr("ETA");
    case CostColumn:
        return tr("Cost");
    default:
        return m_spec.parameters.value(section - FirstParameterColumn).name;
    }
}

QVariant SweepTrialsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_state.trials.size())
        return {};
    const sweep::Trial &t = m_state.trials[index.row()];
    if (role == TrialRole)
        return t.number;
    if (role == Qt::FontRole && m_best && *m_best == t.number) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole && index.column() == StatusColumn && !t.detail.isEmpty())
        return t.detail;
    const qint64 end = t.finishedMs > 0 ? t.finishedMs : QDateTime::currentMSecsSinceEpoch();
    const qint64 duration = t.startedMs > 0 ? std::max<qint64>(0, end - t.startedMs) : -1;
    const int column = index.column();
    if (column >= ProgressColumn && column <= CostColumn &&
        (role == SortRole || role == Qt::DisplayRole || role == Qt::ToolTipRole))
        return liveData(t, column, role);
    if (role == SortRole) {
        switch (column) {
        case TrialColumn:
            return t.number;
        case StatusColumn:
            return int(t.status);
        case ObjectiveColumn: // trials without one after the others, whichever the order
            return t.objective ? QVariant(m_spec.goal == sweep::Goal::Minimize ? *t.objective : -*t.objective)
                               : QVariant(std::numeric_limits<double>::infinity());
        case DurationColumn:
            return duration;
        default: {
            const QString value = t.hyperparameters.value(column - FirstParameterColumn).value;
            bool number = false;
            const double v = value.toDouble(&number);
            return number ? QVariant(v) : QVariant(value);
        }
        }
    }
    if (role == Qt::TextAlignmentRole && column != StatusColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole)
        return {};
    switch (column) {
    case TrialColumn:
        return m_best && *m_best == t.number ? tr("%1 (best)").arg(t.number) : QString::number(t.number);
    case StatusColumn:
        return sweep::trialStatusText(t.status);
    case ObjectiveColumn:
        return t.objective ? formatValue(*t.objective) : QString();
    case DurationColumn:
        return duration >= 0 ? RunsModel::durationText(duration) : QString();
    default:
        return t.hyperparameters.value(column - FirstParameterColumn).value;
    }
}

SweepTrialsFilter::SweepTrialsFilter(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(SweepTrialsModel::SortRole);
}

void SweepTrialsFilter::setTrials(std::optional<QSet<int>> trials)
{
    m_trials = std::move(trials);
    invalidateFilter();
}

bool SweepTrialsFilter::filterAcceptsRow(int row, const QModelIndex &parent) const
{
    if (!m_trials)
        return true;
    const int trial = sourceModel()->index(row, 0, parent).data(SweepTrialsModel::TrialRole).toInt();
    return m_trials->contains(trial);
}

} // namespace ferry::ui
