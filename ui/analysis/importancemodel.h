// ImportanceModel: parameter importance as a table (parameter, importance, correlation), with the
// bars that draw the two numbers.
#pragma once

// The rows of a core ImportanceReport (analysis/importance.h), most important first as the report
// has them: the parameter (a text parameter's value after '='), the forest's importance and
// Pearson's correlation with the metric, as W&B's parameter importance panel shows them. Each
// number is also a bar (ImportanceBarDelegate): the importance from the left, as long as its
// share of the most important's; the correlation from the middle, right and green when the metric
// grows with the parameter, left and red when it falls. SortRole gives the numbers to sort by.
#include "analysis/importance.h"

#include <QAbstractTableModel>
#include <QStyledItemDelegate>

namespace ferry::ui {

class ImportanceModel final : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { ParameterColumn, ImportanceColumn, CorrelationColumn, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1;
    static constexpr int BarRole = Qt::UserRole + 2; // the bar's length: [0, 1], or [-1, 1] for correlation

    using QAbstractTableModel::QAbstractTableModel;
    void setReport(const run::ImportanceReport &report);
    const run::ImportanceReport &report() const { return m_report; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    run::ImportanceReport m_report;
    double m_most = 0; // the greatest importance: its bar is full
};

class ImportanceBarDelegate final : public QStyledItemDelegate {
    Q_OBJECT
public:
    using QStyledItemDelegate::QStyledItemDelegate;
    void paint(QPainter *painter, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    QSize sizeHint(const QStyleOptionViewItem &option, const QModelIndex &index) const override;
};

} // namespace ferry::ui
