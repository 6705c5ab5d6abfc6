#pragma once

#include "common/error.h"
#include "run/metricparser.h"

#include <QSqlDatabase>
#include <QString>

#include <array>
#include <memory>

namespace ferry::run {

// The writer's fast path for metric points: SQLite's C API on the Qt connection's own handle
// (QSqlDriver::handle()), one prepared INSERT stepped per point with bound values. Qt's
// bindValue() costs more than SQLite's insert itself, and a run can print a million points.
// Used only when the SQLite library that Qt's driver loaded can be found in the process and is
// the very one the connection runs on; otherwise the writer keeps to QSqlQuery.
class RunStoreNativeInsert {
public:
    // Null when the fast path is not available, or FERRY_RUNSTORE_QT_ONLY=1 is set (tests).
    static std::unique_ptr<RunStoreNativeInsert> create(const QSqlDatabase &db);
    ~RunStoreNativeInsert();
    RunStoreNativeInsert(const RunStoreNativeInsert &) = delete;
    RunStoreNativeInsert &operator=(const RunStoreNativeInsert &) = delete;

    // Inserts the points inside the caller's transaction; SQLite's message when one fails.
    Expected<void> append(const QString &runId, const QList<MetricPoint> &points);

    struct Api;

private:
    RunStoreNativeInsert(const Api &api, void *db, void *statement);
    const QByteArray &utf8(const QString &name);

    const Api &m_api;
    void *m_db;
    void *m_statement;
    // Recently used names in UTF-8: points of one run share a few names.
    struct Name {
        QString text;
        QByteArray utf8;
    };
    std::array<Name, 16> m_names;
    size_t m_nextName = 0;
};

} // namespace ferry::run
