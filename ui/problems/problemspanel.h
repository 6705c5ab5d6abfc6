// ProblemsPanel: every error and warning of the session in one list instead of modal boxes.
#pragma once

#include "common/diagnostic.h"

#include <QWidget>

class QListView;

namespace ferry::ui {

class ProblemsModel;

// Every error and warning of the session in one list, newest first (instead of modal boxes):
// what went wrong, where, and what to do. The same problem twice is one row that counts; a row
// that names a file opens it at its line (openRequested).
class ProblemsPanel : public QWidget {
    Q_OBJECT
public:
    explicit ProblemsPanel(QWidget *parent = nullptr);
    int count() const;
    QString text(int row) const; // row 0: the newest; its one line, without the time
    ProblemsModel *model() const { return m_model; }

public Q_SLOTS:
    // A problem `source` (the part the user acted on: "Run", "Train") reports, as core said it.
    void report(const QString &source, const ferry::Error &error,
                ferry::Diagnostic::Severity severity = ferry::Diagnostic::Severity::Error);
    void add(const QString &message); // a problem with nothing but its message
    // The current problems of one source (an editor's file): replaces what it listed before;
    // none clears its entries. What `report` and `add` listed stays.
    void setProblems(const QString &source, const ferry::Diagnostics &findings);
    void clear();

Q_SIGNALS:
    void countChanged(int count);
    void openRequested(const QString &path, int line);

private:
    void activated(int row);

    ProblemsModel *m_model;
    QListView *m_list;
};

} // namespace ferry::ui
