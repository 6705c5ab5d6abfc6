// The table editor for a secret variable's value: the name of a keychain secret, from a list.
#pragma once

#include <QStyledItemDelegate>

namespace ferry::ui {

// Edits a secret variable's value, which is the name of a keychain secret: a combo box of the
// names the keychain has (typing another name is allowed: it may be stored later). Other cells
// get the usual editor.
class SecretNameDelegate : public QStyledItemDelegate {
    Q_OBJECT
public:
    // The model answers these roles for the cells this delegate edits.
    static constexpr int IsSecretRole = Qt::UserRole + 20;    // bool: the cell holds a secret's name
    static constexpr int SecretNamesRole = Qt::UserRole + 21; // QStringList: the names to offer

    using QStyledItemDelegate::QStyledItemDelegate;

    QWidget *createEditor(QWidget *parent, const QStyleOptionViewItem &option, const QModelIndex &index) const override;
    void setEditorData(QWidget *editor, const QModelIndex &index) const override;
    void setModelData(QWidget *editor, QAbstractItemModel *model, const QModelIndex &index) const override;
};

} // namespace ferry::ui
