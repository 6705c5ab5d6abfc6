// The notebook's variables pane: the user's variables as the kernel listed them after the last
// cell (name, type, shape or length, memory, a short value), filtered by name, sorted by any
// column. Filled by NamespaceWatcher; shown beside the cells from the notebook's toolbar.
#pragma once

#include "notebook/kernelquery.h"

#include <QAbstractTableModel>
#include <QWidget>

class QLabel;
class QLineEdit;
class QSortFilterProxyModel;
class QTableView;

namespace ferry::ui {

class KernelVariablesModel : public QAbstractTableModel {
    Q_OBJECT
public:
    enum Column { Name, Type, Shape, Memory, Value, ColumnCount };
    static constexpr int SortRole = Qt::UserRole + 1; // numbers for Shape and Memory

    using QAbstractTableModel::QAbstractTableModel;
    void setVariables(QList<notebook::KernelVariable> variables);
    const QList<notebook::KernelVariable> &variables() const { return m_variables; }
    // Where `name` is, or -1.
    int row(const QString &name) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

    // "(3, 4)" for a shape, "12" for a length, "" for neither.
    static QString shapeText(const notebook::KernelVariable &variable);

private:
    QList<notebook::KernelVariable> m_variables;
};

class VariablesPane : public QWidget {
    Q_OBJECT
public:
    explicit VariablesPane(QWidget *parent = nullptr);

    // The kernel's list (`total`: all there are; more than the list when it was cut).
    void setVariables(const QList<notebook::KernelVariable> &variables, qint64 total);
    // No kernel, or one that restarted: nothing listed, `why` said instead.
    void clear(const QString &why);
    // The kernel could not answer: said, the last list kept.
    void setProblem(const QString &text);

    KernelVariablesModel *model() const { return m_model; }
    QTableView *view() const { return m_view; }
    QString statusText() const;

private:
    KernelVariablesModel *m_model = nullptr;
    QSortFilterProxyModel *m_sorted = nullptr;
    QTableView *m_view = nullptr;
    QLineEdit *m_filter = nullptr;
    QLabel *m_status = nullptr;
};

} // namespace ferry::ui
