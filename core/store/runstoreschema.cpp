#include "store/runstoreschema.h"

#include "common/filesystem.h"
#include "store/runstore.h"
#include "store/seriesblock.h"
#include "store/serieswriter.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSqlError>
#include <QSqlQuery>

#include <array>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run::runstoreschema {

namespace {

// PRAGMA application_id: "FRRY". Tells Ferry's database from another program's.
constexpr int kApplicationId = 0x46525259;
constexpr int kFirstBlockVersion = 3; // the schema version that keeps points in series blocks

Error databaseError(const QString &path, const QString &message, const QString &hint = {})
{
    return Error{message, path, 0, 0, hint};
}

// The one value a PRAGMA (or a SELECT) gives; the driver's message when it fails.
Expected<QVariant> pragma(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql) || !query.next())
        return Error{errorText(query.lastError()), {}, 0, 0, {}};
    return query.value(0);
}

// Version 1: experiments, runs, params, metrics, artifacts.
Expected<void> createVersion1(QSqlDatabase &db, const MigrationProgress &)
{
    const std::array statements{
        u"CREATE TABLE experiments ("
        "  id INTEGER PRIMARY KEY,"
        "  name TEXT NOT NULL UNIQUE,"
        "  created INTEGER NOT NULL)"_s,
        u"CREATE TABLE runs ("
        "  id TEXT PRIMARY KEY NOT NULL,"
        "  experiment INTEGER REFERENCES experiments(id) ON DELETE SET NULL,"
        "  name TEXT NOT NULL DEFAULT '',"
        "  status TEXT NOT NULL CHECK (status IN"
        "    ('created', 'building', 'running', 'succeeded', 'failed', 'cancelled', 'lost')),"
        "  target TEXT NOT NULL DEFAULT '',"
        "  environment_tag TEXT NOT NULL DEFAULT '',"
        "  spec TEXT NOT NULL DEFAULT '{}',"
        "  created_ms INTEGER NOT NULL DEFAULT 0,"
        "  started_ms INTEGER NOT NULL DEFAULT 0,"
        "  finished_ms INTEGER NOT NULL DEFAULT 0,"
        "  exit_code INTEGER,"
        "  error TEXT NOT NULL DEFAULT '',"
        "  log_offset INTEGER NOT NULL DEFAULT 0)"_s,
        u"CREATE INDEX runs_experiment ON runs(experiment)"_s,
        u"CREATE TABLE params ("
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL,"
        "  value TEXT NOT NULL,"
        "  UNIQUE (run, name))"_s,
        // step and value are NULL for NaN (SQLite stores no NaN).
        u"CREATE TABLE metrics ("
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL,"
        "  step REAL,"
        "  wall_ms INTEGER NOT NULL,"
        "  value REAL)"_s,
        u"CREATE INDEX metrics_run_name_step ON metrics(run, name, step)"_s,
        u"CREATE TABLE artifacts ("
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  path TEXT NOT NULL,"
        "  kind TEXT NOT NULL DEFAULT '',"
        "  size INTEGER NOT NULL DEFAULT 0,"
        "  UNIQUE (run, path))"_s,
        u"PRAGMA application_id = %1"_s.arg(kApplicationId),
    };
    for (const QString &sql : statements) {
        if (auto done = exec(db, sql); !done)
            return done;
    }
    return {};
}

// Version 2 (issue 16): a point's epoch, its second coordinate beside the step (NULL: none).
// The embedded trainer stored its per-epoch metrics at step = epoch: those points get that
// epoch, and as their step the last optimiser step logged before them (its "loss" points come
// first in the log), as the trainer records them now. And the files a run's metrics come from
// beside its log (event files, metrics.csv, trainer_state.json): how far each is read
// (`position`, committed with its points like the log offset), and the metric names files
// give (`metric_claims`: such a metric is taken from its file only, never from the log).
Expected<void> addEpochsAndSources(QSqlDatabase &db, const MigrationProgress &)
{
    const std::array statements{
        u"ALTER TABLE metrics ADD COLUMN epoch REAL"_s,
        u"CREATE TABLE metric_sources ("
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  source TEXT NOT NULL,"
        "  position INTEGER NOT NULL DEFAULT 0,"
        "  PRIMARY KEY (run, source))"_s,
        u"CREATE TABLE metric_claims ("
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL,"
        "  PRIMARY KEY (run, name))"_s,
        u"UPDATE metrics SET epoch = step,"
        "  step = coalesce((SELECT max(s.step) FROM metrics s"
        "                   WHERE s.run = metrics.run AND s.name = 'loss' AND s.rowid < metrics.rowid), step)"
        " WHERE name IN ('train_loss', 'val_loss', 'val_accuracy', 'lr')"
        "  AND run IN (SELECT id FROM runs WHERE target = 'embedded')"_s,
    };
    for (const QString &sql : statements) {
        if (auto done = exec(db, sql); !done)
            return done;
    }
    return {};
}

// Version 3 (issue 17): a run's points as series blocks (store/seriesblock.h, docs/metric-store.md)
// instead of a row each. `series` names each metric of a run once and keeps its count and last
// value; `blocks` holds its points, a database page's worth to a block, the newest rewritten as points
// come. The rows of `metrics` are converted series by series in arrival order (bit for bit: a
// REAL column keeps a double as it is, NULL is NaN as before), then dropped.
Expected<void> intoSeriesBlocks(QSqlDatabase &db, const MigrationProgress &progress)
{
    const std::array statements{
        u"CREATE TABLE series ("
        "  id INTEGER PRIMARY KEY,"
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  name TEXT NOT NULL,"
        "  points INTEGER NOT NULL DEFAULT 0,"
        "  last_step REAL,"  // the point of the highest step (the later of equal ones)
        "  last_value REAL," // NULL: NaN
        "  UNIQUE (run, name))"_s,
        u"CREATE TABLE blocks ("
        "  series INTEGER NOT NULL REFERENCES series(id) ON DELETE CASCADE,"
        "  first INTEGER NOT NULL," // the index of its first point in the series
        "  count INTEGER NOT NULL,"
        "  min_step REAL, max_step REAL," // NULL: no point of the block has a step
        "  min_wall INTEGER, max_wall INTEGER,"
        "  data BLOB NOT NULL,"
        "  PRIMARY KEY (series, first))"_s,
    };
    for (const QString &sql : statements) {
        if (auto done = exec(db, sql); !done)
            return done;
    }
    const auto total = pragma(db, u"SELECT count(*) FROM metrics"_s);
    if (!total)
        return total.error();
    SeriesWriter writer(db);
    if (auto prepared = writer.prepare(); !prepared)
        return prepared;
    QSqlQuery pairs(db), rows(db);
    pairs.setForwardOnly(true);
    rows.setForwardOnly(true);
    if (!pairs.exec(u"SELECT DISTINCT run, name FROM metrics ORDER BY run, name"_s) ||
        !rows.prepare(u"SELECT step, value, wall_ms, epoch FROM metrics WHERE run = ? AND name = ? ORDER BY rowid"_s))
        return Error{errorText((pairs.lastError().isValid() ? pairs : rows).lastError()), {}, 0, 0, {}};
    const auto orNaN = [](const QVariant &v) {
        return v.isNull() ? std::numeric_limits<double>::quiet_NaN() : v.toDouble();
    };
    const qint64 all = total->toLongLong();
    qint64 done = 0;
    std::vector<SeriesPoint> points;
    while (pairs.next()) {
        const QString run = pairs.value(0).toString(), name = pairs.value(1).toString();
        rows.bindValue(0, run);
        rows.bindValue(1, name);
        if (!rows.exec())
            return Error{errorText(rows.lastError()), {}, 0, 0, {}};
        const auto write = [&]() -> Expected<void> {
            auto appended = writer.append(run, name, points);
            done += static_cast<qint64>(points.size());
            points.clear();
            if (progress)
                progress(done, all);
            return appended;
        };
        while (rows.next()) {
            points.push_back(SeriesPoint{orNaN(rows.value(0)), rows.value(2).toLongLong(), orNaN(rows.value(1)),
                                         orNaN(rows.value(3))});
            if (points.size() == 1 << 16) {
                if (auto appended = write(); !appended)
                    return appended;
            }
        }
        rows.finish();
        if (auto appended = write(); !appended)
            return appended;
        if (auto flushed = writer.flush(); !flushed)
            return flushed;
        writer.forget();
    }
    pairs.finish();
    return exec(db, u"DROP TABLE metrics"_s); // with its index
}

// Version 4 (issue 19): a run's tags (many, each once) and its note (free text), to find runs by.
Expected<void> addTagsAndNotes(QSqlDatabase &db, const MigrationProgress &)
{
    const std::array statements{
        u"CREATE TABLE tags ("
        "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
        "  tag TEXT NOT NULL,"
        "  PRIMARY KEY (run, tag)) WITHOUT ROWID"_s,
        u"CREATE INDEX tags_tag ON tags(tag)"_s,
        u"ALTER TABLE runs ADD COLUMN note TEXT NOT NULL DEFAULT ''"_s,
    };
    for (const QString &sql : statements) {
        if (auto done = exec(db, sql); !done)
            return done;
    }
    return {};
}

// Version 5 (issue 37): a run's images, histograms and texts (metrics/media.h), indexed, never
// copied: what each is (kind, tag, step, its sample at that step), where its bytes are in the run
// folder (file, offset, length, their CRC-32C) and, for an image, its format and size. And how far
// each metric file's media are indexed (`media_position`): NULL for an event file an older Ferry
// read, whose media a follower indexes from its start up to `position` (RunStore::mediaBehind);
// else the same as `position`.
Expected<void> addMediaIndex(QSqlDatabase &db, const MigrationProgress &)
{
    if (auto done = exec(db, u"ALTER TABLE metric_sources ADD COLUMN media_position INTEGER"_s); !done)
        return done;
    if (auto done = exec(db, u"UPDATE metric_sources SET media_position = position "
                             "WHERE source NOT LIKE '%events.out.tfevents.%' OR position = 0"_s);
        !done)
        return done;
    return exec(db, u"CREATE TABLE media ("
                    "  run TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,"
                    "  kind TEXT NOT NULL CHECK (kind IN ('image', 'histogram', 'text')),"
                    "  tag TEXT NOT NULL,"
                    "  step INTEGER NOT NULL,"
                    "  sample INTEGER NOT NULL DEFAULT 0,"
                    "  wall_ms INTEGER NOT NULL DEFAULT 0,"
                    "  file TEXT NOT NULL,"
                    "  byte_offset INTEGER NOT NULL,"
                    "  byte_length INTEGER NOT NULL,"
                    "  format TEXT NOT NULL,"
                    "  width INTEGER NOT NULL DEFAULT 0,"
                    "  height INTEGER NOT NULL DEFAULT 0,"
                    "  checksum INTEGER NOT NULL DEFAULT 0,"
                    "  PRIMARY KEY (run, kind, tag, step, sample)) WITHOUT ROWID"_s);
}

// kMigrations[v] brings the schema from version v to v + 1. A new version is one function
// appended here and RunStore::kSchemaVersion raised by one.
using Migration = Expected<void> (*)(QSqlDatabase &db, const MigrationProgress &progress);
constexpr std::array<Migration, RunStore::kSchemaVersion> kMigrations{createVersion1, addEpochsAndSources,
                                                                      intoSeriesBlocks, addTagsAndNotes, addMediaIndex};

} // namespace

QString errorText(const QSqlError &error)
{
    return error.databaseText().isEmpty() ? error.text() : error.databaseText();
}

QSqlQuery select(const QString &connection, const QString &sql, const QVariantList &values)
{
    if (connection.isEmpty())
        return QSqlQuery();
    QSqlQuery query(QSqlDatabase::database(connection, false));
    query.setForwardOnly(true);
    if (!query.prepare(sql)) {
        qWarning("run store: %s", qUtf8Printable(errorText(query.lastError())));
        return query;
    }
    for (int i = 0; i < values.size(); ++i)
        query.bindValue(i, values[i]);
    if (!query.exec())
        qWarning("run store: %s", qUtf8Printable(errorText(query.lastError())));
    return query;
}

Expected<void> exec(QSqlDatabase &db, const QString &sql)
{
    QSqlQuery query(db);
    if (!query.exec(sql))
        return Error{errorText(query.lastError()), {}, 0, 0, {}};
    return {};
}

Expected<void> checkLocation(const QString &path)
{
    const QFileInfo file(path);
    const QString folder = file.absolutePath();
    if (!QDir().mkpath(folder))
        return databaseError(folder, u"cannot create the folder for the run database"_s,
                             u"check that the workspace is a folder you can write to"_s);
    if (!QFileInfo(folder).isWritable())
        return databaseError(folder, u"the folder for the run database is not writable"_s,
                             u"give yourself write permission on it, or open another workspace"_s);
    if (file.exists() && !file.isFile())
        return databaseError(path, u"the run database is not a file"_s, u"move what is there out of the way"_s);
    if (file.exists() && file.size() > 0) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly))
            return databaseError(path, u"cannot read the run database: %1"_s.arg(f.errorString()),
                                 u"check the file's permissions"_s);
        if (f.read(16) != QByteArray("SQLite format 3\0", 16))
            return databaseError(path, u"not a run database: the file is damaged or of another kind"_s,
                                 u"move it away (Ferry then starts a new, empty one) or restore it from a backup"_s);
    }
    return {};
}

Expected<void> openConnection(const QString &connection, const QString &path)
{
    QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, connection);
    if (!db.isValid())
        return databaseError(path, u"the Qt SQLite driver (QSQLITE) is not available"_s,
                             u"install libqt6sql6-sqlite"_s);
    db.setDatabaseName(path);
    db.setConnectOptions(u"QSQLITE_BUSY_TIMEOUT=10000"_s);
    if (!db.open())
        return databaseError(path, u"cannot open the run database: %1"_s.arg(errorText(db.lastError())));
    // WAL (synchronous NORMAL is safe there); a rollback journal on a network file system wants FULL.
    const QString synchronous = networkFileSystem(path).isEmpty() ? u"NORMAL"_s : u"FULL"_s;
    for (const QString &sql : QStringList{u"PRAGMA foreign_keys = ON"_s, u"PRAGMA synchronous = "_s + synchronous}) {
        if (const auto done = exec(db, sql); !done)
            return databaseError(path, u"not a usable run database: %1"_s.arg(done.error().message),
                                 u"move it away (Ferry then starts a new, empty one) or restore it from a backup"_s);
    }
    return {};
}

void closeConnection(const QString &connection)
{
    {
        QSqlDatabase db = QSqlDatabase::database(connection, false);
        db.close();
    }
    QSqlDatabase::removeDatabase(connection);
}

Expected<void> migrate(QSqlDatabase &db, const QString &path, const MigrationProgress &progress)
{
    const QString damaged = u"move it away (Ferry then starts a new, empty one) or restore it from a backup"_s;
    // The first statement reads the schema: a damaged file fails here.
    const auto version = pragma(db, u"PRAGMA user_version"_s);
    if (!version)
        return databaseError(path, u"not a usable run database: %1"_s.arg(version.error().message), damaged);
    const int current = version->toInt();
    if (current > RunStore::kSchemaVersion)
        return databaseError(path,
                             u"the run database was written by a newer Ferry (schema version %1; "
                             "this Ferry reads up to %2)"_s.arg(current)
                                 .arg(RunStore::kSchemaVersion),
                             u"update Ferry, or open another workspace"_s);
    const auto applicationId = pragma(db, u"PRAGMA application_id"_s);
    const auto tables = pragma(db, u"SELECT count(*) FROM sqlite_master"_s);
    if (!applicationId || !tables)
        return databaseError(
            path, u"not a usable run database: %1"_s.arg((!tables ? tables : applicationId).error().message), damaged);
    const bool foreign = current == 0 ? tables->toInt() > 0 : applicationId->toInt() != kApplicationId;
    if (foreign)
        return databaseError(path, u"not a run database: the file belongs to another program"_s,
                             u"move it away; Ferry then starts a new, empty one"_s);

    // A new store gives the pages of deleted runs back to the file system (it must say so before
    // its first table).
    if (current == 0) {
        if (const auto done = exec(db, u"PRAGMA auto_vacuum = INCREMENTAL"_s); !done)
            return databaseError(path, u"not a usable run database: %1"_s.arg(done.error().message), damaged);
    }

    // WAL's shared memory works between processes of one host only: on a network file system (a
    // workspace on NFS that two machines open) the run store keeps a rollback journal (review L12).
    const QString network = networkFileSystem(path);
    const QString journal = network.isEmpty() ? u"wal"_s : u"delete"_s;
    const auto mode = pragma(db, u"PRAGMA journal_mode = "_s + journal);
    if (!mode || mode->toString() != journal)
        return databaseError(path,
                             u"cannot switch the run database to %1 mode: %2"_s.arg(
                                 journal.toUpper(), mode ? mode->toString() : mode.error().message),
                             network.isEmpty() ? u"keep the workspace on a local file system"_s
                                               : u"the workspace is on %1: check that its locks work"_s.arg(network));

    for (int v = current; v < RunStore::kSchemaVersion; ++v) {
        Expected<void> done;
        if (!db.transaction())
            done = Error{errorText(db.lastError()), {}, 0, 0, {}};
        if (done)
            done = kMigrations[static_cast<size_t>(v)](db, progress);
        if (done)
            done = exec(db, u"PRAGMA user_version = %1"_s.arg(v + 1));
        if (done && !db.commit())
            done = Error{errorText(db.lastError()), {}, 0, 0, {}};
        if (!done) {
            db.rollback();
            return databaseError(path, u"cannot update the run database to schema version %1: %2"_s.arg(v + 1).arg(
                                           done.error().message));
        }
    }
    // The points of an older store moved into blocks: its rows' pages go back to the file system,
    // and from now on a deleted run's pages do too (PRAGMA incremental_vacuum after a delete).
    if (current > 0 && current < kFirstBlockVersion) {
        if (progress)
            progress(-1, -1);
        for (const QString &sql : {u"PRAGMA auto_vacuum = INCREMENTAL"_s, u"VACUUM"_s}) {
            if (const auto done = exec(db, sql); !done)
                qWarning("run store %s: cannot compact it after the conversion: %s", qUtf8Printable(path),
                         qUtf8Printable(done.error().message));
        }
    }
    return {};
}

} // namespace ferry::run::runstoreschema
