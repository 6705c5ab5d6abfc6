// The run store through the command line, the built `ferry` on real stores: `ferry runs metrics
// --csv` exact to the bit, `ferry runs gc`, `ferry doctor --store` on a sound and on a damaged
// store, and the progress of converting a store of an older Ferry.
#include "store/metricexport.h"
#include "store/runstore.h"
#include "support/cli.h"
#include "support/rawdatabase.h"
#include "support/storefolders.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QRegularExpression>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>
#include <QVariant>

#include <bit>
#include <cmath>
#include <limits>
#include <random>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

using ferry::test::runFerry;
using Result = ferry::test::CliResult;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

using ferry::test::RawDatabase;

std::unique_ptr<RunStore> openWorkspaceStore(const QString &workspace)
{
    return ferry::test::openStore(RunStore::pathInWorkspace(workspace));
}

RunRecord finishedRecord(const QString &id)
{
    RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    r.status = RunStatus::Succeeded;
    r.target = u"local"_s;
    r.createdMs = 1'764'000'000'000;
    return r;
}

// The points that text gets wrong: NaN and the infinities, -0.0, steps that six significant
// digits spoil (1234567) or that need an exponent (1e300), repeated and out-of-order steps, points
// without a step or an epoch, and names that CSV must quote.
QList<MetricPoint> awkwardPoints()
{
    const double denormal = std::numeric_limits<double>::denorm_min();
    const double big = std::numeric_limits<double>::max();
    const qint64 wall = 1'764'000'000'123;
    QList<MetricPoint> points{
        {u"loss"_s, 1234567, 0.1 + 0.2, wall, 1.5},
        {u"loss"_s, 1e300, kNaN, wall + 1, kNaN},
        {u"loss"_s, 3, kInf, wall + 2, 0.0},
        {u"loss"_s, 3, -kInf, wall + 3, -0.0},
        {u"loss"_s, 1, -0.0, wall - 4, 1e-300},
        {u"loss"_s, kNaN, denormal, 0, kNaN},
        {u"loss"_s, 1e6, big, -5, 2.0},
        {u"loss"_s, 9007199254740993.0, 0.2831, wall, kNaN}, // beyond 2^53
        {u"loss"_s, -0.0, double(0.2831f), wall, kNaN},
        {u"loss"_s, 2.5, 1e-5, wall, 1e21},
        {u"val,acc"_s, 2, 0.91, wall, kNaN},
        {u"val,acc"_s, 1, 0.9, wall, kNaN},
        {u"say \"hi\"\nthere"_s, 1, 5e-324, wall, kNaN},
        {u"Verlust-\u00e4\u2192"_s, 7, -123.456e-7, wall, 3.0},
    };
    for (int i = 0; i < 3000; ++i) // more than a block and the export's first chunk of a series
        points.append(MetricPoint{u"lr"_s, double(3000 - i), 3e-4 * std::cos(i / 500.0), wall + 100 * i, kNaN});
    return points;
}

bool sameDouble(double expected, double got)
{
    return std::isnan(expected) ? std::isnan(got) : std::bit_cast<quint64>(expected) == std::bit_cast<quint64>(got);
}

// Python's csv module and float() read the CSV back: each row's fields, the numbers as their
// IEEE bits (a string: JSON's doubles would round them), the empty epoch as null.
QJsonArray readWithPython(const QByteArray &csv)
{
    static const QString script = uR"(
import csv, io, json, struct, sys
rows = list(csv.reader(io.TextIOWrapper(sys.stdin.buffer, encoding="utf-8", newline="")))
bits = lambda text: str(struct.unpack("<q", struct.pack("<d", float(text)))[0])
assert all(len(r) == 5 for r in rows), [r for r in rows if len(r) != 5]
json.dump([rows[0]] + [[r[0], bits(r[1]), r[2], bits(r[3]), bits(r[4]) if r[4] else None] for r in rows[1:]],
          sys.stdout)
)"_s;
    const auto run = ferry::test::runCommand(u"/usr/bin/python3"_s, {u"-c"_s, script}, {}, csv);
    if (run.code != 0)
        qWarning("python: %s", run.err.constData());
    return QJsonDocument::fromJson(run.out).array();
}

double fromBits(const QJsonValue &v)
{
    return std::bit_cast<double>(v.toString().toLongLong());
}

qint64 fileBytes(const QString &path)
{
    return QFileInfo(path).size();
}

} // namespace

class TestStoreCli : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void csvIsExactToTheBit();
    void plainAndFailedOutput();
    void gcGivesBackADeletedRunsSpace();
    void doctorChecksTheStore();
    void conversionShowsProgress();
    void progressLinesAreThrottled();
};

void TestStoreCli::csvIsExactToTheBit()
{
    QTemporaryDir ws;
    auto store = openWorkspaceStore(ws.path());
    QVERIFY(store);
    store->createRun(finishedRecord(u"r1"_s));
    store->appendMetrics(u"r1"_s, awkwardPoints(), 1);
    store->flush();

    const auto run = ferry::test::runCommand(
        ferry::test::ferryBinary(), {u"runs"_s, u"metrics"_s, u"r1"_s, u"--csv"_s, u"--workspace"_s, ws.path()});
    QVERIFY2(run.code == 0, run.err.constData());
    QVERIFY(run.out.startsWith("name,step,wall_ms,value,epoch\n"));
    QVERIFY2(run.out.contains("\nloss,1234567,1764000000123,0.30000000000000004,1.5\n"), run.out.left(400).constData());
    QVERIFY(run.out.contains("\nloss,1e+300,1764000000124,nan,\n"));
    QVERIFY(run.out.contains("\n\"val,acc\",1,"));
    QVERIFY(run.out.contains("\n\"say \"\"hi\"\"\nthere\",1,"));

    const QList<MetricPoint> expected = store->metrics(u"r1"_s);
    QCOMPARE(expected.size(), awkwardPoints().size());
    const QJsonArray rows = readWithPython(run.out);
    QCOMPARE(rows.size(), expected.size() + 1);
    QCOMPARE(rows.at(0).toArray(), (QJsonArray{u"name"_s, u"step"_s, u"wall_ms"_s, u"value"_s, u"epoch"_s}));
    for (qsizetype i = 0; i < expected.size(); ++i) {
        const MetricPoint &p = expected.at(i);
        const QJsonArray row = rows.at(i + 1).toArray();
        const QString where = u"row %1 (%2 at step %3)"_s.arg(i + 1).arg(p.name).arg(p.step);
        QVERIFY2(row.at(0).toString() == p.name, qPrintable(where));
        QVERIFY2(sameDouble(p.step, fromBits(row.at(1))), qPrintable(where));
        QVERIFY2(row.at(2).toString().toLongLong() == p.wallMs, qPrintable(where));
        QVERIFY2(sameDouble(p.value, fromBits(row.at(3))), qPrintable(where));
        QVERIFY2(std::isnan(p.epoch) ? row.at(4).isNull() : sameDouble(p.epoch, fromBits(row.at(4))),
                 qPrintable(where));
    }
}

void TestStoreCli::plainAndFailedOutput()
{
    QTemporaryDir ws;
    {
        auto store = openWorkspaceStore(ws.path());
        QVERIFY(store);
        store->createRun(finishedRecord(u"r1"_s));
        store->appendMetrics(u"r1"_s, awkwardPoints(), 1);
    }
    const Result plain = runFerry(ws.path(), {u"runs"_s, u"metrics"_s, u"r1"_s});
    QCOMPARE(plain.exitCode, 0);
    QVERIFY2(plain.out.startsWith(u"Verlust-\u00e4\u2192\t7\t-1.23456e-05\n"_s), qPrintable(plain.out.left(200)));
    QVERIFY(plain.out.contains(u"\nloss\t1234567\t0.30000000000000004\n"_s));
    QVERIFY(plain.out.contains(u"\nloss\t9007199254740992\t0.2831\n"_s)); // 2^53 + 1 is no double
    const QJsonArray json =
        ferry::test::jsonArray(runFerry(ws.path(), {u"runs"_s, u"metrics"_s, u"r1"_s, u"--json"_s}));
    QCOMPARE(json.size(), awkwardPoints().size());

    // A full disk (or a closed pipe) is said, with a failing exit code.
    const Result full = ferry::test::runProgram(
        u"/bin/sh"_s, {u"-c"_s, u"exec \"$0\" runs metrics r1 --csv > /dev/full"_s, ferry::test::ferryBinary()},
        ws.path());
    QCOMPARE(full.exitCode, 1);
    QVERIFY2(full.err.contains(u"ferry runs metrics: cannot write the metrics of run r1: No space left on device"_s),
             qPrintable(full.err));
}

void TestStoreCli::gcGivesBackADeletedRunsSpace()
{
    QTemporaryDir ws;
    const QString path = RunStore::pathInWorkspace(ws.path());
    {
        auto store = openWorkspaceStore(ws.path());
        QVERIFY(store);
        std::mt19937_64 random(7);
        std::uniform_real_distribution<double> noise(0.0, 1.0);
        for (const QString &id : {u"big"_s, u"kept"_s}) {
            store->createRun(finishedRecord(id));
            const int count = id == "big"_L1 ? 300'000 : 1000;
            for (int first = 0; first < count; first += 500) { // a follower's batches
                QList<MetricPoint> batch;
                for (int i = first; i < first + 500; ++i)
                    batch.append(MetricPoint{u"loss"_s, double(i), noise(random), 1'764'000'000'000 + 100 * i, kNaN});
                store->appendMetrics(id, batch, first + 500);
            }
        }
    } // closed: the WAL folded into the file
    const qint64 full = fileBytes(path);
    QVERIFY2(full > 2'000'000, qPrintable(QString::number(full)));
    {
        auto store = openWorkspaceStore(ws.path());
        QVERIFY(store);
        store->deleteRun(u"big"_s);
    }
    // Whatever the delete gave back already, the file ends far smaller than with the big run.
    const qint64 before = fileBytes(path);
    const Result gc = runFerry(ws.path(), {u"runs"_s, u"gc"_s});
    QVERIFY2(gc.exitCode == 0, qPrintable(gc.err));
    const qint64 after = fileBytes(path);
    qInfo("gc: %s (file %lld with the big run, %lld after its delete, %lld after gc)", qPrintable(gc.out.trimmed()),
          full, before, after);
    QVERIFY2(after <= before && after < full / 10, qPrintable(gc.out));
    QVERIFY2(
        QRegularExpression(
            u"^run store: [0-9.]+ (bytes|kB|MB) \u2192 [0-9.]+ (bytes|kB|MB) \\([0-9.]+ (bytes|kB|MB) given back\\)\n$"_s)
            .match(gc.out)
            .hasMatch(),
        qPrintable(gc.out));

    const QJsonObject json = ferry::test::jsonObject(runFerry(ws.path(), {u"runs"_s, u"gc"_s, u"--json"_s}));
    QCOMPARE(json.keys(), (QStringList{u"bytesAfter"_s, u"bytesBefore"_s}));
    QVERIFY(json[u"bytesAfter"_s].toInteger() <= json[u"bytesBefore"_s].toInteger());
    QCOMPARE(json[u"bytesAfter"_s].toInteger(), fileBytes(path));
    auto store = openWorkspaceStore(ws.path());
    QVERIFY(store);
    QCOMPARE(store->metrics(u"kept"_s).size(), 1000); // the other run is whole

    const Result withId = runFerry(ws.path(), {u"runs"_s, u"gc"_s, u"kept"_s});
    QCOMPARE(withId.exitCode, 1);
    QVERIFY2(withId.err.contains(u"ferry runs gc: takes no run"_s), qPrintable(withId.err));
}

void TestStoreCli::doctorChecksTheStore()
{
    QTemporaryDir ws;
    {
        auto store = openWorkspaceStore(ws.path());
        QVERIFY(store);
        store->createRun(finishedRecord(u"r1"_s));
        store->appendMetrics(u"r1"_s, awkwardPoints(), 1);
    }
    const Result good = runFerry(ws.path(), {u"doctor"_s, u"--store"_s});
    QVERIFY2(good.exitCode == 0, qPrintable(good.out + good.err));
    QVERIFY2(good.out.contains(u"  runs: 1, series: 5, blocks: "_s), qPrintable(good.out));
    QVERIFY(good.out.contains(u", points: 3,014, bytes a point: "_s));
    QVERIFY(good.out.contains(u"  OK: "_s));
    QVERIFY(!good.out.contains(u"Optional parts"_s)); // the store only

    // One byte of one block of run r1's loss changed behind the store's back.
    {
        RawDatabase raw(RunStore::pathInWorkspace(ws.path()));
        QSqlQuery q(raw.db());
        QVERIFY(q.exec(u"SELECT b.rowid, b.data FROM blocks b JOIN series s ON s.id = b.series "
                       "WHERE s.run = 'r1' AND s.name = 'loss'"_s));
        QVERIFY(q.next());
        const qint64 rowid = q.value(0).toLongLong();
        QByteArray data = q.value(1).toByteArray();
        q.finish();
        data[data.size() / 2] = static_cast<char>(data[data.size() / 2] ^ 0x10);
        QSqlQuery update(raw.db());
        QVERIFY(update.prepare(u"UPDATE blocks SET data = ? WHERE rowid = ?"_s));
        update.addBindValue(data);
        update.addBindValue(rowid);
        QVERIFY(update.exec());
    }
    const Result bad = runFerry(ws.path(), {u"doctor"_s, u"--store"_s});
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.out.contains(u"  problem: run r1, metric loss: the block at point 0: "_s), qPrintable(bad.out));
    QVERIFY(!bad.out.contains(u"  OK: "_s));
    QVERIFY2(bad.err.contains(u"ferry doctor: the run store has 1 problem(s)"_s), qPrintable(bad.err));

    QTemporaryDir elsewhere; // --workspace, and JSON
    const Result json =
        runFerry(elsewhere.path(), {u"doctor"_s, u"--store"_s, u"--json"_s, u"--workspace"_s, ws.path()});
    QCOMPARE(json.exitCode, 1);
    const QJsonObject store = ferry::test::jsonObject(json)[u"store"_s].toObject();
    QCOMPARE(store[u"ok"_s].toBool(true), false);
    QCOMPARE(store[u"runs"_s].toInteger(), 1);
    QCOMPARE(store[u"points"_s].toInteger(), 3014);
    QCOMPARE(store[u"problems"_s].toArray().size(), 1);
    QVERIFY(store[u"problems"_s].toArray().at(0).toString().startsWith(u"run r1, metric loss: "_s));
    QCOMPARE(store[u"path"_s].toString(), RunStore::pathInWorkspace(ws.path()));
}

void TestStoreCli::conversionShowsProgress()
{
    QTemporaryDir ws;
    const QString path = RunStore::pathInWorkspace(ws.path());
    QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
    QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/stores/runs-v2.sqlite"), path));
    QVERIFY(QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner));
    {
        RawDatabase raw(path);
        QVERIFY(raw.exec(u"INSERT INTO runs(id, status, target) VALUES ('old', 'succeeded', 'local')"_s));
        QVERIFY(raw.exec(u"BEGIN"_s));
        QSqlQuery insert(raw.db());
        QVERIFY(insert.prepare(u"INSERT INTO metrics(run, name, step, wall_ms, value) VALUES ('old', ?, ?, ?, ?)"_s));
        for (int i = 0; i < 150'000; ++i) {
            insert.addBindValue(i % 3 == 0 ? u"acc"_s : u"loss"_s);
            insert.addBindValue(i);
            insert.addBindValue(qint64(1'764'000'000'000) + i);
            insert.addBindValue(1.0 / (i + 1));
            QVERIFY(insert.exec());
        }
        QVERIFY(raw.exec(u"COMMIT"_s));
    }
    const Result list = runFerry(ws.path(), {u"runs"_s, u"list"_s});
    QVERIFY2(list.exitCode == 0, qPrintable(list.err));
    QVERIFY2(list.out.contains(u"old "_s), qPrintable(list.out));
    const QStringList lines = list.err.split(u'\n', Qt::SkipEmptyParts);
    QVERIFY2(lines.size() >= 3, qPrintable(list.err));
    const QRegularExpression progress(
        u"^ferry: converting the run store to the block format: \\d+% \\([0-9,]+ of 150,000 points\\)$"_s);
    for (const QString &line : lines.first(lines.size() - 1))
        QVERIFY2(progress.match(line).hasMatch(), qPrintable(line));
    QCOMPARE(lines.at(lines.size() - 2),
             u"ferry: converting the run store to the block format: 100% (150,000 of 150,000 points)"_s);
    QCOMPARE(lines.last(), u"ferry: compacting the run store"_s);

    // Converted once: nothing to say the next time.
    const Result again = runFerry(ws.path(), {u"runs"_s, u"list"_s});
    QCOMPARE(again.exitCode, 0);
    QCOMPARE(again.err, QString());
    const Result metrics = runFerry(ws.path(), {u"runs"_s, u"metrics"_s, u"old"_s, u"--csv"_s});
    QCOMPARE(metrics.out.count(u'\n'), 150'001);
}

// At most one line every interval, but always the first, the last and the compaction's.
void TestStoreCli::progressLinesAreThrottled()
{
    QStringList lines;
    const RunStore::Progress progress = conversionProgressPrinter([&](const QString &line) { lines << line; }, 60000);
    for (qint64 done = 0; done <= 1'800'000; done += 1000)
        progress(done, 1'800'000);
    progress(1'800'000, 1'800'000); // said once
    progress(-1, -1);
    QCOMPARE(lines,
             (QStringList{u"converting the run store to the block format: 0% (0 of 1,800,000 points)"_s,
                          u"converting the run store to the block format: 100% (1,800,000 of 1,800,000 points)"_s,
                          u"compacting the run store"_s}));
    QCOMPARE(conversionProgressText(810'000, 1'800'000),
             u"converting the run store to the block format: 45% (810,000 of 1,800,000 points)"_s);
    QCOMPARE(compactionText({116'200'000, 3'100'000}), u"run store: 116.2 MB \u2192 3.1 MB (113.1 MB given back)"_s);
}

FERRY_TEST_GUILESS_MAIN(TestStoreCli)
#include "tst_storecli.moc"
