#include "ui/workspace/workspacetree.h"

#include <QFileSystemModel>
#include <QHeaderView>

namespace ferry::ui {

WorkspaceTree::WorkspaceTree(QWidget *parent) : QTreeView(parent), m_model(new QFileSystemModel(this))
{
    setObjectName(QStringLiteral("workspaceTree"));
    // Dot-files (and so .ferry/ and .git/) stay hidden; the filter shows everything else.
    m_model->setFilter(QDir::AllEntries | QDir::NoDotAndDotDot);
    m_model->setReadOnly(true);
    setHeaderHidden(true);
    setModel(nullptr);
}

void WorkspaceTree::setRoot(const QString &path)
{
    m_root = path;
    if (path.isEmpty()) {
        setModel(nullptr);
        return;
    }
    setModel(m_model);
    setRootIndex(m_model->setRootPath(path));
    for (int column = 1; column < m_model->columnCount(); ++column)
        hideColumn(column);
}

} // namespace ferry::ui
