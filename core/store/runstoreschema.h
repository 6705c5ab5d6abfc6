// The run database's file, connections, schema and migrations, shared by RunStore and its writer.
#pragma once

#include "common/error.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QSqlQuery>
#include <QString>
#include <QVariantList>

#include <functional>

// The run database's file, connections and schema versions; used by RunStore and its writer.
namespace ferry::run::runstoreschema {

// Whether the database can live at `path`: its folder exists or can be made and can be
// written, and the file, when present and not empty, is an SQLite database.
Expected<void> checkLocation(const QString &path);

// Opens a connection named `connection` in the calling thread (which must be the only one
// using it) with Ferry's settings: foreign keys on, synchronous NORMAL, a busy timeout.
Expected<void> openConnection(const QString &connection, const QString &path);
void closeConnection(const QString &connection);

// How far a conversion of an older store is: points converted of all; (-1, -1) while the file is
// compacted after it. Called on the thread that opens the store.
using MigrationProgress = std::function<void(qint64 done, qint64 total)>;

// Switches to WAL and brings the schema to RunStore::kSchemaVersion, one migration per
// version, each in its own transaction. Refuses a database from a newer Ferry.
Expected<void> migrate(QSqlDatabase &db, const QString &path, const MigrationProgress &progress = {});

// SQLite's own words for what went wrong, without Qt's "Unable to execute statement".
QString errorText(const QSqlError &error);

// A forward-only query on the read connection named `connection`, prepared, bound and executed;
// inactive (no rows) when there is no connection or it failed (said with qWarning).
QSqlQuery select(const QString &connection, const QString &sql, const QVariantList &values);

// Runs one statement; the driver's message when it fails.
Expected<void> exec(QSqlDatabase &db, const QString &sql);

} // namespace ferry::run::runstoreschema
