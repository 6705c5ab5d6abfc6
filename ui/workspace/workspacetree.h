// WorkspaceTree: the open workspace's files without Ferry's .ferry/ state, long names elided in the
// middle.
#pragma once

#include <QTreeView>

class QFileSystemModel;

namespace ferry::ui {

// The files of the open workspace, without Ferry's own .ferry/ state. Long names are elided in
// the middle (the end tells files apart); the tooltip has the full path.
class WorkspaceTree : public QTreeView {
    Q_OBJECT
public:
    explicit WorkspaceTree(QWidget *parent = nullptr);

    // Empty path: nothing is shown.
    void setRoot(const QString &path);
    QString root() const { return m_root; }

protected:
    bool viewportEvent(QEvent *event) override;

private:
    QFileSystemModel *m_model;
    QString m_root;
};

} // namespace ferry::ui
