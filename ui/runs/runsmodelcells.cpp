// What the runs table's cells and headers show: each column's title, text, sort value, tooltip
// and alignment, and a run's status as an icon.
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

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

constexpr int kShownMetrics = 3;

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
void drawStatusGlyph(QPainter &p, run::RunStatus status, const QRectF &r)
{
    const QPointF c = r.center();
    const qreal s = r.width();
    switch (status) {
    case run::RunStatus::Created:
    case run::RunStatus::Building: { // hollow circle; building with a dot
        p.setPen(QPen(QColor(0x80, 0x80, 0x80), 1.5));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(r.adjusted(1.5, 1.5, -1.5, -1.5));
        if (status == run::RunStatus::Building) {
            p.setBrush(QColor(0x80, 0x80, 0x80));
            p.drawEllipse(c, s * 0.12, s * 0.12);
        }
        break;
    }
    case run::RunStatus::Running: { // blue disc with a play triangle
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
    case run::RunStatus::Succeeded: { // green check
        p.setPen(QPen(QColor(0x2c, 0xa0, 0x2c), 2.2, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
        p.setBrush(Qt::NoBrush);
        QPainterPath check;
        check.moveTo(r.left() + s * 0.15, c.y());
        check.lineTo(r.left() + s * 0.42, r.bottom() - s * 0.2);
        check.lineTo(r.right() - s * 0.12, r.top() + s * 0.18);
        p.drawPath(check);
        break;
    }
    case run::RunStatus::Failed: { // red cross
        p.setPen(QPen(QColor(0xd6, 0x27, 0x28), 2.2, Qt::SolidLine, Qt::RoundCap));
        const qreal m = s * 0.2;
        p.drawLine(QPointF(r.left() + m, r.top() + m), QPointF(r.right() - m, r.bottom() - m));
        p.drawLine(QPointF(r.right() - m, r.top() + m), QPointF(r.left() + m, r.bottom() - m));
        break;
    }
    case run::RunStatus::Cancelled: { // grey stop square
        p.setPen(Qt::NoPen);
        p.setBrush(QColor(0x7f, 0x7f, 0x7f));
        const qreal m = s * 0.2;
        p.drawRect(r.adjusted(m, m, -m, -m));
        break;
    }
    case run::RunStatus::Lost: { // orange ring with a gap: the process is gone, the end unknown
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
    const run::RunRecord &r = row.record;
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

QString RunsModel::costText(const run::RunRecord &record) const
{
    if (record.startedMs <= 0)
        return {};
    const auto c = cost::costOf(record, m_rates, now()).cost();
    return c ? cost::moneyText(*c) : tr("unknown");
}

QVariant RunsModel::displayData(const RunRow &row, int column) const
{
    const run::RunRecord &r = row.record;
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
    const run::RunRecord &r = row.record;
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

int RunsModel::statusOrder(run::RunStatus status)
{
    switch (status) {
    case run::RunStatus::Running:
        return 0;
    case run::RunStatus::Building:
        return 1;
    case run::RunStatus::Created:
        return 2;
    case run::RunStatus::Succeeded:
        return 3;
    case run::RunStatus::Failed:
        return 4;
    case run::RunStatus::Cancelled:
        return 5;
    case run::RunStatus::Lost:
        return 6;
    }
    return 7;
}

QIcon RunsModel::statusIcon(run::RunStatus status, const QColor &colour)
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
