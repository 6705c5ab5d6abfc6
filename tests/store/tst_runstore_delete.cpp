// RunStore::deleteRun: the run leaves every table (runs, params, metrics, artifacts), other runs
// stay untouched, and the database stays sound.
#include "store/runstore.h"
#include "support/testmain.h"

#include <QSignalSpy>
#include <QSqlDatabase>
#include <QSqlQuery>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

RunRecord recordAt(const QString &id, qint64 createdMs)
{
    RunRecord r;
    r.id = id;
    r.experiment = u"baseline"_s;
    r.name = u"train"_s;
    r.target = u"local"_s;
    r.createdMs = createdMs;
    return r;
}

void fill(RunStore &store, const QString &id, qint64 createdMs)
{
    store.createRun(recordAt(id, createdMs));
    store.setStatus(id, RunStatus::Running);
    store.setParams(id, {{u"epochs"_s, u"10"_s}, {u"lr"_s, u"0.01"_s}});
    store.appendMetrics(id, {{u"loss"_s, 0, 0.9, 1000}, {u"loss"_s, 1, 0.4, 2000}, {u"acc"_s, 1, 0.8, 2000}}, 42);
    store.addArtifact(id, Artifact{u"model.tar.gz"_s, u"model"_s, 1234});
    store.setStatus(id, RunStatus::Succeeded, 0);
}

} // namespace

class TestRunStoreDelete : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void deletesEverythingOfOneRun();
    void deleteOfUnknownRunIsHarmless();
    void deleteAfterClosingFails();
    void deleteGivesTheSpaceBack();
};

void TestRunStoreDelete::deletesEverythingOfOneRun()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    auto opened = RunStore::open(dir.filePath(u"runs.sqlite"_s));
    QVERIFY2(opened.hasValue(), opened.hasValue() ? "" : qPrintable(opened.error().toString()));
    std::unique_ptr<RunStore> store = std::move(*opened);
    QSignalSpy failed(store.get(), &RunStore::writeFailed);
    fill(*store, u"keep"_s, 1000);
    fill(*store, u"gone"_s, 2000);
    store->flush();
    const QList<MetricPoint> keptMetrics = store->metrics(u"keep"_s);
    QCOMPARE(keptMetrics.size(), 3);
    QCOMPARE(store->runs().size(), 2);

    store->deleteRun(u"gone"_s);
    store->flush();
    QCOMPARE(failed.size(), 0);
    QVERIFY(!store->run(u"gone"_s));
    QCOMPARE(store->runs().size(), 1);
    QCOMPARE(store->runs().at(0).id, u"keep"_s);
    QVERIFY(store->metrics(u"gone"_s).isEmpty());
    QVERIFY(store->metricNames(u"gone"_s).isEmpty());
    QCOMPARE(store->metricCount(u"gone"_s, u"loss"_s), 0);
    QVERIFY(store->params(u"gone"_s).isEmpty());
    QVERIFY(store->artifacts(u"gone"_s).isEmpty());

    // The other run is as it was.
    const auto kept = store->run(u"keep"_s);
    QVERIFY(kept);
    QCOMPARE(kept->status, RunStatus::Succeeded);
    QCOMPARE(kept->logOffset, 42);
    QCOMPARE(store->metrics(u"keep"_s).size(), keptMetrics.size());
    QCOMPARE(store->params(u"keep"_s).size(), 2);
    QCOMPARE(store->artifacts(u"keep"_s), (QList<Artifact>{{u"model.tar.gz"_s, u"model"_s, 1234}}));
    QVERIFY(store->integrityCheck());

    // The id can be used again, and writes queued right after the delete land on the new run.
    store->createRun(recordAt(u"gone"_s, 3000));
    store->appendMetrics(u"gone"_s, {{u"loss"_s, 0, 0.1, 3000}}, 7);
    store->flush();
    QCOMPARE(failed.size(), 0);
    QCOMPARE(store->metrics(u"gone"_s).size(), 1);
    QVERIFY(store->params(u"gone"_s).isEmpty());

    // Deleted data stays deleted after reopening.
    store->deleteRun(u"gone"_s);
    store.reset();
    auto reopened = RunStore::open(dir.filePath(u"runs.sqlite"_s));
    QVERIFY(reopened.hasValue());
    QCOMPARE((*reopened)->runs().size(), 1);
    QVERIFY((*reopened)->metrics(u"gone"_s).isEmpty());
    QVERIFY((*reopened)->integrityCheck());
}

void TestRunStoreDelete::deleteOfUnknownRunIsHarmless()
{
    QTemporaryDir dir;
    auto opened = RunStore::open(dir.filePath(u"runs.sqlite"_s));
    QVERIFY(opened.hasValue());
    std::unique_ptr<RunStore> store = std::move(*opened);
    QSignalSpy failed(store.get(), &RunStore::writeFailed);
    fill(*store, u"a"_s, 1000);
    store->deleteRun(u"no-such-run"_s);
    store->flush();
    QCOMPARE(failed.size(), 0);
    QCOMPARE(store->runs().size(), 1);
    QCOMPARE(store->metrics(u"a"_s).size(), 3);
    QVERIFY(store->integrityCheck());
}

void TestRunStoreDelete::deleteAfterClosingFails()
{
    QTemporaryDir dir;
    auto opened = RunStore::open(dir.filePath(u"runs.sqlite"_s));
    QVERIFY(opened.hasValue());
    std::unique_ptr<RunStore> store = std::move(*opened);
    QSignalSpy failed(store.get(), &RunStore::writeFailed);
    store->close();
    store->deleteRun(u"a"_s);
    QCOMPARE(failed.size(), 1);
    QVERIFY(failed.at(0).at(0).value<ferry::Error>().message.contains(u"closed"_s));
}

FERRY_TEST_APPLESS_MAIN(TestRunStoreDelete)
// A deleted run's blocks go back to the file system at once (auto_vacuum incremental), not only
// at the next `ferry runs gc`.
void TestRunStoreDelete::deleteGivesTheSpaceBack()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(u"runs.sqlite"_s);
    auto opened = RunStore::open(path);
    QVERIFY(opened.hasValue());
    std::unique_ptr<RunStore> store = std::move(*opened);
    fill(*store, u"keep"_s, 1000);
    store->createRun(recordAt(u"big"_s, 2000));
    QList<MetricPoint> points;
    for (int i = 0; i < 300000; ++i)
        points.append(
            MetricPoint{i % 2 ? u"loss"_s : u"acc"_s, double(i), std::sin(i * 0.001) + i * 1e-7, 1000 + i * 37});
    store->appendMetrics(u"big"_s, points, 1);
    store->flush();
    const auto pages = [&](const QString &pragma) {
        QSqlDatabase db = QSqlDatabase::addDatabase(u"QSQLITE"_s, u"raw"_s);
        db.setDatabaseName(path);
        db.open();
        QSqlQuery q(db);
        q.exec(u"PRAGMA "_s + pragma);
        const qint64 n = q.next() ? q.value(0).toLongLong() : -1;
        q.finish();
        db.close();
        db = QSqlDatabase();
        QSqlDatabase::removeDatabase(u"raw"_s);
        return n;
    };
    const qint64 before = pages(u"page_count"_s);
    QVERIFY(before > 200);
    store->deleteRun(u"big"_s);
    store->flush();
    QCOMPARE(pages(u"freelist_count"_s), 0);
    QVERIFY2(pages(u"page_count"_s) < before / 10, qPrintable(QString::number(pages(u"page_count"_s))));
    QCOMPARE(store->metrics(u"keep"_s).size(), 3);
    QVERIFY(store->check().problems.isEmpty());
}

#include "tst_runstore_delete.moc"
