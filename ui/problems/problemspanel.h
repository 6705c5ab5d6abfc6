#pragma once

#include <QWidget>

class QListWidget;

namespace ferry::ui {

// Every error and warning of the session in one list, newest first (instead of modal boxes):
// what went wrong, where, and what to do, as the message says.
class ProblemsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsPanel(QWidget *parent = nullptr);
    int count() const;
    QString text(int row) const; // row 0: the newest

public Q_SLOTS:
    void add(const QString &message);
    // The current problems of one source (an editor's file): replaces what it listed before;
    // none clears its entries. What `add` listed stays.
    void setProblems(const QString &source, const QStringList &messages);
    void clear();

Q_SIGNALS:
    void countChanged(int count);

private:
    QListWidget *m_list;
};

} // namespace ferry::ui
