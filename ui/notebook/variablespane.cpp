#include "ui/notebook/variablespane.h"

#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QLocale>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

using namespace Qt::StringLiterals;

namespace ferry::ui {

void KernelVariablesModel::setVariables(QList<notebook::KernelVariable> variables)
{
    beginResetModel();
    m_variables = std::move(variables);
    endResetModel();
}

int KernelVariablesModel::row(const QString &name) const
{
    for (int i = 0; i < m_variables.size(); ++i) {
        if (m_variables.at(i).name == name)
            return i;
    }
    return -1;
}

int KernelVariablesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_variables.size());
}

int KernelVariablesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QString KernelVariablesModel::shapeText(const notebook::KernelVariable &variable)
{
    if (variable.hasShape) {
        QStringList dims;
        for (const qint64 d : variable.shape)
            dims << QString::number(d);
        return u"("_s + dims.join(u", "_s) + (dims.size() == 1 ? u",)"_s : u")"_s);
    }
    return variable.length >= 0 ? QString::number(variable.length) : QString();
}

QVariant KernelVariablesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_variables.size())
        return {};
    const notebook::KernelVariable &v = m_variables.at(index.row());
    if (role == Qt::DisplayRole || role == Qt::ToolTipRole) {
        switch (index.column()) {
        case Name:
            return v.name;
        case Type:
            return v.dtype.isEmpty() ? v.type : u"%1 (%2)"_s.arg(v.type, v.dtype);
        case Shape:
            return shapeText(v);
        case Memory:
            return v.bytes < 0 ? QString()
                               : QLocale().formattedDataSize(v.bytes, 1, QLocale::DataSizeTraditionalFormat);
        case Value:
            return v.value;
        default:
            return {};
        }
    }
    if (role == SortRole) {
        switch (index.column()) {
        case Shape: {
            qint64 elements = v.length;
            if (!v.shape.isEmpty()) {
                elements = 1;
                for (const qint64 d : v.shape)
                    elements *= d;
            }
            return elements;
        }
        case Memory:
            return v.bytes;
        default:
            return data(index, Qt::DisplayRole).toString().toLower();
        }
    }
    if (role == Qt::TextAlignmentRole && (index.column() == Shape || index.column() == Memory))
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

QVariant KernelVariablesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Name:
        return tr("Name");
    case Type:
        return tr("Type");
    case Shape:
        return tr("Shape / length");
    case Memory:
        return tr("Memory");
    case Value:
        return tr("Value");
    default:
        return {};
    }
}

VariablesPane::VariablesPane(QWidget *parent)
    : QWidget(parent), m_model(new KernelVariablesModel(this)), m_sorted(new QSortFilterProxyModel(this)),
      m_view(new QTableView(this)), m_filter(new QLineEdit(this)), m_status(new QLabel(this))
{
    setObjectName(u"variablesPane"_s);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_filter->setPlaceholderText(tr("Filter variables"));
    m_filter->setClearButtonEnabled(true);
    layout->addWidget(m_filter);
    m_sorted->setSourceModel(m_model);
    m_sorted->setSortRole(KernelVariablesModel::SortRole);
    m_sorted->setFilterKeyColumn(KernelVariablesModel::Name);
    m_sorted->setFilterCaseSensitivity(Qt::CaseInsensitive);
    connect(m_filter, &QLineEdit::textChanged, m_sorted, &QSortFilterProxyModel::setFilterFixedString);
    m_view->setModel(m_sorted);
    m_view->setSortingEnabled(true);
    m_view->sortByColumn(KernelVariablesModel::Name, Qt::AscendingOrder);
    m_view->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_view->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_view->verticalHeader()->hide();
    m_view->verticalHeader()->setDefaultSectionSize(m_view->fontMetrics().height() + 6);
    m_view->horizontalHeader()->setStretchLastSection(true);
    m_view->setWordWrap(false);
    layout->addWidget(m_view, 1);
    m_status->setWordWrap(true);
    layout->addWidget(m_status);
    clear(tr("The variables are listed after a cell runs."));
}

void VariablesPane::setVariables(const QList<notebook::KernelVariable> &variables, qint64 total)
{
    m_model->setVariables(variables);
    m_view->resizeColumnToContents(KernelVariablesModel::Name);
    m_status->setText(total > variables.size()
                          ? tr("%1 of %2 variables (the first ones listed)").arg(variables.size()).arg(total)
                          : tr("%n variable(s)", nullptr, int(total)));
}

void VariablesPane::clear(const QString &why)
{
    m_model->setVariables({});
    m_status->setText(why);
}

void VariablesPane::setProblem(const QString &text)
{
    m_status->setText(text);
}

QString VariablesPane::statusText() const
{
    return m_status->text();
}

} // namespace ferry::ui
