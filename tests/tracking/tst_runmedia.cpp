// A run's images, histograms and texts followed into the store (tracking/metricsources.h) and read
// back through RunMedia (tracking/runmedia.h), in a real run folder with a real store: an event
// file, histograms.jsonl and output/images/<tag>/<step>.png as tests/metrics/media_writer.py writes
// them, arriving in pieces; indexed once however often the follower starts again; hparams becoming
// the parameters of a run that has none; the media of a file an older Ferry read indexed from its
// start; an image still being written waiting until it is whole;
// the attacks (a decompression bomb, a 60,000 x 60,000 header, 10^9 buckets, NaN edges) refused with
// their files named and nothing of them indexed.
#include "support/process.h"
#include "support/rawdatabase.h"
#include "support/storefolders.h"
#include "support/testmain.h"

#include "metrics/media.h"
#include "store/runstore.h"
#include "tracking/metricsources.h"
#include "tracking/runmedia.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;
using ferry::test::RawDatabase;

namespace {

const QString kRunMediaProto = QStringLiteral(FERRY_SOURCE_DIR "/core/metrics/tensorboard_event.proto");
const QString kRunMediaWriter = QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/media_writer.py");
const QString kRunMediaEvents = u"code/runs/exp/events.out.tfevents.1700000000.host.7.0"_s;

QByteArray bytesOfFile(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

bool appendToFile(const QString &path, QByteArrayView bytes, bool truncate = false)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | (truncate ? QIODevice::Truncate : QIODevice::Append)) &&
           f.write(bytes.data(), bytes.size()) == bytes.size();
}

// Copies a folder tree, `skip` (a top folder's name) left out.
bool copyTree(const QString &from, const QString &to, const QString &skip = {})
{
    QDirIterator it(from, QDir::Files, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString relative = QDir(from).relativeFilePath(file);
        if (!skip.isEmpty() && relative.startsWith(skip + u'/'))
            continue;
        if (!appendToFile(to + u'/' + relative, bytesOfFile(file), true))
            return false;
    }
    return true;
}

double orNaN(const QJsonValue &v)
{
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

bool sameOrBothNaN(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

// What the writer wrote of a histogram, against what was read.
bool histogramIs(const Histogram &h, const QJsonObject &w)
{
    std::vector<double> limits, buckets;
    for (const QJsonValue v : w[u"bucket_limit"_s].toArray())
        limits.push_back(v.toDouble());
    for (const QJsonValue v : w[u"bucket"_s].toArray())
        buckets.push_back(v.toDouble());
    return sameOrBothNaN(h.min, orNaN(w[u"min"_s])) && sameOrBothNaN(h.max, orNaN(w[u"max"_s])) &&
           sameOrBothNaN(h.sum, orNaN(w[u"sum"_s])) && sameOrBothNaN(h.sumSquares, orNaN(w[u"sum_squares"_s])) &&
           (!w[u"num"_s].isDouble() || h.num == w[u"num"_s].toDouble()) && h.bucketLimit == limits &&
           h.bucket == buckets;
}

} // namespace

class TestRunMedia : public QObject {
    Q_OBJECT

    ferry::test::StoreFolders m_stores;
    QString m_written; // what media_writer.py wrote
    QJsonObject m_expected;

    using Run = ferry::test::StoreFolders::StoredRun;
    Run newRun() { return m_stores.newRun(); }

    static Expected<MetricSources::Read> poll(MetricSources &sources, bool scan = true, bool last = false)
    {
        return sources.poll(scan, last);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_stores.isValid());
        m_written = m_stores.filePath(u"written"_s);
        const auto r =
            ferry::test::runCommand(u"/usr/bin/python3"_s, {kRunMediaWriter, u"write"_s, kRunMediaProto, m_written});
        QVERIFY2(r.code == 0, r.err.constData());
        m_expected = QJsonDocument::fromJson(bytesOfFile(m_written + u"/expected.json"_s)).object();
        QVERIFY(!m_expected.isEmpty());
    }

    void mediaAreFollowedLiveAndIndexedOnce()
    {
        Run run = newRun();
        MetricSources sources(*run.store, run.dir, run.id);
        const QByteArray events = bytesOfFile(m_written + u"/media.tfevents"_s);
        const QByteArray lines = bytesOfFile(m_written + u"/histograms.jsonl"_s);
        qsizetype indexed = 0;
        // The event file and histograms.jsonl arrive in uneven pieces, records and lines cut anywhere.
        for (qsizetype at = 0; at < events.size();) {
            const qsizetype piece = std::min<qsizetype>(events.size() - at, 3000 + (at % 300007));
            QVERIFY(appendToFile(run.dir + u'/' + kRunMediaEvents, QByteArrayView(events).sliced(at, piece)));
            at += piece;
            const qsizetype linesAt = lines.size() * (at - piece) / events.size();
            const qsizetype linesTo = lines.size() * at / events.size();
            QVERIFY(appendToFile(run.dir + u"/output/histograms.jsonl"_s,
                                 QByteArrayView(lines).sliced(linesAt, linesTo - linesAt)));
            auto read = poll(sources);
            QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
            QVERIFY(read->problems.isEmpty());
            QVERIFY(read->refused.isEmpty());
            indexed += read->media;
        }
        // The folder layout, with a file whose name is no step.
        QVERIFY(copyTree(m_written + u"/run/output/images"_s, run.dir + u"/output/images"_s, u"attacks"_s));
        auto read = poll(sources);
        QVERIFY(read);
        indexed += read->media;
        QVERIFY(read->refused.isEmpty());
        QCOMPARE(read->notes.size(), 1);
        QVERIFY2(read->notes.first().contains(m_expected[u"folderBadName"_s].toString()),
                 qPrintable(read->notes.first()));

        const QJsonArray items = m_expected[u"items"_s].toArray(), folder = m_expected[u"folder"_s].toArray(),
                         jsonl = m_expected[u"jsonl"_s].toArray();
        QCOMPARE(indexed, items.size() + folder.size() + jsonl.size());
        run.store->flush();
        const RunMedia media(*run.store, run.dir, run.id);
        QCOMPARE(media.tags(MediaKind::Image), (QStringList{u"anim"_s, u"big"_s, u"gen"_s, u"samples"_s,
                                                            u"tf2/images"_s, u"train/grid"_s, u"val/grid"_s}));
        QCOMPARE(media.tags(MediaKind::Histogram), (QStringList{u"jsonl/w"_s, u"tf2/hist"_s, u"weights/fc1"_s}));
        QCOMPARE(media.tags(MediaKind::Text), (QStringList{u"notes"_s, u"table"_s}));
        // Every item read back from where the run wrote it: the images byte for byte.
        for (const QJsonArray &list : {items, folder}) {
            for (const QJsonValue v : list) {
                const QJsonObject w = v.toObject();
                const auto kind = mediaKindFromText(w[u"kind"_s].toString());
                QVERIFY(kind);
                const auto item =
                    media.item(*kind, w[u"tag"_s].toString(), w[u"step"_s].toInteger(), w[u"sample"_s].toInt());
                QVERIFY2(item, qPrintable(w[u"tag"_s].toString()));
                QCOMPARE(item->file, w.contains(u"file"_s) ? w[u"file"_s].toString() : kRunMediaEvents);
                if (*kind == MediaKind::Image) {
                    const auto bytes = media.imageBytes(*item);
                    QVERIFY2(bytes, qPrintable(bytes ? QString() : bytes.error().toString()));
                    QCOMPARE(bytes->toHex(), w[u"bytes"_s].toString().toLatin1());
                    QCOMPARE(item->width, w[u"width"_s].toInt());
                } else if (*kind == MediaKind::Histogram) {
                    const auto h = media.histogram(*item);
                    QVERIFY2(h && histogramIs(*h, w), qPrintable(w[u"tag"_s].toString()));
                } else {
                    const auto text = media.text(*item);
                    QVERIFY(text);
                    QCOMPARE(*text, w[u"text"_s].toString());
                }
            }
        }
        const QList<RunMedia::StepHistogram> fromLines = media.histograms(u"jsonl/w"_s);
        QCOMPARE(fromLines.size(), jsonl.size());
        for (qsizetype i = 0; i < fromLines.size(); ++i)
            QVERIFY(histogramIs(fromLines.at(i).histogram, jsonl.at(i).toObject()));
        QCOMPARE(media.steps(MediaKind::Histogram, u"weights/fc1"_s), (QList<qint64>{0, 100, 200}));
        QCOMPARE(media.atOrBefore(MediaKind::Image, u"samples"_s, 15)->step, 10);
        QVERIFY(!media.atOrBefore(MediaKind::Image, u"samples"_s, -1));
        // At most two of three steps: the first and the last.
        QList<qint64> spread;
        for (const auto &h : media.histograms(u"weights/fc1"_s, 2))
            spread << h.step;
        QCOMPARE(spread, (QList<qint64>{0, 200}));

        // A follower that starts again (Ferry restarted) indexes nothing twice, nor anew.
        const QMap<MediaKind, qint64> counts = run.store->mediaCounts(run.id);
        MetricSources again(*run.store, run.dir, run.id);
        auto second = poll(again);
        QVERIFY(second);
        QCOMPARE(second->media, 0);
        run.store->flush();
        QCOMPARE(run.store->mediaCounts(run.id), counts);
        // The run deleted, its index goes with it.
        run.store->deleteRun(run.id);
        run.store->flush();
        QVERIFY(run.store->mediaCounts(run.id).isEmpty());
    }

    // torch's add_hparams: the run has no parameters, so they become its parameters; a run with
    // its own keeps them.
    void hparamsBecomeTheParametersOfARunWithNone()
    {
        Run bare = newRun();
        QVERIFY(appendToFile(bare.dir + u'/' + kRunMediaEvents, bytesOfFile(m_written + u"/media.tfevents"_s)));
        MetricSources sources(*bare.store, bare.dir, bare.id);
        QVERIFY(poll(sources));
        bare.store->flush();
        QMap<QString, QString> params;
        for (const Hyperparameter &p : bare.store->params(bare.id))
            params.insert(p.name, p.value);
        QMap<QString, QString> want;
        const QJsonObject hp = m_expected[u"hparams"_s].toObject();
        for (auto it = hp.begin(); it != hp.end(); ++it)
            want.insert(it.key(), it.value().toString());
        QCOMPARE(params, want);

        Run own = newRun();
        own.store->setParams(own.id, {{u"epochs"_s, u"3"_s}});
        QVERIFY(appendToFile(own.dir + u'/' + kRunMediaEvents, bytesOfFile(m_written + u"/media.tfevents"_s)));
        MetricSources theirs(*own.store, own.dir, own.id);
        QVERIFY(poll(theirs));
        own.store->flush();
        QCOMPARE(own.store->params(own.id), (QList<Hyperparameter>{{u"epochs"_s, u"3"_s}}));
    }

    // The attacks in each place a run writes them: refused with their files named, nothing of them
    // indexed, the scalars and the good lines around them kept.
    void attacksAreRefusedAndChangeNothing()
    {
        Run run = newRun();
        QVERIFY(appendToFile(run.dir + u'/' + kRunMediaEvents, bytesOfFile(m_written + u"/hostile.tfevents"_s)));
        QVERIFY(appendToFile(run.dir + u"/output/histograms.jsonl"_s, bytesOfFile(m_written + u"/hostile.jsonl"_s)));
        QVERIFY(copyTree(m_written + u"/run/output/images/attacks"_s, run.dir + u"/output/images/attacks"_s));
        MetricSources sources(*run.store, run.dir, run.id);
        auto read = poll(sources);
        QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
        QVERIFY(read->problems.isEmpty()); // no file given up: each item refused alone
        run.store->flush();
        QCOMPARE(run.store->metricCount(run.id, u"kept"_s), 2);
        QCOMPARE(run.store->mediaTags(run.id, MediaKind::Image), QStringList());
        QCOMPARE(run.store->mediaTags(run.id, MediaKind::Text), QStringList());
        QCOMPARE(run.store->mediaTags(run.id, MediaKind::Histogram), QStringList{u"ok"_s});
        QList<qint64> steps;
        for (const MediaItem &item : run.store->media(run.id, MediaKind::Histogram))
            steps << item.step;
        QCOMPARE(steps, (QList<qint64>{1, 8}));
        const qsizetype attacks = m_expected[u"attacks"_s].toArray().size() +
                                  m_expected[u"hostileJsonl"_s][u"refusals"_s].toArray().size() +
                                  m_expected[u"folderAttacks"_s].toArray().size();
        QCOMPARE(read->refused.size(), attacks);
        QStringList files;
        for (const Error &e : std::as_const(read->refused))
            files << e.path;
        QCOMPARE(files.count(run.dir + u'/' + kRunMediaEvents), m_expected[u"attacks"_s].toArray().size());
        QCOMPARE(files.count(run.dir + u"/output/histograms.jsonl"_s),
                 m_expected[u"hostileJsonl"_s][u"refusals"_s].toArray().size());
        for (const QJsonValue v : m_expected[u"folderAttacks"_s].toArray()) {
            const auto e = std::find_if(read->refused.begin(), read->refused.end(), [&](const Error &r) {
                return r.path == run.dir + u'/' + v[u"file"_s].toString();
            });
            QVERIFY(e != read->refused.end());
            for (const QJsonValue word : v[u"words"_s].toArray())
                QVERIFY2(e->message.contains(word.toString()), qPrintable(e->message));
        }
        // Said once: the next looks find nothing new to refuse, and change nothing.
        auto again = poll(sources);
        QVERIFY(again);
        QVERIFY(again->refused.isEmpty());
        QCOMPARE(again->media, 0);
    }

    // A store of an older Ferry (schema 4, tests/data/stores/runs-v4.sqlite) whose follower read
    // the event file to its end: the media are indexed at the next poll, the points not read again.
    void mediaOfAFileAnOlderFerryReadAreIndexed()
    {
        const QString ws = m_stores.filePath(u"old-ferry"_s);
        const QString path = RunStore::pathInWorkspace(ws);
        QVERIFY(QDir().mkpath(QFileInfo(path).absolutePath()));
        QVERIFY(QFile::copy(QStringLiteral(FERRY_TEST_DATA "/stores/runs-v4.sqlite"), path));
        QFile::setPermissions(path, QFile::ReadOwner | QFile::WriteOwner);
        const QByteArray events = bytesOfFile(m_written + u"/media.tfevents"_s);
        {
            RawDatabase raw(path);
            QVERIFY(raw.exec(
                u"INSERT INTO runs(id, status, target, created_ms) VALUES ('old', 'succeeded', 'local', 5)"_s));
            QVERIFY(raw.exec(
                u"INSERT INTO metric_sources(run, source, position) VALUES ('old', '%1', %2)"_s.arg(kRunMediaEvents)
                    .arg(events.size())));
            QVERIFY(raw.exec(
                u"INSERT INTO metric_sources(run, source, position) VALUES ('old', 'trainer_state.json', 7)"_s));
        }
        const QString dir = ws + u"/.ferry/runs/old"_s;
        QVERIFY(appendToFile(dir + u'/' + kRunMediaEvents, events));
        auto store = RunStore::open(path);
        QVERIFY(store);
        QCOMPARE((*store)->mediaBehind(u"old"_s), (QHash<QString, qint64>{{kRunMediaEvents, events.size()}}));
        MetricSources sources(**store, dir, u"old"_s);
        auto read = sources.poll(true);
        QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
        QVERIFY(read->points.isEmpty()); // stored by the older Ferry
        QCOMPARE(read->media, m_expected[u"items"_s].toArray().size());
        (*store)->flush();
        QVERIFY((*store)->mediaBehind(u"old"_s).isEmpty());
        QCOMPARE((*store)->mediaTags(u"old"_s, MediaKind::Text), (QStringList{u"notes"_s, u"table"_s}));
        QCOMPARE((*store)->params(u"old"_s).size(), m_expected[u"hparams"_s].toObject().size());
        MetricSources again(**store, dir, u"old"_s);
        auto second = again.poll(true);
        QVERIFY(second);
        QCOMPARE(second->media, 0);
    }

    // A tag's items a page at a time: every one once, in order, a step never cut between pages;
    // and the visit stops when asked.
    void itemsComeAPageAtATime()
    {
        Run run = newRun();
        QList<MediaItem> items;
        for (qint64 step = 0; step < 2000; ++step) {
            for (int sample = 0; sample < 3; ++sample)
                items.append(MediaItem{MediaKind::Image, u"many"_s, step, sample, 0, u"f"_s, 0, 1,
                                       QString(mediaformat::kPng), 1, 1, 0});
        }
        run.store->addMedia(run.id, items);
        run.store->flush();
        const RunMedia media(*run.store, run.dir, run.id);
        QList<MediaItem> visited;
        media.forEachItem(MediaKind::Image, u"many"_s, [&](const MediaItem &item) {
            visited.append(item);
            return true;
        });
        QCOMPARE(visited.size(), items.size());
        QVERIFY(visited == items);
        QCOMPARE(media.steps(MediaKind::Image, u"many"_s).size(), 2000);
        qsizetype seen = 0;
        media.forEachItem(MediaKind::Image, u"many"_s, [&](const MediaItem &) { return ++seen < 5; });
        QCOMPARE(seen, 5);
        QCOMPARE(media.atOrBefore(MediaKind::Image, u"many"_s, 5000, 2)->step, 1999);
    }

    // An image file still being written is indexed once whole; rewritten, it is indexed again.
    void imageBeingWrittenWaitsUntilWhole()
    {
        Run run = newRun();
        MetricSources sources(*run.store, run.dir, run.id);
        const QJsonArray folder = m_expected[u"folder"_s].toArray();
        const QByteArray first = QByteArray::fromHex(folder.at(0)[u"bytes"_s].toString().toLatin1());
        const QByteArray second = QByteArray::fromHex(folder.at(1)[u"bytes"_s].toString().toLatin1());
        const QString path = run.dir + u"/output/images/live/1.png"_s;
        QVERIFY(appendToFile(path, QByteArrayView(first).first(first.size() - 5)));
        auto read = poll(sources);
        QVERIFY(read);
        QCOMPARE(read->media, 0);
        QVERIFY(read->refused.isEmpty());
        QVERIFY(appendToFile(path, QByteArrayView(first).last(5)));
        read = poll(sources);
        QVERIFY(read);
        QCOMPARE(read->media, 1);
        run.store->flush();
        const RunMedia media(*run.store, run.dir, run.id);
        QCOMPARE(*media.imageBytes(*media.item(MediaKind::Image, u"live"_s, 1)), first);
        QTest::qWait(20); // another modification time
        QVERIFY(appendToFile(path, second, true));
        read = poll(sources);
        QVERIFY(read);
        QCOMPARE(read->media, 1);
        run.store->flush();
        QCOMPARE(*media.imageBytes(*media.item(MediaKind::Image, u"live"_s, 1)), second);
        // One cut short for good is taken at the run's end for what its header says.
        QVERIFY(appendToFile(run.dir + u"/output/images/live/2.png"_s, QByteArrayView(first).first(40)));
        read = poll(sources, false);
        QVERIFY(read);
        QCOMPARE(read->media, 0);
        read = poll(sources, true, true); // the run is over: one last look
        QVERIFY(read);
        QCOMPARE(read->media, 1);
    }
};

FERRY_TEST_GUILESS_MAIN(TestRunMedia)
#include "tst_runmedia.moc"
