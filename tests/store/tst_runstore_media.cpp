// The index of a run's images, histograms and texts in the run store (schema version 5): the
// migration from version 4, items added, replaced and read back in order, indexed with a file's
// points by compare-and-swap (a stale follower's are not), refused for a run not in the store, and
// gone with their run.
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

RunRecord mediaRunRecord(const QString &id)
{
    RunRecord r;
    r.id = id;
    r.name = u"train"_s;
    r.target = u"local"_s;
    r.createdMs = 1000;
    return r;
}

MediaItem imageItem(const QString &tag, qint64 step, int sample = 0, qint64 offset = 0)
{
    return MediaItem{MediaKind::Image,
                     tag,
                     step,
                     sample,
                     1700000000000 + step,
                     u"code/runs/events.out.tfevents.1"_s,
                     offset,
                     100 + step,
                     QString(mediaformat::kPng),
                     64,
                     48,
                     0xfedcba98u};
}

} // namespace

class TestRunStoreMedia : public QObject {
    Q_OBJECT
private:
    ferry::test::StoreFolders m_stores;

    QString freshPath() { return m_stores.freshPath(); }
    static std::unique_ptr<RunStore> openStore(const QString &path) { return ferry::test::openStore(path); }

private Q_SLOTS:
    // A store of schema version 4 (tests/data/stores/runs-v4.sqlite: that version's empty schema)
    // gets the media table; its runs stay, with no media, and can have some.
    void versionFourStoreGetsTheMediaIndex()
    {
        const QString path = m_stores.oldStore(4);
        QVERIFY(QFileInfo::exists(path));
        {
            RawDatabase raw(path);
            QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), 4);
            QVERIFY(raw.exec(
                u"INSERT INTO runs(id, status, target, created_ms) VALUES ('old', 'succeeded', 'local', 5)"_s));
        }
        auto store = openStore(path);
        QVERIFY(store);
        {
            RawDatabase raw(path);
            QCOMPARE(raw.value(u"PRAGMA user_version"_s).toInt(), 5);
            QVERIFY(raw.db().tables().contains(u"media"_s));
        }
        QVERIFY(store->mediaCounts(u"old"_s).isEmpty());
        store->addMedia(u"old"_s, {imageItem(u"samples"_s, 3)});
        store->flush();
        QCOMPARE(store->media(u"old"_s, MediaKind::Image), QList<MediaItem>{imageItem(u"samples"_s, 3)});
        QVERIFY(store->integrityCheck());
    }

    void itemsAreAddedReplacedAndReadInOrder()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(mediaRunRecord(u"a"_s));
        store->createRun(mediaRunRecord(u"b"_s));
        MediaItem histogram = imageItem(u"w"_s, 5);
        histogram.kind = MediaKind::Histogram;
        histogram.format = mediaformat::kHistogramProto;
        store->addMedia(u"a"_s, {imageItem(u"z"_s, 10), imageItem(u"samples"_s, 20), imageItem(u"samples"_s, 3, 1),
                                 imageItem(u"samples"_s, 3, 0), histogram});
        store->addMedia(u"b"_s, {imageItem(u"other"_s, 1)});
        store->flush();
        QCOMPARE(store->mediaTags(u"a"_s, MediaKind::Image), (QStringList{u"samples"_s, u"z"_s}));
        QCOMPARE(store->mediaTags(u"a"_s, MediaKind::Histogram), QStringList{u"w"_s});
        QCOMPARE(store->media(u"a"_s, MediaKind::Image, u"samples"_s),
                 (QList<MediaItem>{imageItem(u"samples"_s, 3, 0), imageItem(u"samples"_s, 3, 1),
                                   imageItem(u"samples"_s, 20)}));
        QCOMPARE(store->media(u"a"_s, MediaKind::Image).size(), 4);
        QCOMPARE(store->mediaItem(u"a"_s, MediaKind::Histogram, u"w"_s, 5).value_or(MediaItem{}), histogram);
        QVERIFY(!store->mediaItem(u"a"_s, MediaKind::Histogram, u"w"_s, 6));
        QCOMPARE(store->mediaCounts(u"a"_s),
                 (QMap<MediaKind, qint64>{{MediaKind::Image, 4}, {MediaKind::Histogram, 1}}));
        // The same kind, tag, step and sample again: the later one (a rewritten image) replaces it.
        MediaItem rewritten = imageItem(u"samples"_s, 20, 0, 4096);
        rewritten.format = mediaformat::kJpeg;
        store->addMedia(u"a"_s, {rewritten});
        store->flush();
        QCOMPARE(store->mediaItem(u"a"_s, MediaKind::Image, u"samples"_s, 20).value_or(MediaItem{}), rewritten);
        QCOMPARE(store->mediaCounts(u"a"_s).value(MediaKind::Image), 4);
        // Deleted with its run, the other run's kept.
        store->deleteRun(u"a"_s);
        store->flush();
        QVERIFY(store->mediaCounts(u"a"_s).isEmpty());
        QCOMPARE(store->media(u"b"_s, MediaKind::Image).size(), 1);
    }

    // Indexed with a file's points, by the same compare-and-swap on its position: a follower whose
    // position is stale (another stored the same bytes) stores neither points nor media.
    void mediaGoWithTheirFilesPosition()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        store->createRun(mediaRunRecord(u"a"_s));
        const QList<MetricPoint> points{{u"loss"_s, 1, 0.5, 1000}};
        auto first =
            store->appendSourceMetrics(u"a"_s, u"events"_s, points, 0, 200, {u"loss"_s}, {imageItem(u"samples"_s, 1)});
        QVERIFY(first && first->applied);
        auto stale =
            store->appendSourceMetrics(u"a"_s, u"events"_s, points, 0, 200, {u"loss"_s}, {imageItem(u"samples"_s, 2)});
        QVERIFY(stale && !stale->applied);
        QCOMPARE(stale->storedOffset, 200);
        QCOMPARE(store->mediaCounts(u"a"_s).value(MediaKind::Image), 1);
        QVERIFY(store->mediaItem(u"a"_s, MediaKind::Image, u"samples"_s, 1));
    }

    void itemOfARunNotInTheStoreIsRefused()
    {
        auto store = openStore(freshPath());
        QVERIFY(store);
        QSignalSpy failed(store.get(), &RunStore::writeFailed);
        store->addMedia(u"nobody"_s, {imageItem(u"samples"_s, 1)});
        store->flush();
        QCOMPARE(failed.size(), 1);
        QVERIFY(store->mediaCounts(u"nobody"_s).isEmpty());
    }
};

FERRY_TEST_APPLESS_MAIN(TestRunStoreMedia)
#include "tst_runstore_media.moc"
