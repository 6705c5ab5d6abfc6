// The run store: schema and migrations, runs, statuses, parameters, metrics, artifacts, and
// reads while the writer thread is busy.
#include "store/runstore.h"
#include "support/rawdatabase.h"
#include "support/storefolders.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <iterator>
#include <thread>
#include <tuple>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

using ferry::test::RawDatabase;

RunRecord record(const QString &id, qint64 createdMs)
{
    RunRecord r;
    r.id = id;
    r.experiment = u"baseline"_s;
    r.name = u"train"_s;
    r.target = u"local"_s;
    r.environmentTag = u"torch-1-0a1b2c3d"_s;
    r.spec = QJsonObject{{u"id"_s, id}, {u"script"_s, u"train.py"_s}};
    r.createdMs = createdMs;
    return r;
}

QList<MetricPoint> points(const QString &name, int count, double firstStep = 0)
{
    QList<MetricPoint> result;
    for (int i = 0; i < count; ++i)
        result.append(MetricPoint{name, firstStep + i, 1.0 / (i + 1), 1000 + i});
    return result;
}

QString render(const QList<MetricPoint> &list)
{
    QStringList parts;
    for (const MetricPoint &p : list)
        parts << u"%1@%2=%3"_s.arg(p.name).arg(p.step).arg(p.value);
    return parts.join(u' ');
}

} // namespace

class TestRunStore : public QObject {
    Q_OBJECT
private:
    ferry::test::StoreFolders m_stores;

    QString freshPath() { return m_stores.freshPath(); }
    static std::unique_ptr<RunStore> openStore(const QString &path) { return ferry::test::openStore(path); }

private Q_SLOTS:
    void schemaAndWal()
    {
        const QString path = freshPath();
        QVERIFY(path.endsWith(u"/.ferry/runs.sqlite"_s));
        auto store = openStore(path);
        QVERIFY(store);
        QVERIFY(QFile::exists(path));
        RawDatabase raw(path);
        QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), RunStore::kSchemaVersion);
        QCOMPARE(raw.value(u"PRAGMA journal_mode"_s).toString(), u"wal"_s);
        for (const QString &table :
             {u"experiments"_s, u"runs"_s, u"params"_s, u"series"_s, u"blocks"_s, u"artifacts"_s, u"metric_sources"_s})
            QVERIFY2(raw.db().tables().contains(table), qPrintable(table));
        QVERIFY(!raw.db().tables().contains(u"metrics"_s));      // points live in blocks
        QCOMPARE(raw.value(u"PRAGMA auto_vacuum"_s).toInt(), 2); // incremental: deleted runs give pages back
        QVERIFY(store->integrityCheck());
    }

    void reopenKeepsDataAndVersion()
    {
        const QString path = freshPath();
        {
            auto store = openStore(path);
            QVERIFY(store);
            store->createRun(record(u"r1"_s, 1));
        } // closing flushes
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->runs().size(), 1);
        RawDatabase raw(path);
        QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), RunStore::kSchemaVersion);
    }

    void emptyFileIsMigrated()
    {
        const QString path = freshPath();
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        QFile file(path);
        QVERIFY(file.open(QIODevice::WriteOnly));
        file.close();
        auto store = openStore(path);
        QVERIFY(store);
        RawDatabase raw(path);
        QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), RunStore::kSchemaVersion);
    }

    // A store of schema version 1 (before epochs) gets its epoch column; the embedded
    // trainer's per-epoch points, stored at step = epoch, get that epoch and the optimiser
    // step logged before them; every other point stays as it was.
    void versionOneStoreGetsEpochs()
    {
        const QString path = m_stores.oldStore(1);
        {
            RawDatabase raw(path);
            QVERIFY(raw.exec(u"INSERT INTO runs(id, status, target) VALUES ('emb', 'succeeded', 'embedded'), "
                             "('script', 'succeeded', 'local')"_s));
            for (const auto &[run, name, step] : {std::tuple{"emb", "loss", 10},
                                                  {"emb", "loss", 20},
                                                  {"emb", "val_loss", 1},
                                                  {"emb", "loss", 30},
                                                  {"emb", "loss", 40},
                                                  {"emb", "val_loss", 2},
                                                  {"emb", "lr", 2},
                                                  {"script", "val_loss", 1}})
                QVERIFY(
                    raw.exec(u"INSERT INTO metrics(run, name, step, wall_ms, value) VALUES ('%1', '%2', %3, 5, 0.5)"_s
                                 .arg(QLatin1StringView(run), QLatin1StringView(name))
                                 .arg(step)));
        }
        auto store = openStore(path);
        QVERIFY(store);
        QCOMPARE(RawDatabase(path).value(u"PRAGMA user_version"_s).toInt(), RunStore::kSchemaVersion);
        const QList<MetricPoint> val = store->metrics(u"emb"_s, u"val_loss"_s);
        QCOMPARE(val.size(), 2);
        QCOMPARE((std::pair{val[0].step, val[0].epoch}), (std::pair{20.0, 1.0}));
        QCOMPARE((std::pair{val[1].step, val[1].epoch}), (std::pair{40.0, 2.0}));
        QCOMPARE(store->metrics(u"emb"_s, u"lr"_s).at(0).step, 40.0);
        QCOMPARE(store->metrics(u"emb"_s, u"loss"_s).size(), 4);
        for (const MetricPoint &p : store->metrics(u"emb"_s, u"loss"_s))
            QVERIFY(std::isnan(p.epoch));
        const MetricPoint other = store->metrics(u"script"_s).at(0);
        QCOMPARE(other.step, 1.0);
        QVERIFY(std::isnan(other.epoch));
        QVERIFY(store->integrityCheck());
    }

    // A store of schema version 2 (a row per point) converts into blocks on first open, with
    // progress, every point kept bit for bit and in arrival order, its rows' space given back.
    void versionTwoStoreConvertsBitForBit()
    {
        const QString path = m_stores.oldStore(2);
        const double specials[] = {0.2831,
                                   -0.0,
                                   std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(),
                                   std::numeric_limits<double>::denorm_min(),
                                   std::numeric_limits<double>::max(),
                                   0.1 + 0.2,
                                   double(0.2831f)};
        std::vector<std::tuple<QString, QString, double, qint64, double, double>>
            rows; // run, name, step, wall, value, epoch
        const double nan = std::numeric_limits<double>::quiet_NaN();
        {
            RawDatabase raw(path);
            QVERIFY(raw.exec(u"INSERT INTO runs(id, status) VALUES ('a', 'running'), ('b', 'succeeded')"_s));
            QSqlQuery insert(raw.db());
            QVERIFY(insert.prepare(
                u"INSERT INTO metrics(run, name, step, wall_ms, value, epoch) VALUES (?, ?, ?, ?, ?, ?)"_s));
            raw.exec(u"BEGIN"_s);
            for (int i = 0; i < 5000; ++i) {
                // Interleaved series, out-of-order and repeated steps, huge steps, NaN (NULL) steps.
                const QString run = i % 3 ? u"a"_s : u"b"_s;
                const QString name = i % 2 ? u"loss"_s : u"lr"_s;
                const double step = i % 97 == 0 ? nan : i % 89 == 0 ? 1e300 : double((i * 7919) % 1000);
                const double value = i % 11 == 0   ? specials[(i / 11) % std::size(specials)]
                                     : i % 13 == 0 ? nan
                                                   : 1.0 / (i + 1);
                const double epoch = i % 5 == 0 ? nan : i / 1000.0;
                const QVariant null(QMetaType::fromType<double>());
                for (const auto &[index, v] : {std::pair{2, step}, {4, value}, {5, epoch}})
                    insert.bindValue(index, std::isnan(v) ? null : QVariant(v));
                insert.bindValue(0, run);
                insert.bindValue(1, name);
                insert.bindValue(3, qint64(1'764'000'000'000) + i * 37);
                QVERIFY(insert.exec());
            }
            raw.exec(u"COMMIT"_s);
            // What the old store gives back is what must come out of the new one (SQLite keeps a
            // REAL as it is, but -0.0 as 0, as it always has).
            QSqlQuery all(raw.db());
            QVERIFY(all.exec(u"SELECT run, name, step, wall_ms, value, epoch FROM metrics ORDER BY rowid"_s));
            const auto orNaN = [nan](const QVariant &v) { return v.isNull() ? nan : v.toDouble(); };
            while (all.next())
                rows.emplace_back(all.value(0).toString(), all.value(1).toString(), orNaN(all.value(2)),
                                  all.value(3).toLongLong(), orNaN(all.value(4)), orNaN(all.value(5)));
            QCOMPARE(rows.size(), size_t(5000));
        }
        QList<std::pair<qint64, qint64>> progress;
        auto opened = RunStore::open(path, [&](qint64 done, qint64 total) { progress.append({done, total}); });
        QVERIFY(opened);
        auto &store = *opened;
        QVERIFY(progress.size() >= 4); // one per series at least, then the compaction
        QCOMPARE(progress.last(), (std::pair<qint64, qint64>{-1, -1}));
        QCOMPARE(progress.at(progress.size() - 2), (std::pair<qint64, qint64>{5000, 5000}));
        const auto sameBits = [](double a, double b) { return std::bit_cast<quint64>(a) == std::bit_cast<quint64>(b); };
        for (const QString &run : {u"a"_s, u"b"_s}) {
            for (const QString &name : {u"loss"_s, u"lr"_s}) {
                const std::vector<SeriesPoint> stored = store->series(run, name);
                size_t k = 0;
                for (const auto &[r, n, step, wall, value, epoch] : rows) {
                    if (r != run || n != name)
                        continue;
                    QVERIFY(k < stored.size());
                    const SeriesPoint &p = stored[k++];
                    QVERIFY2(sameBits(p.step, step) && p.wallMs == wall && sameBits(p.value, value) &&
                                 sameBits(p.epoch, epoch),
                             qPrintable(u"%1/%2 point %3"_s.arg(run, name).arg(k - 1)));
                }
                QCOMPARE(stored.size(), k);
            }
        }
        RawDatabase raw(path);
        QVERIFY(!raw.db().tables().contains(u"metrics"_s));
        QCOMPARE(raw.value(u"PRAGMA auto_vacuum"_s).toInt(), 2);
        QCOMPARE(raw.value(u"PRAGMA freelist_count"_s).toInt(), 0); // compacted
        QVERIFY(store->integrityCheck());
    }

    void databaseFromTheFutureIsRefused()
    {
        const QString path = freshPath();
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        {
            RawDatabase raw(path);
            QVERIFY(raw.exec(u"CREATE TABLE runs (id TEXT)"_s));
            QVERIFY(raw.exec(u"PRAGMA user_version = 99"_s));
        }
        auto store = RunStore::open(path);
        QVERIFY(!store);
        QVERIFY2(store.error().message.contains(
                     u"newer Ferry (schema version 99; this Ferry reads up to %1)"_s.arg(RunStore::kSchemaVersion)),
                 qPrintable(store.error().message));
        QCOMPARE(store.error().path, path);
        QVERIFY(!store.error().hint.isEmpty());
    }

    void corruptFileIsRefused_data()
    {
        QTest::addColumn<QByteArray>("content");
        QTest::addColumn<QString>("message");
        QTest::newRow("garbage") << QByteArray(8192, 'x') << u"not a run database"_s;
        QTest::newRow("damaged schema page") << QByteArray() << u"not a usable run database"_s;
    }
    void corruptFileIsRefused()
    {
        QFETCH(QByteArray, content);
        QFETCH(QString, message);
        const QString path = freshPath();
        if (content.isEmpty()) {
            {
                auto store = openStore(path);
                QVERIFY(store);
                store->createRun(record(u"r1"_s, 1));
            }
            QFile file(path);
            QVERIFY(file.open(QIODevice::ReadWrite));
            QVERIFY(file.seek(100)); // past the header: the schema's b-tree page
            file.write(QByteArray(1500, '\xff'));
        } else {
            QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
            QFile file(path);
            QVERIFY(file.open(QIODevice::WriteOnly));
            file.write(content);
        }
        auto store = RunStore::open(path);
        QVERIFY(!store);
        QVERIFY2(store.error().message.contains(message), qPrintable(store.error().toString()));
        QCOMPARE(QFile(path).size() > 0, true); // left as it was, for the user to rescue
    }

    void otherProgramsDatabaseIsRefused()
    {
        const QString path = freshPath();
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        {
            RawDatabase raw(path);
            QVERIFY(raw.exec(u"CREATE TABLE bookmarks (url TEXT)"_s));
        }
        auto store = RunStore::open(path);
        QVERIFY(!store);
        QVERIFY2(store.error().message.contains(u"belongs to another program"_s), qPrintable(store.error().message));
    }

    void unwritableFolderIsRefused()
    {
        // A regular file where the workspace folder should be: no one, not even root, can create it.
        const QString file = m_stores.filePath(u"plain-file"_s);
        QFile f(file);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        auto store = RunStore::open(RunStore::pathInWorkspace(file));
        QVERIFY(!store);
        QVERIFY2(store.error().message.contains(u"cannot create the folder"_s), qPrintable(store.error().message));
    }

    void createAndReadRuns()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        RunRecord first = record(u"r1"_s, 100);
        RunRecord second = record(u"r2"_s, 200);
        second.experiment.clear();
        second.exitCode = 3;
        second.error = u"boom"_s;
        store->createRun(first);
        store->createRun(second);
        store->flush();
        const QList<RunRecord> all = store->runs();
        QCOMPARE(all.size(), 2);
        QCOMPARE(all[0], second); // newest first
        QCOMPARE(all[1], first);
        QCOMPARE(store->run(u"r1"_s), std::optional<RunRecord>(first));
        QVERIFY(!store->run(u"missing"_s));

        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        store->createRun(first); // the id is taken
        store->flush();
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed[0][0].value<ferry::Error>().message.contains(u"cannot store run r1"_s),
                 qPrintable(failed[0][0].value<ferry::Error>().message));
    }

    void newRunRecordFromSpec()
    {
        RunSpec spec;
        spec.id = u"20261130-061500-train-3fa2"_s;
        spec.script = u"src/train.py"_s;
        spec.environmentTag = u"torch-1-0a1b2c3d"_s;
        spec.target.kind = TargetKind::Container;
        const RunRecord r = newRunRecord(spec, u"exp"_s);
        QCOMPARE(r.id, spec.id);
        QCOMPARE(r.name, u"train"_s);
        QCOMPARE(r.target, u"container"_s);
        QCOMPARE(r.environmentTag, spec.environmentTag);
        QCOMPARE(RunSpec::fromJson(r.spec).value(), spec);
        QVERIFY(r.createdMs > 0);
    }

    void statuses()
    {
        for (RunStatus s : {RunStatus::Created, RunStatus::Building, RunStatus::Running, RunStatus::Succeeded,
                            RunStatus::Failed, RunStatus::Cancelled, RunStatus::Lost})
            QCOMPARE(runStatusFromText(runStatusText(s)), std::optional<RunStatus>(s));
        QCOMPARE(runStatusText(RunStatus::Cancelled), u"cancelled"_s);
        QVERIFY(!runStatusFromText(u"Running"_s));
        QVERIFY(isFinished(RunStatus::Lost) && !isFinished(RunStatus::Building));

        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"r1"_s, 1));
        store->setStatus(u"r1"_s, RunStatus::Building);
        store->flush();
        QCOMPARE(store->run(u"r1"_s)->status, RunStatus::Building);
        QCOMPARE(store->run(u"r1"_s)->startedMs, 0);

        store->setStatus(u"r1"_s, RunStatus::Running);
        store->flush();
        const qint64 started = store->run(u"r1"_s)->startedMs;
        QVERIFY(started > 0);
        QCOMPARE(store->run(u"r1"_s)->finishedMs, 0);

        store->setStatus(u"r1"_s, RunStatus::Failed, 2, u"CUDA out of memory"_s, 12345);
        store->flush();
        RunRecord r = *store->run(u"r1"_s);
        QCOMPARE(r.status, RunStatus::Failed);
        QCOMPARE(r.exitCode, std::optional<int>(2));
        QCOMPARE(r.error, u"CUDA out of memory"_s);
        QCOMPARE(r.finishedMs, 12345);
        QCOMPARE(r.startedMs, started);

        store->setStatus(u"r1"_s, RunStatus::Lost); // finished now, no exit code
        store->flush();
        r = *store->run(u"r1"_s);
        QCOMPARE(r.status, RunStatus::Lost);
        QVERIFY(!r.exitCode);
        QVERIFY(r.finishedMs > 12345);

        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        store->setStatus(u"nope"_s, RunStatus::Running);
        store->flush();
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed[0][0].value<ferry::Error>().message.contains(u"no such run"_s));
    }

    void params()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"r1"_s, 1));
        store->setParams(u"r1"_s, {{u"lr"_s, u"0.01"_s}, {u"epochs"_s, u"3"_s}, {u"layers"_s, u"[64, 32]"_s}});
        store->flush();
        QCOMPARE(store->params(u"r1"_s),
                 (QList<Hyperparameter>{{u"lr"_s, u"0.01"_s}, {u"epochs"_s, u"3"_s}, {u"layers"_s, u"[64, 32]"_s}}));
        store->setParams(u"r1"_s, {{u"epochs"_s, u"5"_s}, {u"empty"_s, QString()}});
        store->flush();
        QCOMPARE(store->params(u"r1"_s), (QList<Hyperparameter>{{u"epochs"_s, u"5"_s}, {u"empty"_s, u""_s}}));
        QVERIFY(store->params(u"other"_s).isEmpty());
    }

    void artifacts()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"r1"_s, 1));
        store->addArtifact(u"r1"_s, {u"model.tar.gz"_s, u"model"_s, 10});
        store->addArtifact(u"r1"_s, {u"output.tar.gz"_s, u"output"_s, 20});
        store->addArtifact(u"r1"_s, {u"model.tar.gz"_s, u"model"_s, 11}); // rewritten
        store->flush();
        QCOMPARE(store->artifacts(u"r1"_s),
                 (QList<Artifact>{{u"model.tar.gz"_s, u"model"_s, 11}, {u"output.tar.gz"_s, u"output"_s, 20}}));
    }

    // Points go in through SQLite's C API where Qt's driver allows it, else through QSqlQuery:
    // both paths must store the same.
    void metricsOrderingAndNames()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"r1"_s, 1));
        store->createRun(record(u"r2"_s, 2));
        const double nan = std::numeric_limits<double>::quiet_NaN();
        store->appendMetrics(u"r1"_s, {{u"loss"_s, 2, 0.5, 7}, {u"acc"_s, 2, 0.7, 7}, {u"loss"_s, 1, 0.9, 6}}, 40);
        store->appendMetrics(u"r1"_s, {{u"loss"_s, 2, 0.4, 8}, {u"lr"_s, 0, nan, 9, 0.25}}, 80);
        store->appendMetrics(u"r2"_s, {{u"loss"_s, 0, 1, 1}}, 5);
        store->appendMetrics(u"r3"_s, points(u"x"_s, 200), 5); // no such run: refused
        store->createRun(record(u"r4"_s, 4));
        store->appendMetrics(u"r4"_s, points(u"x"_s, 2500), 6); // two full blocks and an open one
        store->flush();
        const QList<MetricPoint> many = store->metrics(u"r4"_s);
        QCOMPARE(many.size(), 2500);
        QCOMPARE(many.last().step, 2499);
        QCOMPARE(many.last().value, 1.0 / 2500);
        QCOMPARE(many.last().wallMs, 3499);
        // By step, then by arrival for equal steps; NaN survives.
        QCOMPARE(render(store->metrics(u"r1"_s, u"loss"_s)), u"loss@1=0.9 loss@2=0.5 loss@2=0.4"_s);
        QCOMPARE(render(store->metrics(u"r1"_s)), u"acc@2=0.7 loss@1=0.9 loss@2=0.5 loss@2=0.4 lr@0=nan"_s);
        QCOMPARE(store->metrics(u"r1"_s, u"acc"_s).at(0).wallMs, 7);
        // The epoch, where a point has one; NaN where not.
        QCOMPARE(store->metrics(u"r1"_s, u"lr"_s).at(0).epoch, 0.25);
        QVERIFY(std::isnan(store->metrics(u"r1"_s, u"acc"_s).at(0).epoch));
        QVERIFY(std::isnan(many.last().epoch));
        QCOMPARE(store->metricNames(u"r1"_s), (QStringList{u"acc"_s, u"loss"_s, u"lr"_s}));
        QCOMPARE(store->metricNames(u"r2"_s), QStringList{u"loss"_s});
        QVERIFY(store->metricNames(u"r3"_s).isEmpty());
        QCOMPARE(store->metricCount(u"r1"_s, u"loss"_s), 3);
        QCOMPARE(store->metricCount(u"r1"_s, u"nope"_s), 0);
        QCOMPARE(store->run(u"r1"_s)->logOffset, 80);
        QCOMPARE(store->run(u"r2"_s)->logOffset, 5);
    }

    // A live view: everything, then only what came since, each point once, other runs left out.
    void snapshotThenIncrements()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"a"_s, 1));
        store->createRun(record(u"b"_s, 2));
        store->appendMetrics(u"a"_s, points(u"loss"_s, 5), 10);
        store->appendMetrics(u"b"_s, points(u"loss"_s, 3), 10);
        store->flush();
        RunStore::MetricCursor cursor;
        const auto first = store->metricsSince(u"a"_s, cursor);
        QCOMPARE(first.size(), 1);
        QCOMPARE(first[0].name, u"loss"_s);
        QCOMPARE(first[0].columns.size(), 5);
        QVERIFY(store->metricsSince(u"a"_s, cursor).isEmpty());
        store->appendMetrics(u"b"_s, points(u"loss"_s, 4, 10), 20);
        store->appendMetrics(u"a"_s, points(u"acc"_s, 2, 5), 20);
        store->appendMetrics(u"a"_s, points(u"loss"_s, 3, 5), 30);
        store->flush();
        const auto since = store->metricsSince(u"a"_s, cursor);
        QCOMPARE(since.size(), 2);
        QCOMPARE(since[0].name, u"acc"_s);
        QCOMPARE(since[0].columns.size(), 2);
        QCOMPARE(since[1].name, u"loss"_s);
        QCOMPARE(since[1].columns.size(), 3);
        QCOMPARE(since[1].columns.steps[0], 5.0);
        QCOMPARE(since[1].columns.values[2], 1.0 / 3);
        QCOMPARE(since[1].columns.wallMs[2], 1002.0);
        QVERIFY(store->metricsSince(u"a"_s, cursor).isEmpty());
        RunStore::MetricCursor other;
        QCOMPARE(store->metricsSince(u"b"_s, other).at(0).columns.size(), 7);
        const QMap<QString, double> last = store->lastValues(u"a"_s);
        QCOMPARE(last.keys(), (QStringList{u"acc"_s, u"loss"_s}));
        QCOMPARE(last.value(u"loss"_s), 1.0 / 3); // step 7, the highest
        QCOMPARE(last.value(u"acc"_s), 0.5);
    }

    // Past a block's worth of points, a cursor in the middle of a block reads from there on; the
    // whole series reads back in arrival order.
    void incrementsAcrossBlocks()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"a"_s, 1));
        RunStore::MetricCursor cursor;
        std::vector<double> seen;
        for (int batch = 0; batch < 9; ++batch) {
            store->appendMetrics(u"a"_s, points(u"loss"_s, 700, batch * 700.0), batch + 1);
            store->flush();
            for (const auto &update : store->metricsSince(u"a"_s, cursor))
                seen.insert(seen.end(), update.columns.steps.begin(), update.columns.steps.end());
        }
        QCOMPARE(seen.size(), size_t(6300));
        for (size_t i = 0; i < seen.size(); ++i)
            QCOMPARE(seen[i], double(i));
        const std::vector<SeriesPoint> all = store->series(u"a"_s, u"loss"_s);
        QCOMPARE(all.size(), size_t(6300));
        QCOMPARE(all.back().step, 6299.0);
        QCOMPARE(store->metricCount(u"a"_s, u"loss"_s), 6300);
    }

    // A step range reads only what it asks for; a pixel column's summary is what the points in it
    // give (checked against every point), on each x axis.
    void rangesAndSummaries()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"a"_s, 1));
        QList<MetricPoint> list;
        for (int i = 0; i < 20000; ++i) // out of order here and there, an epoch every 1,000 steps
            list.append(MetricPoint{u"loss"_s, double(i % 997 == 0 ? i - 500 : i), std::sin(i / 300.0) + i * 1e-4,
                                    1'764'000'000'000 + i * 100, double(i / 1000)});
        store->appendMetrics(u"a"_s, list, 1);
        store->flush();
        const std::vector<SeriesPoint> all = store->series(u"a"_s, u"loss"_s);
        const std::vector<SeriesPoint> range = store->seriesRange(u"a"_s, u"loss"_s, 5000, 5999.5);
        std::vector<SeriesPoint> expected;
        std::copy_if(all.begin(), all.end(), std::back_inserter(expected),
                     [](const SeriesPoint &p) { return p.step >= 5000 && p.step <= 5999.5; });
        QCOMPARE(range.size(), expected.size());
        QVERIFY(range.size() > 990);
        for (size_t i = 0; i < range.size(); ++i)
            QCOMPARE(range[i].step, expected[i].step);
        for (const auto axis : {RunStore::Axis::Step, RunStore::Axis::Epoch, RunStore::Axis::WallTime}) {
            const auto xOf = [axis](const SeriesPoint &p) {
                return axis == RunStore::Axis::Step    ? p.step
                       : axis == RunStore::Axis::Epoch ? p.epoch
                                                       : double(p.wallMs);
            };
            const double x0 = xOf(all[3000]), x1 = xOf(all[17000]);
            const int columns = 37;
            const auto summary = store->seriesSummary(u"a"_s, u"loss"_s, axis, x0, x1, columns);
            QCOMPARE(summary.size(), size_t(columns));
            std::vector<RunStore::ColumnSummary> brute(columns);
            for (const SeriesPoint &p : all) {
                const double x = xOf(p);
                if (!(x >= x0 && x < x1))
                    continue;
                auto &c = brute[std::min(size_t((x - x0) * columns / (x1 - x0)), brute.size() - 1)];
                if (c.count++ == 0) {
                    c.min = c.max = c.first = c.last = p.value;
                    c.firstX = c.lastX = x;
                    continue;
                }
                c.min = std::min(c.min, p.value);
                c.max = std::max(c.max, p.value);
                if (x < c.firstX)
                    std::tie(c.firstX, c.first) = std::pair{x, p.value};
                if (x >= c.lastX)
                    std::tie(c.lastX, c.last) = std::pair{x, p.value};
            }
            qint64 counted = 0;
            for (int c = 0; c < columns; ++c) {
                QCOMPARE(summary[c].count, brute[c].count);
                counted += summary[c].count;
                if (brute[c].count == 0)
                    continue;
                QCOMPARE(summary[c].min, brute[c].min);
                QCOMPARE(summary[c].max, brute[c].max);
                QCOMPARE(summary[c].first, brute[c].first);
                QCOMPARE(summary[c].last, brute[c].last);
            }
            QVERIFY(counted > 10000);
        }
    }

    void failedBatchKeepsTheOthers()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        store->createRun(record(u"r1"_s, 1));
        store->appendMetrics(u"ghost"_s, points(u"loss"_s, 3), 10); // foreign key: no such run
        store->appendMetrics(u"r1"_s, points(u"loss"_s, 100), 20);
        store->flush();
        QCOMPARE(failed.size(), 1);
        QVERIFY2(failed[0][0].value<ferry::Error>().message.startsWith(u"run ghost: cannot store metrics"_s),
                 qPrintable(failed[0][0].value<ferry::Error>().message));
        QCOMPARE(store->metrics(u"r1"_s).size(), 100);
        QCOMPARE(store->run(u"r1"_s)->logOffset, 20);
    }

    void flushSemantics()
    {
        const QString path = freshPath();
        auto store = openStore(path);
        QVERIFY(store);
        store->flush(); // nothing queued: returns at once
        store->createRun(record(u"r1"_s, 1));
        for (int i = 1; i <= 500; ++i)
            store->appendMetrics(u"r1"_s, points(u"loss"_s, 7, i * 7.0), i * 100);
        store->flush();
        QCOMPARE(store->metrics(u"r1"_s).size(), 3500);
        QCOMPARE(store->run(u"r1"_s)->logOffset, 50000);

        // close() commits what is queued; afterwards writes are refused, reads are empty.
        store->appendMetrics(u"r1"_s, points(u"acc"_s, 5), 50100);
        store->close();
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        store->appendMetrics(u"r1"_s, points(u"acc"_s, 5), 50200);
        QCOMPARE(failed.size(), 1);
        QVERIFY(failed[0][0].value<ferry::Error>().message.contains(u"closed"_s));
        QVERIFY(store->runs().isEmpty());
        store.reset();

        store = openStore(path);
        QVERIFY(store);
        QCOMPARE(store->metrics(u"r1"_s, u"acc"_s).size(), 5);
        QCOMPARE(store->run(u"r1"_s)->logOffset, 50100);
    }

    void readsWhileTheWriterIsBusy()
    {
        // Big appends queue up in the writer thread while other threads read. Every read sees
        // whole batches (their points and offset together) and never waits for the writer.
        const QString path = freshPath();
        auto store = openStore(path);
        QVERIFY(store);
        store->createRun(record(u"r1"_s, 1));
        store->flush();
        constexpr int kBatches = 6;
        constexpr int kBatchPoints = 200000;

        std::atomic<bool> done{false};
        std::atomic<int> snapshots{0}, inFlight{0}, torn{0}, apiReads{0};
        std::thread reader([&] {
            RawDatabase raw(path);
            for (;;) {
                const bool last = done.load();
                // One read transaction: the offset and the points must belong together.
                raw.exec(u"BEGIN"_s);
                const qint64 offset = raw.value(u"SELECT log_offset FROM runs WHERE id = 'r1'"_s).toLongLong();
                const qint64 count =
                    raw.value(u"SELECT coalesce(sum(points), 0) FROM series WHERE run = 'r1'"_s).toLongLong();
                raw.exec(u"COMMIT"_s);
                ++snapshots;
                if (count != offset * kBatchPoints)
                    ++torn;
                if (offset < kBatches)
                    ++inFlight;
                // The store's own reads, on this thread's connection.
                if (store->run(u"r1"_s) && store->metricNames(u"r1"_s).size() <= 1)
                    ++apiReads;
                if (last)
                    break;
            }
        });
        for (int b = 1; b <= kBatches; ++b)
            store->appendMetrics(u"r1"_s, points(u"loss"_s, kBatchPoints, (b - 1.0) * kBatchPoints), b);
        // This thread reads too while the appends are in flight.
        int mainReads = 0;
        while (store->run(u"r1"_s)->logOffset < kBatches) {
            QVERIFY(store->runs().size() == 1);
            ++mainReads;
        }
        store->flush();
        done = true;
        reader.join();
        QCOMPARE(torn.load(), 0);
        QVERIFY(inFlight.load() > 0); // some reads happened while batches were still being written
        QCOMPARE(apiReads.load(), snapshots.load());
        QVERIFY(mainReads > 0);
        QCOMPARE(store->metrics(u"r1"_s).size(), kBatches * kBatchPoints);
        QVERIFY(store->integrityCheck());
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
