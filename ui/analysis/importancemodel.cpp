#include "ui/analysis/importancemodel.h"

#include <QApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

QString importanceText(double v)
{
    return std::isfinite(v) ? QString::number(v, 'f', 3) : QString(u"–"_s);
}

} // namespace

void ImportanceModel::setReport(const run::ImportanceReport &report)
{
    beginResetModel();
    m_report = report;
    m_most = 0;
    for (const run::FeatureImportance &f : std::as_const(m_report.features))
        m_most = std::max(m_most, f.importance);
    endResetModel();
}

int ImportanceModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_report.features.size());
}

int ImportanceModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ImportanceModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_report.features.size())
        return {};
    const run::FeatureImportance &f = m_report.features[index.row()];
    switch (index.column()) {
    case ParameterColumn:
        if (role == Qt::DisplayRole || role == SortRole)
            return f.category.isEmpty() ? f.param : u"%1 = %2"_s.arg(f.param, f.category);
        if (role == Qt::ToolTipRole)
            return f.category.isEmpty()
                       ? tr("%1: a number, in %2 of the runs").arg(f.param).arg(f.runs)
                       : tr("%1 = %2: whether a run has this value (1) or another (0); %3 of the runs have %1")
                             .arg(f.param, f.category)
                             .arg(f.runs);
        break;
    case ImportanceColumn:
        if (role == Qt::DisplayRole)
            return importanceText(f.importance);
        if (role == SortRole)
            return f.importance;
        if (role == BarRole)
            return m_most > 0 ? f.importance / m_most : 0.0;
        if (role == Qt::ToolTipRole)
            return tr("Its share of what a random forest of 100 trees predicting the metric from the parameters "
                      "learned from it (the shares sum to 1)");
        break;
    case CorrelationColumn:
        if (role == Qt::DisplayRole)
            return importanceText(f.correlation);
        if (role == SortRole)
            return std::isfinite(f.correlation) ? f.correlation : -2.0;
        if (role == BarRole)
            return std::isfinite(f.correlation) ? std::clamp(f.correlation, -1.0, 1.0) : QVariant();
        if (role == Qt::ToolTipRole)
            return std::isfinite(f.correlation)
                       ? tr("Pearson's correlation of the metric with %1 over the %2 runs that have it: %3")
                             .arg(f.name)
                             .arg(f.runs)
                             .arg(f.correlation > 0 ? tr("the metric grows with it")
                                                    : tr("the metric falls as it grows"))
                       : tr("Undefined: the parameter or the metric is the same in every run that has it");
        break;
    default:
        break;
    }
    if (role == Qt::TextAlignmentRole && index.column() != ParameterColumn)
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant ImportanceModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case ParameterColumn:
        return tr("Parameter");
    case ImportanceColumn:
        return tr("Importance");
    case CorrelationColumn:
        return tr("Correlation");
    default:
        return {};
    }
}

void ImportanceBarDelegate::paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QVariant bar = index.data(ImportanceModel::BarRole);
    if (!bar.isValid()) {
        QStyledItemDelegate::paint(painter, option, index);
        return;
    }
    QStyleOptionViewItem opt = option;
    initStyleOption(&opt, index);
    const QString text = opt.text;
    opt.text.clear();
    QApplication::style()->drawControl(QStyle::CE_ItemViewItem, &opt, painter, opt.widget); // the background
    const QFontMetrics fm(opt.font);
    const int textWidth = fm.horizontalAdvance(u"-0.000"_s) + 8;
    const QRect area = opt.rect.adjusted(6, 5, -textWidth - 4, -5);
    const double v = bar.toDouble();
    painter->save();
    if (index.column() == ImportanceModel::CorrelationColumn) {
        const double mid = area.left() + area.width() / 2.0;
        const double end = mid + v * area.width() / 2.0;
        painter->fillRect(QRectF(std::min(mid, end), area.top(), std::abs(end - mid), area.height()),
                          v >= 0 ? QColor(76, 160, 90) : QColor(214, 82, 72));
        painter->setPen(QColor(150, 150, 150));
        painter->drawLine(QPointF(mid, opt.rect.top() + 2), QPointF(mid, opt.rect.bottom() - 2));
    } else {
        painter->fillRect(QRectF(area.left(), area.top(), v * area.width(), area.height()), QColor(78, 121, 167));
    }
    painter->setPen(opt.palette.color(opt.state & QStyle::State_Selected ? QPalette::HighlightedText : QPalette::Text));
    painter->drawText(opt.rect.adjusted(0, 0, -6, 0), Qt::AlignRight | Qt::AlignVCenter, text);
    painter->restore();
}

QSize ImportanceBarDelegate::sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const
{
    const QSize size = QStyledItemDelegate::sizeHint(option, index);
    return {std::max(size.width(), 220), size.height() + 6};
}

} // namespace ferry::ui
