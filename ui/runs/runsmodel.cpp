#include "ui/runs/runsmodel.h"

#include "common/durationtext.h"
#include "cost/costreport.h"
#include "cost/money.h"
#include "metrics/terminaltext.h"
#include "tracking/runlabels.h"
#include "ui/chart/runcolors.h"

#include <QDateTime>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>
#include <QPixmap>
#include <QSet>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::ui {

using run::RunRecord;
using run::RunStatus;

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

constexpr int kShownMetrics = 3;
constexpr auto kParameterKey = "hp:"_L1;
constexpr auto kMetricKey = "metric:"_L1;
constexpr std::array kFixedKeys{"status"_L1,   "name"_L1,     "id"_L1,  "target"_L1, "environment"_L1, "started"_L1,
                                "duration"_L1, "progress"_L1, "eta"_L1, "cost"_L1,   "metrics"_L1};
static_assert(kFixedKeys.size() == RunsModel::FixedColumns);

QString metricValueText(double value)
{
    return QString::number(value, 'g', 3);
}

// A metric column's cell: enough digits to tell runs apart (0.0312 from 0.0318).
QString metricCellText(double value)
{
    return QString::number(value, 'g', 4);
}

// The status glyph, drawn rather than taken from an icon theme: every platform shows the same.
void drawStatusGlyph(QPainter &p, RunStatus status, const QRectF &r)
{
    const QPointF c = r.center();
    const qreal s = r.width();
    switch (status) {
    case RunStatus::Created:
    case RunStatus::Building: { // hollow circle; building with a dot
        p.setPen(QPen(QColor(0x80, 0x80, 0x80), 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(r.adjusted(1.5, 1.5, -1.5, -1.5));
        if (status == RunStatus::Building) {
            p.setBrush(QColor(0x80, 0x80, 0x80));
            p.drawEllipse(c, s * 0.12, s * 0.12);
        }
        break;
    }
    case RunStatus::Running: { // blue disc with a play triangle
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x1f, 0x77, 0xb4));
        p.drawEllipse(r.adjusted(0.5, 0.5, -0.5, -0.5));
        QPainterPath play;
        play.moveTo(c.x() - s * 0.15, c.y() - s * 0.22);
        play.lineTo(c.x() + s * 0.25, c.y());
        play.lineTo(c.x() - s * 0.15, c.y() + s * 0.22);
        play.closeSubpath();
        p.setBrush(Qt::white);
        p.drawPath(play);
        break;
    }
    case RunStatus::Succeeded: { // green check
        p.setPen(QPen(QColor(0x2c, 0xa0, 0x2c), 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.setBrush(Qt::NoBrush);
        QPainterPath check;
        check.moveTo(r.left() + s * 0.15, c.y());
        check.lineTo(r.left() + s * 0.42, r.bottom() - s * 0.2);
        check.lineTo(r.right() - s * 0.12, r.top() + s * 0.18);
        p.drawPath(check);
        break;
    }
    case RunStatus::Failed: { // red cross
        p.setPen(QPen(QColor(0xd6, 0x27, 0x28), 2.2, Qt::SolidLine, Qt::RoundCap));
        const qreal m = s * 0.2;
        p.drawLine(QPointF(r.left() + m, r.top() + m), QPointF(r.right() - m, r.bottom() - m));
        p.drawLine(QPointF(r.right() - m, r.top() + m), QPointF(r.left() + m, r.bottom() - m));
        break;
    }
    case RunStatus::Cancelled: { // grey stop square
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x7f, 0x7f, 0x7f));
        const qreal m = s * 0.2;
        p.drawRect(r.adjusted(m, m, -m, -m));
        break;
    }
    case RunStatus::Lost: { // orange ring with a gap: the process is gone, the end unknown
        p.setPen(QPen(QColor(0xff, 0x7f, 0x0e), 2.0, Qt::SolidLine, Qt::RoundCap));
        p.setBrush(Qt::NoBrush);
        p.drawArc(r.adjusted(2, 2, -2, -2), 60 * 16, 270 * 16);
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0xff, 0x7f, 0x0e));
        p.drawEllipse(c, s * 0.1, s * 0.1);
        break;
    }
    }
}

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

QVariant RunsModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation == Qt::Horizontal && section >= FixedColumns && section < columnCount()) {
        if (role == Qt::DisplayRole)
            return columnName(section);
        if (role == Qt::ToolTipRole)
            return columnKind(section) == ColumnKind::Parameter
                       ? tr("Parameter %1 (hp.%1 in the filter)").arg(columnName(section))
                       : tr("Metric %1: its last value (metrics.%1.last in the filter)").arg(columnName(section));
        if (role == Qt::TextAlignmentRole && columnKind(section) == ColumnKind::Metric)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    }
    if (orientation == Qt::Horizontal && role == Qt::ToolTipRole && section == IdColumn)
        return tr("The end of the run's id, as the chart's legend shows it; 'ferry runs show' takes it too");
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case StatusColumn:
        return tr("Status");
    case NameColumn:
        return tr("Name");
    case IdColumn:
        return tr("Id");
    case TargetColumn:
        return tr("Target");
    case EnvironmentColumn:
        return tr("Environment");
    case StartedColumn:
        return tr("Started");
    case DurationColumn:
        return tr("Duration");
    case ProgressColumn:
        return tr("Progress");
    case EtaColumn:
        return tr("ETA");
    case CostColumn:
        return tr("Cost");
    case MetricsColumn:
        return tr("Final metrics");
    default:
        return {};
    }
}

QVariant RunsModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const RunRow &row = m_rows.at(index.row());
    const RunRecord &r = row.record;
    if (index.column() >= FixedColumns && role != RunIdRole && role != FilterRole && role != MatchesRole)
        return dynamicData(row, index.column(), role);
    switch (role) {
    case Qt::DisplayRole:
        return displayData(row, index.column());
    case SortRole:
        return sortData(row, index.column());
    case RunIdRole:
        return r.id;
    case FilterRole:
        return (QStringList{r.id, row.shownName(), r.target, run::runStatusLabel(r), r.environmentTag} + r.tags)
            .join(u'\n');
    case MatchesRole:
        return row.matches;
    case Qt::DecorationRole:
        if (index.column() == StatusColumn)
            return statusIcon(r.status, m_colors ? m_colors->color(r.id) : runPaletteColor(preferredColorSlot(r.id)));
        return {};
    case Qt::ToolTipRole:
        if (index.column() == StatusColumn && !r.error.isEmpty())
            return run::terminalLines(QString(run::runStatusLabel(r) + u": "_s + r.error)); // as the details show it
        if (index.column() == NameColumn || index.column() == IdColumn)
            return r.id;
        if (index.column() == StartedColumn && r.startedMs <= 0 && r.createdMs > 0)
            return tr("Created; not started yet");
        if (index.column() == ProgressColumn || index.column() == EtaColumn) {
            const auto p = shownProgress(r);
            return p ? tr("%1, from the run's %2 (docs/cost.md)").arg(p->text(), run::progressSourceName(p->source))
                     : QVariant();
        }
        if (index.column() == CostColumn && r.startedMs > 0) {
            const cost::RunCost c = cost::costOf(r, m_rates, now());
            return c.rate ? tr("%1/h at %2: %3")
                                .arg(cost::priceText(c.rate->perHour()), c.rate->target, c.rate->rate.source)
                          : tr("No rate for this target: its cost is unknown (Settings › Rates)");
        }
        if (index.column() == MetricsColumn && !row.lastMetrics.isEmpty()) {
            QStringList lines;
            for (auto it = row.lastMetrics.cbegin(); it != row.lastMetrics.cend(); ++it)
                lines << QString(it.key() + u" "_s + metricValueText(it.value()));
            return lines.join(u'\n');
        }
        return {};
    case Qt::TextAlignmentRole:
        if (index.column() == DurationColumn || index.column() == ProgressColumn || index.column() == EtaColumn ||
            index.column() == CostColumn)
            return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
        return {};
    default:
        return {};
    }
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

QString RunsModel::costText(const run::RunRecord &record) const
{
    if (record.startedMs <= 0)
        return {};
    const auto c = cost::costOf(record, m_rates, now()).cost();
    return c ? cost::moneyText(*c) : tr("unknown");
}

QVariant RunsModel::displayData(const RunRow &row, int column) const
{
    const RunRecord &r = row.record;
    switch (column) {
    case StatusColumn: {
        const QString detail = run::isFinished(r.status) ? QString() : m_details.value(r.id);
        return detail.isEmpty() ? run::runStatusLabel(r) : run::runStatusLabel(r) + u" ("_s + detail + u')';
    }
    case NameColumn:
        return row.shownName();
    case IdColumn:
        return run::shortRunId(r.id);
    case TargetColumn:
        return r.target;
    case EnvironmentColumn:
        return r.environmentTag;
    case StartedColumn: {
        const qint64 ms = r.startedMs > 0 ? r.startedMs : r.createdMs;
        if (ms <= 0)
            return QString();
        return QLocale().toString(QDateTime::fromMSecsSinceEpoch(ms).toLocalTime(), u"yyyy-MM-dd HH:mm:ss"_s);
    }
    case DurationColumn: {
        const auto ms = durationMs(r);
        return ms ? durationText(*ms) : QString();
    }
    case ProgressColumn: {
        const auto p = shownProgress(r);
        return p ? u"%1 %"_s.arg(int(std::floor(p->fraction * 100))) : QString();
    }
    case EtaColumn: {
        const auto p = shownProgress(r);
        return p && p->etaSeconds ? durationText(qint64(std::llround(*p->etaSeconds * 1000))) : QString();
    }
    case CostColumn:
        return costText(r);
    case MetricsColumn:
        return keyMetricsText(row.lastMetrics);
    default:
        return {};
    }
}

QVariant RunsModel::sortData(const RunRow &row, int column) const
{
    const RunRecord &r = row.record;
    switch (column) {
    case StatusColumn:
        return statusOrder(r.status);
    case StartedColumn:
        return r.startedMs > 0 ? r.startedMs : r.createdMs;
    case DurationColumn:
        return durationMs(r).value_or(-1);
    case ProgressColumn:
        return shownProgress(r) ? shownProgress(r)->fraction : -1.0;
    case EtaColumn: {
        const auto p = shownProgress(r);
        return p && p->etaSeconds ? *p->etaSeconds : -1.0;
    }
    case CostColumn: {
        const auto c = r.startedMs > 0 ? cost::costOf(r, m_rates, now()).cost() : std::nullopt;
        return c ? *c : -1.0;
    }
    case MetricsColumn: {
        const QString text = keyMetricsText(row.lastMetrics);
        // The first key metric's value: "val_accuracy 0.982 · ..." sorts by 0.982.
        const QString first = text.section(u" · "_s, 0, 0).section(u' ', 0, 0);
        if (first.isEmpty())
            return QVariant(-std::numeric_limits<double>::infinity());
        const double v = row.lastMetrics.value(first);
        return std::isnan(v) ? -std::numeric_limits<double>::infinity() : v;
    }
    default:
        return displayData(row, column);
    }
}

QVariant RunsModel::dynamicData(const RunRow &row, int column, int role) const
{
    const QString name = columnName(column);
    if (columnKind(column) == ColumnKind::Parameter) {
        std::optional<QString> value;
        for (const run::Hyperparameter &p : row.params) {
            if (p.name == name)
                value = p.value;
        }
        if (!value)
            return {};
        switch (role) {
        case Qt::DisplayRole:
        case Qt::ToolTipRole:
            return run::terminalLines(*value);
        case SortRole: {
            bool number = false;
            const double v = value->toDouble(&number);
            return number ? QVariant(v) : QVariant(*value);
        }
        default:
            return {};
        }
    }
    const auto it = row.lastMetrics.constFind(name);
    if (it == row.lastMetrics.cend())
        return {};
    switch (role) {
    case Qt::DisplayRole:
        return metricCellText(it.value());
    case Qt::ToolTipRole:
        return u"%1 %2"_s.arg(name, QString::number(it.value(), 'g', 17));
    case SortRole:
        return std::isnan(it.value()) ? QVariant() : QVariant(it.value());
    case Qt::TextAlignmentRole:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
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

QString RunsModel::keyMetricsText(const QMap<QString, double> &lastMetrics)
{
    const QStringList names = run::keyMetricNames(lastMetrics.keys(), kShownMetrics);
    QStringList parts;
    for (const QString &name : std::as_const(names))
        parts << name + u" "_s + metricValueText(lastMetrics.value(name));
    return parts.join(u" · "_s);
}

QString RunsModel::durationText(qint64 ms)
{
    return ferry::durationText(ms); // common/durationtext.h
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

int RunsModel::statusOrder(RunStatus status)
{
    switch (status) {
    case RunStatus::Running:
        return 0;
    case RunStatus::Building:
        return 1;
    case RunStatus::Created:
        return 2;
    case RunStatus::Succeeded:
        return 3;
    case RunStatus::Failed:
        return 4;
    case RunStatus::Cancelled:
        return 5;
    case RunStatus::Lost:
        return 6;
    }
    return 7;
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

QIcon RunsModel::statusIcon(RunStatus status, const QColor &colour)
{
    // Cached per colour and status: a table repaint asks for every visible row's icon.
    static QHash<QString, QIcon> cache;
    const QString key = colour.name() + QString::number(static_cast<int>(status));
    if (const auto it = cache.constFind(key); it != cache.cend())
        return it.value();
    QIcon icon;
    for (const int scale : {1, 2}) {
        QPixmap pixmap(30 * scale, 16 * scale);
        pixmap.setDevicePixelRatio(scale);
        pixmap.fill(Qt::transparent);
        QPainter p(&pixmap);
        p.setRenderHint(QPainter::Antialiasing);
        p.setPen(QPen(colour.darker(130), 1));
        p.setBrush(colour);
        p.drawRoundedRect(QRectF(1.5, 3.5, 9, 9), 2, 2);
        drawStatusGlyph(p, status, QRectF(14, 1, 14, 14));
        p.end();
        icon.addPixmap(pixmap);
    }
    cache.insert(key, icon);
    return icon;
}

} // namespace ferry::ui
