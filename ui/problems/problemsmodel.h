// ProblemsModel: the session's problems, newest first, repeats counted in one row.
#pragma once

#include "common/diagnostic.h"

#include <QAbstractListModel>
#include <QDateTime>
#include <QList>

namespace ferry::ui {

// One problem as the Problems panel shows it: the finding itself (severity, message, file, line,
// column, hint, as core reported it), who reported it, when it was last seen and how often.
struct Problem {
    Diagnostic finding;
    QString source; // "Run", "Train", an environment file: what the user acted on
    QDateTime lastSeen;
    int occurrences = 1;
    bool fromList = false; // part of a source's current list (setProblems), not a one-off report
};

// Every problem of the session, newest first. The same problem reported again (same source,
// severity, message and place) is one row that counts its occurrences and moves to the top; a
// source's current list (an editor's findings) replaces the list it had before.
class ProblemsModel : public QAbstractListModel {
    Q_OBJECT
public:
    enum Role {
        SeverityRole = Qt::UserRole + 1, // Diagnostic::Severity as int
        MessageRole,
        HintRole,
        PathRole,
        LineRole,
        SourceRole,
        OccurrencesRole,
    };

    explicit ProblemsModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    const Problem &problem(int row) const { return m_problems.at(row); }

    void report(const QString &source, const Diagnostic &finding);
    void setProblems(const QString &source, const Diagnostics &findings);
    void clear();

private:
    QList<Problem> m_problems;
};

// "Source: message (path:line)" and "×N" when seen more than once: the row's one line.
QString problemLine(const Problem &problem);

} // namespace ferry::ui
