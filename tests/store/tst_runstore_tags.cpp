// A run's tags and note in the run store: schema version 4 and its migration from version 3,
// adding, removing and replacing tags, the note, tags stored with a new run, refused tags, and a
// deleted run's tags going with it.
#include "store/runstore.h"
#include "support/rawdatabase.h"
#include "support/storefolders.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using ferry::test::RawDatabase;

namespace {

RunRecord recordOf(const QString &id)
{
    RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    r.target = u"local"_s;
    r.createdMs = 1000;
    return r;
}

} // namespace

class TestRunStoreTags : public QObject {
    Q_OBJECT
private:
    ferry::test::StoreFolders m_stores;

    QString freshPath() { return m_stores.freshPath(); }
    static std::unique_ptr<RunStore> openStore(const QString &path) { return ferry::test::openStore(path); }

private Q_SLOTS:
    // A store of schema version 3 (tests/data/stores/runs-v3.sqlite: that version's empty schema)
    // gets the tags table and the note column; its runs stay and have no tags and no note.
    void versionThreeStoreGetsTagsAndNotes()
    {
        const QString path = m_stores.oldStore(3);
        QVERIFY(QFileInfo::exists(path));
        {
            RawDatabase raw(path);
            QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), 3);
            QVERIFY(raw.exec(
                u"INSERT INTO runs(id, status, target, created_ms) VALUES ('old', 'succeeded', 'local', 5)"_s));
            QVERIFY(raw.exec(u"INSERT INTO params(run, name, value) VALUES ('old', 'lr', '0.1')"_s));
        }
        auto store = openStore(path);
        QVERIFY(store);
        {
            RawDatabase raw(path);
            QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), RunStore::kSchemaVersion);
            QVERIFY(raw.db().tables().contains(u"tags"_s));
        }
        const auto old = store->run(u"old"_s);
        QVERIFY(old);
        QCOMPARE(old->status, RunStatus::Succeeded);
        QVERIFY(old->tags.isEmpty());
        QCOMPARE(old->note, QString());
        QCOMPARE(store->params(u"old"_s).size(), 1);
        store->addTags(u"old"_s, {u"baseline"_s});
        store->setNote(u"old"_s, u"before the fix"_s);
        store->flush();
        QCOMPARE(store->run(u"old"_s)->tags, QStringList{u"baseline"_s});
        QCOMPARE(store->run(u"old"_s)->note, u"before the fix"_s);
        QVERIFY(store->integrityCheck());
    }

    void tagsAreAddedRemovedAndReplaced()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(recordOf(u"a"_s));
        store->createRun(recordOf(u"b"_s));
        store->addTags(u"a"_s, {u"zeta"_s, u"baseline"_s, u"baseline"_s, u"paper/fig3"_s});
        store->addTags(u"b"_s, {u"other"_s});
        store->flush();
        QCOMPARE(store->run(u"a"_s)->tags, (QStringList{u"baseline"_s, u"paper/fig3"_s, u"zeta"_s}));
        store->removeTags(u"a"_s, {u"zeta"_s, u"never-there"_s});
        store->flush();
        QCOMPARE(store->run(u"a"_s)->tags, (QStringList{u"baseline"_s, u"paper/fig3"_s}));
        store->setTags(u"a"_s, {u"final"_s});
        store->flush();
        QCOMPARE(store->run(u"a"_s)->tags, QStringList{u"final"_s});
        QCOMPARE(store->run(u"b"_s)->tags, QStringList{u"other"_s}); // another run's stay
        const QList<RunRecord> all = store->runs();
        QCOMPARE(all.size(), 2);
        for (const RunRecord &r : all)
            QCOMPARE(r.tags, r.id == "a"_L1 ? QStringList{u"final"_s} : QStringList{u"other"_s});
    }

    void noteIsSetAndCleared()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(recordOf(u"a"_s));
        store->setNote(u"a"_s, u"lr too high?\nsee the spike at step 300"_s);
        store->flush();
        QCOMPARE(store->run(u"a"_s)->note, u"lr too high?\nsee the spike at step 300"_s);
        store->setNote(u"a"_s, QString());
        store->flush();
        QCOMPARE(store->run(u"a"_s)->note, QString());
    }

    void newRunKeepsItsTagsAndNote()
    {
        const QString path = freshPath();
        {
            auto store = openStore(path);
            QVERIFY(store);
            RunRecord r = recordOf(u"a"_s);
            r.tags = {u"imported"_s, u"baseline"_s};
            r.note = u"from the cluster"_s;
            store->createRun(r);
        }
        auto store = openStore(path);
        QCOMPARE(store->run(u"a"_s)->tags, (QStringList{u"baseline"_s, u"imported"_s}));
        QCOMPARE(store->run(u"a"_s)->note, u"from the cluster"_s);
    }

    void badTagsAndMissingRunsAreRefused_data()
    {
        QTest::addColumn<QString>("tag");
        QTest::addColumn<QString>("message");
        QTest::newRow("empty") << QString() << u"cannot be empty"_s;
        QTest::newRow("space") << u"two words"_s << u"has a character"_s;
        QTest::newRow("dash first") << u"-x"_s << u"starts with '-'"_s;
        QTest::newRow("quote") << u"it's"_s << u"has a character"_s;
        QTest::newRow("too long") << QString(101, u'a') << u"longer than 100"_s;
    }

    void badTagsAndMissingRunsAreRefused()
    {
        QFETCH(QString, tag);
        QFETCH(QString, message);
        const auto checked = RunStore::checkTag(tag);
        QVERIFY(!checked);
        QVERIFY2(checked.error().message.contains(message), qPrintable(checked.error().message));
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(recordOf(u"a"_s));
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        store->addTags(u"a"_s, {u"good"_s, tag});
        store->addTags(u"nosuchrun"_s, {u"good"_s});
        store->setNote(u"nosuchrun"_s, u"x"_s);
        store->flush();
        QCOMPARE(failed.size(), 3);
        QVERIFY(store->run(u"a"_s)->tags.isEmpty()); // the whole edit, not a part of it
        QVERIFY(store->run(u"nosuchrun"_s) == std::nullopt);
    }

    void deletedRunTakesItsTags()
    {
        const QString path = freshPath();
        auto store = openStore(path);
        QVERIFY(store);
        store->createRun(recordOf(u"a"_s));
        store->createRun(recordOf(u"b"_s));
        store->addTags(u"a"_s, {u"x"_s, u"y"_s});
        store->addTags(u"b"_s, {u"x"_s});
        store->deleteRun(u"a"_s);
        store->flush();
        RawDatabase raw(path);
        QCOMPARE(raw.value(u"SELECT count(*) FROM tags WHERE run = 'a'"_s).toInt(), 0);
        QCOMPARE(raw.value(u"SELECT count(*) FROM tags"_s).toInt(), 1);
    }

    void bulkReadsGiveEveryRunsValue()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        for (const QString &id : {u"a"_s, u"b"_s, u"c"_s})
            store->createRun(recordOf(id));
        store->setParams(u"a"_s, {{u"lr"_s, u"0.1"_s}});
        store->setParams(u"b"_s, {{u"lr"_s, u"0.01"_s}, {u"opt"_s, u"adam"_s}});
        store->appendMetrics(u"a"_s, {MetricPoint{u"loss"_s, 1, 0.5, 1}, MetricPoint{u"loss"_s, 2, 0.25, 2}}, 10);
        store->appendMetrics(u"c"_s, {MetricPoint{u"loss"_s, 1, 0.75, 1}}, 10);
        store->flush();
        const auto lr = store->paramOfRuns(u"lr"_s);
        QCOMPARE(lr.size(), 2);
        QCOMPARE(lr.value(u"b"_s), u"0.01"_s);
        const auto loss = store->lastValueOfRuns(u"loss"_s);
        QCOMPARE(loss.size(), 2);
        QCOMPARE(loss.value(u"a"_s), 0.25);
        QCOMPARE(loss.value(u"c"_s), 0.75);
        QVERIFY(store->lastValueOfRuns(u"acc"_s).isEmpty());
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunStoreTags)
#include "tst_runstore_tags.moc"
