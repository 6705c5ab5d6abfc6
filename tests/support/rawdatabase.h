// RawDatabase: a test's own SQLite connection to a run store, to inspect or damage the file
// directly.
#pragma once

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>
#include <QVariant>

namespace ferry::test {

// A connection of the test's own to a run store, to look at the file as another program would
// (or to damage it on purpose).
class RawDatabase {
public:
    explicit RawDatabase(const QString &path) : m_name(QStringLiteral("raw-%1").arg(++s_count))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(QStringLiteral("QSQLITE"), m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~RawDatabase()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    RawDatabase(const RawDatabase &) = delete;
    RawDatabase &operator=(const RawDatabase &) = delete;

    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }
    bool exec(const QString &sql) const { return QSqlQuery(db()).exec(sql); }
    // The first column of the first row; invalid when there is none.
    QVariant value(const QString &sql) const
    {
        QSqlQuery q(db());
        if (!q.exec(sql) || !q.next())
            return {};
        return q.value(0);
    }

private:
    QString m_name;
    static inline int s_count = 0;
};

} // namespace ferry::test
