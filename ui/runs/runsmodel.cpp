#include "ui/runs/runsmodel.h"

#include "ui/chart/runcolors.h"

#include <QDateTime>
#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

using run::RunRecord;

bool RunRow::operator==(const RunRow &other) const
{
    if (!(record == other.record) || matches != other.matches || lastMetrics.size() != other.lastMetrics.size() ||
        params != other.params || displayName != other.displayName)
        return false;
    // NaN != NaN: compare bit for bit, so a NaN metric is not a change on every refresh.
    for (auto a = lastMetrics.cbegin(), b = other.lastMetrics.cbegin(); a != lastMetrics.cend(); ++a, ++b) {
        if (a.key() != b.key() || !(a.value() == b.value() || (std::isnan(a.value()) && std::isnan(b.value()))))
            return false;
    }
    return true;
}

QString RunRow::shownName() const
{
    if (!displayName.isEmpty())
        return displayName;
    return record.name.isEmpty() ? record.id : record.name;
}

namespace {

constexpr auto kParameterKey = "hp:"_L1;
constexpr auto kMetricKey = "metric:"_L1;
constexpr std::array kFixedKeys{"status"_L1,   "name"_L1,     "id"_L1,  "target"_L1, "environment"_L1, "started"_L1,
                                "duration"_L1, "progress"_L1, "eta"_L1, "cost"_L1,   "metrics"_L1};
static_assert(kFixedKeys.size() == RunsModel::FixedColumns);

} // namespace

RunsModel::RunsModel(QObject *parent) : QAbstractTableModel(parent) {}

int RunsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int RunsModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : FixedColumns + int(m_params.size() + m_metrics.size());
}

RunsModel::ColumnKind RunsModel::columnKind(int column) const
{
    if (column < FixedColumns)
        return ColumnKind::Fixed;
    return column < FixedColumns + m_params.size() ? ColumnKind::Parameter : ColumnKind::Metric;
}

QString RunsModel::columnName(int column) const
{
    switch (columnKind(column)) {
    case ColumnKind::Fixed:
        return headerData(column, Qt::Horizontal).toString();
    case ColumnKind::Parameter:
        return m_params.value(column - FixedColumns);
    case ColumnKind::Metric:
        break;
    }
    return m_metrics.value(column - FixedColumns - int(m_params.size()));
}

QString RunsModel::columnKey(int column) const
{
    if (column < 0 || column >= columnCount())
        return {};
    switch (columnKind(column)) {
    case ColumnKind::Fixed:
        return QString(kFixedKeys.at(std::size_t(column)));
    case ColumnKind::Parameter:
        return kParameterKey + columnName(column);
    case ColumnKind::Metric:
        break;
    }
    return kMetricKey + columnName(column);
}

int RunsModel::columnOfKey(const QString &key) const
{
    if (key.startsWith(kParameterKey)) {
        const qsizetype at = m_params.indexOf(key.mid(kParameterKey.size()));
        return at < 0 ? -1 : FixedColumns + int(at);
    }
    if (key.startsWith(kMetricKey)) {
        const qsizetype at = m_metrics.indexOf(key.mid(kMetricKey.size()));
        return at < 0 ? -1 : FixedColumns + int(m_params.size() + at);
    }
    const auto it = std::find(kFixedKeys.cbegin(), kFixedKeys.cend(), key);
    return it == kFixedKeys.cend() ? -1 : int(it - kFixedKeys.cbegin());
}

void RunsModel::setDetail(const QString &runId, const QString &detail)
{
    if (m_details.value(runId) == detail)
        return;
    if (detail.isEmpty())
        m_details.remove(runId);
    else
        m_details.insert(runId, detail);
    if (const int row = rowOf(runId); row >= 0)
        Q_EMIT dataChanged(index(row, StatusColumn), index(row, StatusColumn));
}

void RunsModel::setProgress(const QString &runId, bool known, const run::Progress &progress)
{
    if (known)
        m_progress.insert(runId, progress);
    else if (!m_progress.remove(runId))
        return;
    if (const int row = rowOf(runId); row >= 0)
        Q_EMIT dataChanged(index(row, ProgressColumn), index(row, EtaColumn), {Qt::DisplayRole, SortRole});
}

std::optional<run::Progress> RunsModel::progress(const QString &runId) const
{
    const int row = rowOf(runId);
    return row < 0 ? std::nullopt : shownProgress(m_rows.at(row).record);
}

std::optional<run::Progress> RunsModel::shownProgress(const run::RunRecord &record) const
{
    const auto it = m_progress.constFind(record.id);
    if (it == m_progress.cend() || run::isFinished(record.status))
        return std::nullopt; // over: its duration says the rest
    return *it;
}

void RunsModel::setRates(const cost::Rates &rates)
{
    m_rates = rates;
    if (!m_rows.isEmpty())
        Q_EMIT dataChanged(index(0, CostColumn), index(int(m_rows.size()) - 1, CostColumn));
}

std::optional<qint64> RunsModel::durationMs(const RunRecord &r) const
{
    if (r.startedMs <= 0)
        return std::nullopt;
    if (r.finishedMs > 0)
        return std::max<qint64>(0, r.finishedMs - r.startedMs);
    if (run::isFinished(r.status))
        return std::nullopt; // ended without a recorded time
    return std::max<qint64>(0, now() - r.startedMs);
}

qint64 RunsModel::now() const
{
    return m_nowMs > 0 ? m_nowMs : QDateTime::currentMSecsSinceEpoch();
}

void RunsModel::setNow(qint64 nowMs)
{
    m_nowMs = nowMs;
    for (int i = 0; i < m_rows.size(); ++i) {
        const RunRecord &r = m_rows.at(i).record;
        if (r.startedMs > 0 && r.finishedMs <= 0 && !run::isFinished(r.status)) {
            Q_EMIT dataChanged(index(i, DurationColumn), index(i, CostColumn), {Qt::DisplayRole, SortRole});
        }
    }
}

int RunsModel::rowOf(const QString &runId) const
{
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows.at(i).record.id == runId)
            return i;
    }
    return -1;
}

QString RunsModel::runId(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).record.id : QString();
}

void RunsModel::updateColumns(QStringList &shown, const QStringList &now, int first)
{
    for (int i = int(shown.size()) - 1; i >= 0; --i) {
        if (now.contains(shown.at(i)))
            continue;
        beginRemoveColumns({}, first + i, first + i);
        shown.removeAt(i);
        endRemoveColumns();
    }
    // Both sorted: each new name goes where it sorts.
    for (int i = 0; i < now.size(); ++i) {
        if (i < shown.size() && shown.at(i) == now.at(i))
            continue;
        beginInsertColumns({}, first + i, first + i);
        shown.insert(i, now.at(i));
        endInsertColumns();
    }
}

void RunsModel::setColumns(const QStringList &params, const QStringList &metrics)
{
    updateColumns(m_params, params, FixedColumns);
    updateColumns(m_metrics, metrics, FixedColumns + int(m_params.size()));
}

void RunsModel::setRows(QList<RunRow> rows)
{
    // The columns of the runs the query keeps: those it filters away would add only empty ones.
    const bool anyMatches = std::any_of(rows.cbegin(), rows.cend(), [](const RunRow &row) { return row.matches; });
    QSet<QString> paramSet, metricSet;
    for (const RunRow &row : std::as_const(rows)) {
        if (anyMatches && !row.matches)
            continue;
        for (const run::Hyperparameter &p : row.params)
            paramSet.insert(p.name);
        for (auto it = row.lastMetrics.cbegin(); it != row.lastMetrics.cend(); ++it)
            metricSet.insert(it.key());
    }
    QStringList params(paramSet.cbegin(), paramSet.cend()), metrics(metricSet.cbegin(), metricSet.cend());
    params.sort();
    metrics.sort();
    if (params != m_params || metrics != m_metrics)
        setColumns(params, metrics);

    // Ids later in the list than an earlier row with the same id are dropped: one row per run.
    QSet<QString> incoming;
    for (auto it = rows.begin(); it != rows.end();) {
        if (incoming.contains(it->record.id)) {
            it = rows.erase(it);
        } else {
            incoming.insert(it->record.id);
            ++it;
        }
    }

    // 1. Removals, as contiguous ranges from the end so the earlier indexes stay valid.
    for (int last = static_cast<int>(m_rows.size()) - 1; last >= 0;) {
        if (incoming.contains(m_rows.at(last).record.id)) {
            --last;
            continue;
        }
        int first = last;
        while (first > 0 && !incoming.contains(m_rows.at(first - 1).record.id))
            --first;
        beginRemoveRows({}, first, last);
        m_rows.remove(first, last - first + 1);
        endRemoveRows();
        last = first - 1;
    }

    // 2. Walk the new list: keep and update rows in place, move those that changed places,
    // insert new ones where they belong. What stays is never reset.
    for (int i = 0; i < rows.size(); ++i) {
        RunRow &row = rows[i];
        if (i < m_rows.size() && m_rows.at(i).record.id == row.record.id) {
            if (!(m_rows.at(i) == row)) {
                m_rows[i] = std::move(row);
                Q_EMIT dataChanged(index(i, 0), index(i, columnCount() - 1));
            }
            continue;
        }
        int from = -1;
        for (int j = i + 1; j < m_rows.size(); ++j) {
            if (m_rows.at(j).record.id == row.record.id) {
                from = j;
                break;
            }
        }
        if (from >= 0) {
            beginMoveRows({}, from, from, {}, i);
            m_rows.move(from, i);
            endMoveRows();
            if (!(m_rows.at(i) == row)) {
                m_rows[i] = std::move(row);
                Q_EMIT dataChanged(index(i, 0), index(i, columnCount() - 1));
            }
            continue;
        }
        beginInsertRows({}, i, i);
        m_rows.insert(i, std::move(row));
        endInsertRows();
    }
}

QStringList RunsModel::newestRunsWithMetrics(const QList<RunRow> &rows, int count)
{
    QList<const RunRow *> withMetrics;
    for (const RunRow &row : rows) {
        if (!row.lastMetrics.isEmpty())
            withMetrics << &row;
    }
    const auto started = [](const RunRow *row) {
        return row->record.startedMs ? row->record.startedMs : row->record.createdMs;
    };
    std::stable_sort(withMetrics.begin(), withMetrics.end(),
                     [&](const RunRow *a, const RunRow *b) { return started(a) > started(b); });
    QStringList ids;
    for (qsizetype i = 0; i < withMetrics.size() && i < count; ++i)
        ids << withMetrics[i]->record.id;
    return ids;
}

void RunsModel::setRunColors(RunColors *colors)
{
    if (m_colors)
        disconnect(m_colors, nullptr, this, nullptr);
    m_colors = colors;
    const auto repaint = [this] {
        if (!m_rows.isEmpty())
            Q_EMIT dataChanged(index(0, StatusColumn), index(rowCount() - 1, StatusColumn), {Qt::DecorationRole});
    };
    if (m_colors)
        connect(m_colors, &RunColors::changed, this, repaint);
    repaint();
}

} // namespace ferry::ui
