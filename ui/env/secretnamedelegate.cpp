#include "ui/env/secretnamedelegate.h"

#include <QComboBox>
#include <QLineEdit>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QWidget *SecretNameDelegate::createEditor(QWidget *parent, const QStyleOptionViewItem &option,
                                          const QModelIndex &index) const
{
    if (!index.data(IsSecretRole).toBool())
        return QStyledItemDelegate::createEditor(parent, option, index);
    auto *combo = new QComboBox(parent);
    combo->setObjectName(u"secretName"_s);
    combo->setEditable(true);
    combo->setInsertPolicy(QComboBox::NoInsert);
    combo->addItems(index.data(SecretNamesRole).toStringList());
    combo->setToolTip(tr("The keychain secret whose value this variable gets when a run starts"));
    return combo;
}

void SecretNameDelegate::setEditorData(QWidget *editor, const QModelIndex &index) const
{
    if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        combo->setCurrentText(index.data(Qt::EditRole).toString());
        return;
    }
    QStyledItemDelegate::setEditorData(editor, index);
}

void SecretNameDelegate::setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const
{
    if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        model->setData(index, combo->currentText().trimmed());
        return;
    }
    QStyledItemDelegate::setModelData(editor, model, index);
}

} // namespace ferry::ui
