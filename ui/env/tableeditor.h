// A table editor for one list of an environment: it knows the list's model only, never the document behind it.
#pragma once

#include <QWidget>

class QLabel;
class QTableView;
class QToolButton;

namespace ferry::ui {

class EnvironmentTableModel;

// A table of one environment list with buttons beside it, and the same by keyboard:
// Insert adds a row after the current one and starts editing it, Delete removes the selected
// rows, Alt+Up / Alt+Down move the current row (order is priority for channels), F2 or typing
// edits a cell, Tab moves on.
class TableEditor : public QWidget {
    Q_OBJECT
public:
    TableEditor(EnvironmentTableModel *model, const QString &objectName, QWidget *parent = nullptr);

    QTableView *view() const { return m_view; }
    QString problemText() const; // the table's problems under it, one line per row
    EnvironmentTableModel *model() const { return m_model; }

public Q_SLOTS:
    void addRow();
    void deleteRows();
    void moveUp();
    void moveDown();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void move(int delta);
    void updateButtons();
    void showProblems();

    EnvironmentTableModel *m_model;
    QTableView *m_view;
    QToolButton *m_add;
    QToolButton *m_delete;
    QToolButton *m_up;
    QToolButton *m_down;
    QLabel *m_problems;
};

} // namespace ferry::ui
