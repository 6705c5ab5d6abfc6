#include "ui/workspace/workspacetree.h"

#include <QFileSystemModel>
#include <QHeaderView>
#include <QHelpEvent>
#include <QToolTip>

namespace ferry::ui {

WorkspaceTree::WorkspaceTree(QWidget *parent) : QTreeView(parent), m_model(new QFileSystemModel(this))
{
    setObjectName(QStringLiteral("workspaceTree"));
    // Dot-files (and so .ferry/ and .git/) stay hidden; the filter shows everything else.
    m_model->setFilter(QDir::AllEntries | QDir::NoDotAndDotDot);
    m_model->setReadOnly(true);
    setHeaderHidden(true);
    setTextElideMode(Qt::ElideMiddle);
    setModel(nullptr);
}

bool WorkspaceTree::viewportEvent(QEvent *event)
{
    if (event->type() != QEvent::ToolTip || !model())
        return QTreeView::viewportEvent(event);
    const auto *help = static_cast<QHelpEvent *>(event);
    const QModelIndex index = indexAt(help->pos());
    if (!index.isValid()) {
        QToolTip::hideText();
        return true;
    }
    QToolTip::showText(help->globalPos(), QDir::toNativeSeparators(m_model->filePath(index)), viewport(),
                       visualRect(index));
    return true;
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
