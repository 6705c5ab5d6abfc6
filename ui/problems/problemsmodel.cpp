#include "ui/problems/problemsmodel.h"

#include <QApplication>
#include <QStyle>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

bool samePlace(const Diagnostic &a, const Diagnostic &b)
{
    return a.severity == b.severity && a.where.message == b.where.message && a.where.path == b.where.path &&
           a.where.line == b.where.line && a.where.column == b.where.column;
}

QString place(const Error &where)
{
    if (where.path.isEmpty())
        return {};
    QString text = where.path;
    if (where.line > 0)
        text += u":%1"_s.arg(where.line);
    return text;
}

} // namespace

QString problemLine(const Problem &problem)
{
    const Error &where = problem.finding.where;
    QString line = problem.source.isEmpty() ? where.message : problem.source + u": "_s + where.message;
    if (const QString at = place(where); !at.isEmpty() && !problem.source.endsWith(where.path))
        line += u" ("_s + at + u')';
    else if (where.line > 0)
        line += u" (line %1)"_s.arg(where.line);
    if (problem.occurrences > 1)
        line += u"  ×%1"_s.arg(problem.occurrences);
    return line;
}

ProblemsModel::ProblemsModel(QObject *parent) : QAbstractListModel(parent) {}

int ProblemsModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_problems.size());
}

QVariant ProblemsModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_problems.size())
        return {};
    const Problem &p = m_problems.at(index.row());
    const Error &where = p.finding.where;
    switch (role) {
    case Qt::DisplayRole:
        return QString(p.lastSeen.toString(u"HH:mm:ss"_s) + u"  "_s + problemLine(p));
    case Qt::ToolTipRole:
        return QString(p.finding.toString() +
                       (p.occurrences > 1 ? u"\n(seen %1 times)"_s.arg(p.occurrences) : QString()));
    case Qt::DecorationRole:
        return QApplication::style()->standardIcon(p.finding.isError() ? QStyle::SP_MessageBoxCritical
                                                                       : QStyle::SP_MessageBoxWarning);
    case SeverityRole:
        return int(p.finding.severity);
    case MessageRole:
        return where.message;
    case HintRole:
        return where.hint;
    case PathRole:
        return where.path;
    case LineRole:
        return where.line;
    case SourceRole:
        return p.source;
    case OccurrencesRole:
        return p.occurrences;
    default:
        return {};
    }
}

void ProblemsModel::report(const QString &source, const Diagnostic &finding)
{
    for (int row = 0; row < m_problems.size(); ++row) {
        Problem &p = m_problems[row];
        if (p.fromList || p.source != source || !samePlace(p.finding, finding))
            continue;
        ++p.occurrences;
        p.lastSeen = QDateTime::currentDateTime();
        p.finding.where.hint = finding.where.hint;
        if (row > 0) {
            beginMoveRows({}, row, row, {}, 0);
            m_problems.move(row, 0);
            endMoveRows();
        }
        Q_EMIT dataChanged(index(0), index(0));
        return;
    }
    beginInsertRows({}, 0, 0);
    m_problems.prepend(Problem{finding, source, QDateTime::currentDateTime(), 1, false});
    endInsertRows();
}

void ProblemsModel::setProblems(const QString &source, const Diagnostics &findings)
{
    for (int row = int(m_problems.size()) - 1; row >= 0; --row) {
        if (m_problems.at(row).fromList && m_problems.at(row).source == source) {
            beginRemoveRows({}, row, row);
            m_problems.removeAt(row);
            endRemoveRows();
        }
    }
    if (findings.isEmpty())
        return;
    const QDateTime now = QDateTime::currentDateTime();
    beginInsertRows({}, 0, int(findings.size()) - 1);
    for (qsizetype i = findings.size() - 1; i >= 0; --i)
        m_problems.prepend(Problem{findings.at(i), source, now, 1, true});
    endInsertRows();
}

void ProblemsModel::clear()
{
    beginResetModel();
    m_problems.clear();
    endResetModel();
}

} // namespace ferry::ui
