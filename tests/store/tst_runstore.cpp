// The run store: schema and migrations, runs, statuses, parameters, metrics, artifacts, and
// reads while the writer thread is busy.
#include "store/runstore.h"

#include <QFile>
#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <atomic>
#include <cmath>
#include <thread>
#include <tuple>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

// A connection of the test's own, to look at the file as another program would.
class RawDatabase {
public:
    explicit RawDatabase(const QString &path) : m_name(u"raw-%1"_s.arg(++s_count))
    {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, m_name);
        db.setDatabaseName(path);
        db.open();
    }
    ~RawDatabase()
    {
        QSqlDatabase::database(m_name, false).close();
        QSqlDatabase::removeDatabase(m_name);
    }
    QVariant value(const QString &sql) const
    {
        QSqlQuery q(QSqlDatabase::database(m_name, false));
        if (!q.exec(sql) || !q.next())
            return {};
        return q.value(0);
    }
    bool exec(const QString &sql) const { return QSqlQuery(QSqlDatabase::database(m_name, false)).exec(sql); }
    QSqlDatabase db() const { return QSqlDatabase::database(m_name, false); }

private:
    QString m_name;
    static inline int s_count = 0;
};

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
    QTemporaryDir m_dir;
    int m_count = 0;

    QString freshPath() { return RunStore::pathInWorkspace(m_dir.filePath(u"ws%1"_s.arg(++m_count))); }

    std::unique_ptr<RunStore> openStore(const QString &path)
    {
        auto store = RunStore::open(path);
        if (!store) {
            qWarning("%s", qUtf8Printable(store.error().toString()));
            return nullptr;
        }
        return std::move(*store);
    }

    static void insertPaths()
    {
        QTest::addColumn<bool>("qtOnly");
        QTest::newRow("sqlite api") << false;
        QTest::newRow("qt only") << true;
    }

    struct PathSetting {
        explicit PathSetting(bool qtOnly)
        {
            if (qtOnly)
                qputenv("FERRY_RUNSTORE_QT_ONLY", "1");
        }
        ~PathSetting() { qunsetenv("FERRY_RUNSTORE_QT_ONLY"); }
    };

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
        for (const QString &table : {u"experiments"_s, u"runs"_s, u"params"_s, u"metrics"_s, u"artifacts"_s})
            QVERIFY2(raw.db().tables().contains(table), qPrintable(table));
        QCOMPARE(raw.value(u"SELECT sql FROM sqlite_master WHERE name = 'metrics_run_name_step'"_s).toString(),
                 u"CREATE INDEX metrics_run_name_step ON metrics(run, name, step)"_s);
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
        const QString path = freshPath();
        {
            auto store = openStore(path);
            QVERIFY(store);
            RunRecord embedded = record(u"emb"_s, 1);
            embedded.target = u"embedded"_s;
            store->createRun(embedded);
            store->createRun(record(u"script"_s, 2));
        }
        {
            RawDatabase raw(path); // back to version 1, as the previous release wrote it
            QVERIFY(raw.exec(u"ALTER TABLE metrics DROP COLUMN epoch"_s));
            QVERIFY(raw.exec(u"DROP TABLE metric_sources"_s));
            QVERIFY(raw.exec(u"DROP TABLE metric_claims"_s));
            QVERIFY(raw.exec(u"PRAGMA user_version = 1"_s));
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
        const QString file = m_dir.filePath(u"plain-file"_s);
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
    void metricsOrderingAndNames_data() { insertPaths(); }
    void metricsOrderingAndNames()
    {
        QFETCH(bool, qtOnly);
        const PathSetting path(qtOnly);
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
        store->appendMetrics(u"r4"_s, points(u"x"_s, 150), 6); // more than one multi-row INSERT
        store->flush();
        const QList<MetricPoint> many = store->metrics(u"r4"_s);
        QCOMPARE(many.size(), 150);
        QCOMPARE(many.last().step, 149);
        QCOMPARE(many.last().value, 1.0 / 150);
        QCOMPARE(many.last().wallMs, 1149);
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

    // A live view: a snapshot, then only what came since, each point once, other runs left out.
    void snapshotThenIncrements()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(record(u"a"_s, 1));
        store->createRun(record(u"b"_s, 2));
        store->appendMetrics(u"a"_s, points(u"loss"_s, 5), 10);
        store->appendMetrics(u"b"_s, points(u"loss"_s, 3), 10);
        store->flush();
        qint64 cursor = -1;
        const QList<MetricPoint> first = store->metricsSnapshot(u"a"_s, cursor);
        QCOMPARE(first.size(), 5);
        QVERIFY(cursor > 0);
        QVERIFY(store->metricsAfter(u"a"_s, cursor).isEmpty());
        store->appendMetrics(u"b"_s, points(u"loss"_s, 4, 10), 20);
        store->appendMetrics(u"a"_s, points(u"acc"_s, 2, 5), 20);
        store->appendMetrics(u"a"_s, points(u"loss"_s, 3, 5), 30);
        store->flush();
        QCOMPARE(render(store->metricsAfter(u"a"_s, cursor, 3)), u"acc@5=1 acc@6=0.5 loss@5=1"_s);
        QCOMPARE(render(store->metricsAfter(u"a"_s, cursor)), u"loss@6=0.5 loss@7=0.333333"_s);
        QVERIFY(store->metricsAfter(u"a"_s, cursor).isEmpty());
        qint64 other = 0;
        QCOMPARE(store->metricsSnapshot(u"b"_s, other).size(), 7);
        const QMap<QString, double> last = store->lastValues(u"a"_s);
        QCOMPARE(last.keys(), (QStringList{u"acc"_s, u"loss"_s}));
        QCOMPARE(last.value(u"loss"_s), 1.0 / 3); // step 7, the highest
        QCOMPARE(last.value(u"acc"_s), 0.5);
    }

    void failedBatchKeepsTheOthers_data() { insertPaths(); }
    void failedBatchKeepsTheOthers()
    {
        QFETCH(bool, qtOnly);
        const PathSetting path(qtOnly);
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
                const qint64 count = raw.value(u"SELECT count(*) FROM metrics WHERE run = 'r1'"_s).toLongLong();
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

QTEST_GUILESS_MAIN(TestRunStore)
#include "tst_runstore.moc"
