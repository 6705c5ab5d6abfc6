#pragma once

#include <QTreeView>

class QFileSystemModel;

namespace ferry::ui {

// The files of the open workspace, without Ferry's own .ferry/ state.
class WorkspaceTree : public QTreeView {
    Q_OBJECT
public:
    explicit WorkspaceTree(QWidget *parent = nullptr);

    // Empty path: nothing is shown.
    void setRoot(const QString &path);
    QString root() const { return m_root; }

private:
    QFileSystemModel *m_model;
    QString m_root;
};

} // namespace ferry::ui
