// The files a run writes beside its log (tracking/metricsources.h), in a real run folder with a
// real store: the corpus' event file, metrics.csv and trainer_state.json followed as they grow,
// read once however often the follower starts again, a metric a file gives taken from the file
// only, links planted in the run folder never followed; and the script's working folder
// (run/workfolder.h) that keeps what a run writes in its own folder.
#include "support/corpus.h"
#include "support/storefolders.h"
#include "support/testmain.h"

#include "common/untrustedtree.h"
#include "metrics/eventfile.h"
#include "metrics/metricfiles.h"
#include "run/workfolder.h"
#include "store/runstore.h"
#include "tracking/metricsources.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry;
using namespace ferry::run;

namespace {

const QString kEvents = u"logs/tfevents/Abdul-AA__Text-Generation-With-LSTM/lightning_logs/version_0/"
                        "events.out.tfevents.1716735746.99c8c45923de.3769.0"_s;
const QString kTrainerState = u"logs/hf/trainer_state/Tashu014__lora-imdb-distilbert/trainer_state.json"_s;
const QString kMetricsCsv = u"logs/lightning_csv/DanyaSH759__MLOps_homework/lightning_logs/version_0/metrics.csv"_s;

QByteArray readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return f.readAll();
}

bool append(const QString &path, QByteArrayView bytes)
{
    QDir().mkpath(QFileInfo(path).absolutePath());
    QFile f(path);
    return f.open(QIODevice::WriteOnly | QIODevice::Append) && f.write(bytes.data(), bytes.size()) == bytes.size();
}

QMap<QString, qsizetype> countByName(const QList<MetricPoint> &points)
{
    QMap<QString, qsizetype> counts;
    for (const MetricPoint &p : points)
        ++counts[p.name];
    return counts;
}

QMap<QString, qsizetype> storedCounts(RunStore &store, const QString &run)
{
    store.flush();
    QMap<QString, qsizetype> counts;
    for (const QString &name : store.metricNames(run))
        counts[name] = store.metricCount(run, name);
    return counts;
}

} // namespace

class TestMetricSources : public QObject {
    Q_OBJECT

    ferry::test::StoreFolders m_stores;

    using Run = ferry::test::StoreFolders::StoredRun;
    Run newRun() { return m_stores.newRun(); }

private Q_SLOTS:
    void filesAreFollowedAsTheyGrowAndReadOnce()
    {
        Run run = newRun();
        const QByteArray events = readAll(corpusPath(kEvents));
        auto whole = EventFileReader().read(events);
        QVERIFY(whole);
        QVERIFY(whole->size() > 100);
        QMap<QString, qsizetype> expected = countByName(*whole);
        auto csv = LightningCsvReader().read(readAll(corpusPath(kMetricsCsv)), {}, 0);
        QVERIFY(csv);
        const QMap<QString, qsizetype> csvCounts = countByName(*csv);
        for (auto it = csvCounts.begin(); it != csvCounts.end(); ++it)
            expected[it.key()] += it.value();
        auto state = TrainerStateReader().read(readAll(corpusPath(kTrainerState)), {}, 0);
        QVERIFY(state);
        const QMap<QString, qsizetype> stateCounts = countByName(*state);
        for (auto it = stateCounts.begin(); it != stateCounts.end(); ++it)
            expected[it.key()] += it.value();

        // The event file arrives in uneven pieces, records cut anywhere; the follower polls between.
        const QString eventPath = run.dir + u"/code/lightning_logs/version_0/events.out.tfevents.1.host.7.0"_s;
        MetricSources sources(*run.store, run.dir, run.id);
        qsizetype given = 0;
        for (qsizetype at = 0; at < events.size();) {
            const qsizetype piece = std::min<qsizetype>(events.size() - at, 1000 + (at % 77777));
            QVERIFY(append(eventPath, QByteArrayView(events).sliced(at, piece)));
            at += piece;
            auto read = sources.poll(true);
            QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
            QVERIFY(read->problems.isEmpty());
            given += read->points.size();
        }
        QCOMPARE(given, whole->size());
        QVERIFY(append(run.dir + u"/code/lightning_logs/version_1/metrics.csv"_s, readAll(corpusPath(kMetricsCsv))));
        QVERIFY(append(run.dir + u"/output/checkpoint-10/trainer_state.json"_s, readAll(corpusPath(kTrainerState))));
        QVERIFY(sources.poll(true));
        QCOMPARE(storedCounts(*run.store, run.id), expected);

        // A follower that starts again (Ferry restarted) reads nothing twice.
        MetricSources again(*run.store, run.dir, run.id);
        auto read = again.poll(true);
        QVERIFY(read);
        QCOMPARE(read->points.size(), 0);
        QCOMPARE(storedCounts(*run.store, run.id), expected);
        // Event points keep the file's own steps and wall times.
        const QList<MetricPoint> stored = run.store->metrics(run.id, whole->first().name);
        QCOMPARE(stored.first().wallMs, whole->first().wallMs);
        QVERIFY(stored.first().wallMs > 1716735746000);
    }

    void aMetricAFileGivesIsTakenFromTheFileOnly()
    {
        Run run = newRun();
        // The log gave loss (without steps) and a metric of its own before the checkpoint came.
        QList<MetricPoint> logged;
        for (int i = 0; i < 5; ++i)
            logged << MetricPoint{u"loss"_s, double(i), 1.0 - i * 0.1, 1000 + i}
                   << MetricPoint{u"tokens_per_s"_s, double(i), 900, 1000 + i};
        QVERIFY(run.store->appendMetricsAt(run.id, logged, 0, 100));
        MetricSources sources(*run.store, run.dir, run.id);
        QVERIFY(sources.claimed().isEmpty());
        QVERIFY(append(run.dir + u"/model/trainer_state.json"_s, readAll(corpusPath(kTrainerState))));
        auto read = sources.poll(true);
        QVERIFY(read);
        QVERIFY(read->newClaims.contains(u"loss"_s));
        QVERIFY(sources.claimed().contains(u"loss"_s));
        auto state = TrainerStateReader().read(readAll(corpusPath(kTrainerState)), {}, 0);
        QVERIFY(state);
        const QMap<QString, qsizetype> counts = storedCounts(*run.store, run.id);
        QCOMPARE(counts.value(u"loss"_s), countByName(*state).value(u"loss"_s)); // the file's, not the log's
        QCOMPARE(counts.value(u"tokens_per_s"_s), 5);                            // no file gives it
        QVERIFY(run.store->claimedMetrics(run.id).contains(u"loss"_s));
        // A later follower knows the claim from the store.
        MetricSources later(*run.store, run.dir, run.id);
        QVERIFY(later.claimed().contains(u"loss"_s));
    }

    // Attack: the script (a container's runs as root) plants links in the folders Ferry reads,
    // pointing at files outside the run folder. None is read, and nothing of them is stored.
    void linksPlantedInTheRunFolderAreNotFollowed()
    {
        Run run = newRun();
        QTemporaryDir outside;
        const QByteArray events = readAll(corpusPath(kEvents));
        QVERIFY(append(outside.filePath(u"logs/events.out.tfevents.9.host.1.0"_s), events));
        QVERIFY(append(outside.filePath(u"secret.csv"_s), "epoch,step,secret\n0,1,42\n"));
        QVERIFY(QFile::link(outside.filePath(u"logs"_s), run.dir + u"/code/runs"_s));
        QVERIFY(QFile::link(outside.filePath(u"logs/events.out.tfevents.9.host.1.0"_s),
                            run.dir + u"/output/tensorboard/events.out.tfevents.9.host.1.0"_s));
        QVERIFY(QFile::link(outside.filePath(u"secret.csv"_s), run.dir + u"/model/metrics.csv"_s));
        MetricSources sources(*run.store, run.dir, run.id);
        auto read = sources.poll(true);
        QVERIFY(read);
        QCOMPARE(read->points.size(), 0);
        QVERIFY(storedCounts(*run.store, run.id).isEmpty());
        // Read directly, a path through a planted link is refused, not followed.
        const auto through = readTreeFile(run.dir, u"code/runs/events.out.tfevents.9.host.1.0"_s, 0, 100);
        QVERIFY(!through);
        QVERIFY2(through.error().message.contains(u"link"_s), qPrintable(through.error().message));
        const auto link = readTreeFile(run.dir, u"model/metrics.csv"_s, 0, 100);
        QVERIFY(!link);
        QVERIFY(listRegularFiles(run.dir + u"/code"_s, nullptr).isEmpty());
    }

    void workFolderLinksTheSourceAndOwnsItsLogFolders()
    {
        QTemporaryDir dir;
        const QString source = dir.filePath(u"src"_s);
        QVERIFY(append(source + u"/train.py"_s, "print('hi')\n"));
        QVERIFY(append(source + u"/data/train.csv"_s, "x\n1\n"));
        QVERIFY(append(source + u"/runs/old/events.out.tfevents.1.host.1.0"_s, "old"));
        QVERIFY(append(source + u"/.ferry/runs.sqlite"_s, "db"));
        QVERIFY(append(source + u"/.hidden"_s, "h"));
        const QString work = dir.filePath(u"run/code"_s);
        QVERIFY(QDir().mkpath(dir.filePath(u"run"_s)));
        const auto made =
            prepareWorkFolder(work, source, [&source](const QString &name) -> QString { return source + u'/' + name; });
        QVERIFY2(made, qPrintable(made ? QString() : made.error().toString()));
        QCOMPARE(QFileInfo(work + u"/train.py"_s).symLinkTarget(), source + u"/train.py"_s);
        QCOMPARE(readAll(work + u"/data/train.csv"_s), QByteArray("x\n1\n")); // relative reads work
        QVERIFY(QFileInfo(work + u"/.hidden"_s).isSymLink());
        QVERIFY(!QFileInfo::exists(work + u"/.ferry"_s));
        for (const QString &name : kRunLogFolders) {
            const QFileInfo folder(work + u'/' + name);
            QVERIFY2(folder.isDir() && !folder.isSymLink(), qPrintable(name));
        }
        QVERIFY(QDir(work + u"/runs"_s).isEmpty()); // the source's old runs/ is not this run's
        // What the run creates stays in its folder; the source folder is unchanged.
        QVERIFY(append(work + u"/model.pt"_s, "weights"));
        QVERIFY(!QFileInfo::exists(source + u"/model.pt"_s));
        // A second run's working folder is a new one: it is never prepared twice.
        QVERIFY(!prepareWorkFolder(work, source, [](const QString &name) { return name; }));
    }
};

FERRY_TEST_GUILESS_MAIN(TestMetricSources)
#include "tst_metricsources.moc"
