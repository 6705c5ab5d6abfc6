#pragma once

#include "common/error.h"

#include <QSqlDatabase>
#include <QSqlError>
#include <QString>

// The run database's file, connections and schema versions; used by RunStore and its writer.
namespace ferry::run::runstoreschema {

// Whether the database can live at `path`: its folder exists or can be made and can be
// written, and the file, when present and not empty, is an SQLite database.
Expected<void> checkLocation(const QString &path);

// Opens a connection named `connection` in the calling thread (which must be the only one
// using it) with Ferry's settings: foreign keys on, synchronous NORMAL, a busy timeout.
Expected<void> openConnection(const QString &connection, const QString &path);
void closeConnection(const QString &connection);

// Switches to WAL and brings the schema to RunStore::kSchemaVersion, one migration per
// version, each in its own transaction. Refuses a database from a newer Ferry.
Expected<void> migrate(QSqlDatabase &db, const QString &path);

// SQLite's own words for what went wrong, without Qt's "Unable to execute statement".
QString errorText(const QSqlError &error);

// Runs one statement; the driver's message when it fails.
Expected<void> exec(QSqlDatabase &db, const QString &sql);

} // namespace ferry::run::runstoreschema
