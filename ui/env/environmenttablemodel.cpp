#include "ui/env/environmenttablemodel.h"

#include "ui/env/environmentdocument.h"

#include <QBrush>
#include <QColor>

using namespace Qt::StringLiterals;

namespace ferry::ui {

EnvironmentTableModel::EnvironmentTableModel(EnvironmentDocument *document, env::Field field, QObject *parent)
    : QAbstractTableModel(parent), m_document(document), m_field(field)
{
    connect(document, &EnvironmentDocument::changed, this, &EnvironmentTableModel::documentChanged);
    connect(document, &EnvironmentDocument::problemsChanged, this, &EnvironmentTableModel::documentProblemsChanged);
}

env::Findings EnvironmentTableModel::problems() const
{
    return m_document->problemsOf(m_field);
}

int EnvironmentTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

void EnvironmentTableModel::initRows()
{
    m_rows = count(m_document->environment());
}

void EnvironmentTableModel::documentChanged()
{
    if (m_applying)
        return; // our own edit: the rows were announced already
    const int rows = count(m_document->environment());
    if (rows != m_rows) {
        beginResetModel();
        m_rows = rows;
        endResetModel();
    } else if (m_rows > 0) {
        Q_EMIT dataChanged(index(0, 0), index(m_rows - 1, columnCount() - 1));
    }
}

void EnvironmentTableModel::documentProblemsChanged()
{
    if (m_rows > 0 && !m_applying)
        Q_EMIT dataChanged(index(0, 0), index(m_rows - 1, columnCount() - 1),
                           {Qt::BackgroundRole, Qt::ToolTipRole, Qt::DecorationRole});
    Q_EMIT problemsChanged();
}

QVariant EnvironmentTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.model() != this || index.row() >= m_rows)
        return {};
    const env::Environment &env = m_document->environment();
    if (index.row() >= count(env))
        return {};
    if (role == Qt::BackgroundRole || role == Qt::ToolTipRole) {
        for (const env::Finding &p : m_document->problems()) {
            if (p.field != m_field || p.row != index.row())
                continue;
            if (role == Qt::ToolTipRole)
                return m_document->problemAt(m_field, index.row());
            return QBrush(p.isError() ? QColor(255, 214, 214) : QColor(255, 243, 205));
        }
        if (role == Qt::BackgroundRole)
            return {};
    }
    return cell(env, index.row(), index.column(), role);
}

bool EnvironmentTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.model() != this || index.row() >= m_rows)
        return false;
    if (role != Qt::EditRole && !(role == Qt::CheckStateRole && isCheckable(index.column())))
        return false;
    const int row = index.row();
    const int column = index.column();
    bool accepted = true;
    const QString what = headers().value(column);
    // One merge key per cell: typing into the same cell again merges into one undo step.
    const EditKey key{m_field, row, column};
    const bool changed =
        m_document->edit(tr("Edit %1 %2").arg(rowName(), what.toLower()), key, [&](env::Environment &env) {
            QVariant v = value;
            if (role == Qt::CheckStateRole)
                v = value.toInt() == Qt::Checked;
            accepted = setCell(env, row, column, v);
        });
    return accepted && changed;
}

Qt::ItemFlags EnvironmentTableModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || index.model() != this || index.row() >= m_rows)
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (isCheckable(index.column()))
        return f | Qt::ItemIsUserCheckable;
    if (isEditable(m_document->environment(), index.row(), index.column()))
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant EnvironmentTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (role != Qt::DisplayRole)
        return {};
    if (orientation == Qt::Vertical)
        return section + 1;
    return headers().value(section);
}

bool EnvironmentTableModel::insertRows(int row, int rowCount, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || row > m_rows || rowCount < 1)
        return false;
    beginInsertRows({}, row, row + rowCount - 1);
    m_applying = true;
    m_document->edit(tr("Add %1").arg(rowName()), {}, [&](env::Environment &env) {
        for (int i = 0; i < rowCount; ++i)
            insertIn(env, row + i);
    });
    m_applying = false;
    m_rows = count(m_document->environment());
    endInsertRows();
    return true;
}

bool EnvironmentTableModel::removeRows(int row, int rowCount, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || rowCount < 1 || row + rowCount > m_rows)
        return false;
    beginRemoveRows({}, row, row + rowCount - 1);
    m_applying = true;
    m_document->edit(rowCount == 1 ? tr("Delete %1").arg(rowName()) : tr("Delete %1 rows").arg(rowCount), {},
                     [&](env::Environment &env) {
                         for (int i = 0; i < rowCount; ++i)
                             removeIn(env, row);
                     });
    m_applying = false;
    m_rows = count(m_document->environment());
    endRemoveRows();
    return true;
}

bool EnvironmentTableModel::moveRows(const QModelIndex &sourceParent, int sourceRow, int rowCount,
                                     const QModelIndex &destinationParent, int destinationChild)
{
    if (sourceParent.isValid() || destinationParent.isValid() || rowCount != 1 || sourceRow < 0 ||
        sourceRow >= m_rows || destinationChild < 0 || destinationChild > m_rows || destinationChild == sourceRow ||
        destinationChild == sourceRow + 1)
        return false;
    if (!beginMoveRows({}, sourceRow, sourceRow, {}, destinationChild))
        return false;
    const int to = destinationChild > sourceRow ? destinationChild - 1 : destinationChild;
    m_applying = true;
    m_document->edit(tr("Move %1").arg(rowName()), {}, [&](env::Environment &env) { moveIn(env, sourceRow, to); });
    m_applying = false;
    endMoveRows();
    return true;
}

StringListModel::StringListModel(EnvironmentDocument *document, env::Field field, const QString &header,
                                 const QString &rowName, Accessor accessor, QObject *parent)
    : EnvironmentTableModel(document, field, parent), m_header(header), m_rowName(rowName), m_list(std::move(accessor))
{
    initRows();
}

int StringListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : 1;
}

// The accessor hands out the list to change; reading only looks (no copy of the environment per cell).
int StringListModel::count(const env::Environment &environment) const
{
    return static_cast<int>(m_list(const_cast<env::Environment &>(environment)).size());
}

QVariant StringListModel::cell(const env::Environment &environment, int row, int, int role) const
{
    if (role != Qt::DisplayRole && role != Qt::EditRole)
        return {};
    return std::as_const(m_list(const_cast<env::Environment &>(environment))).value(row);
}

bool StringListModel::setCell(env::Environment &environment, int row, int, const QVariant &value)
{
    m_list(environment)[row] = value.toString().trimmed();
    return true;
}

void StringListModel::insertIn(env::Environment &environment, int row)
{
    m_list(environment).insert(row, QString());
}

void StringListModel::removeIn(env::Environment &environment, int row)
{
    m_list(environment).removeAt(row);
}

void StringListModel::moveIn(env::Environment &environment, int from, int to)
{
    m_list(environment).move(from, to);
}

} // namespace ferry::ui
