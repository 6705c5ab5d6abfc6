// `ferry runs images`, `ferry runs histograms` and the text summaries of `ferry runs show --json`,
// through the built `ferry` on real runs: a script (data/runs/scripts/media_script.py) writes what
// tests/metrics/media_writer.py made, an event file record by record, histograms.jsonl and
// output/images, followed live (`ferry run --follow`) and after the fact (the run ended while no
// Ferry followed it); -o writes each image byte for byte as the run wrote it, --json gives the
// histograms' bucket_limit and bucket exactly; the attacks said and nothing of them listed.
#include "support/cli.h"
#include "support/process.h"
#include "support/testenv.h"
#include "support/testmain.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;

namespace {

using ferry::test::runFerry;
using Result = ferry::test::CliResult;

const QString kMediaCliScript = QStringLiteral(FERRY_TEST_DATA "/runs/scripts/media_script.py");

QByteArray mediaCliBytes(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

QString runIdOf(const Result &started)
{
    // `ferry run` prints the run's id first (--follow: then the log).
    return started.out.section(u'\n', 0, 0).trimmed();
}

} // namespace

class TestMediaCli : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QString m_written;
    QJsonObject m_expected;

    QStringList scriptArguments(const QString &events) const
    {
        return {u"run"_s,  kMediaCliScript,
                u"--hp"_s, u"events="_s + m_written + u'/' + events,
                u"--hp"_s, u"histograms="_s + m_written + u"/histograms.jsonl"_s,
                u"--hp"_s, u"images="_s + m_written + u"/good-images"_s,
                u"--hp"_s, u"delay=0.01"_s};
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        m_written = m_dir.filePath(u"written"_s);
        const auto r = ferry::test::runCommand(
            u"/usr/bin/python3"_s,
            {QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/media_writer.py"), u"write"_s,
             QStringLiteral(FERRY_SOURCE_DIR "/core/metrics/tensorboard_event.proto"), m_written});
        QVERIFY2(r.code == 0, r.err.constData());
        m_expected = QJsonDocument::fromJson(mediaCliBytes(m_written + u"/expected.json"_s)).object();
        // The good images alone (the attacks are another test's).
        QDirIterator it(m_written + u"/run/output/images"_s, QDir::Files, QDirIterator::Subdirectories);
        while (it.hasNext()) {
            const QString file = it.next();
            const QString relative = QDir(m_written + u"/run/output/images"_s).relativeFilePath(file);
            if (relative.startsWith(u"attacks/"_s))
                continue;
            QDir().mkpath(QFileInfo(m_written + u"/good-images/"_s + relative).absolutePath());
            QVERIFY(QFile::copy(file, m_written + u"/good-images/"_s + relative));
        }
    }

    void imagesHistogramsAndTextOfARunFollowedLive()
    {
        QTemporaryDir ws;
        const Result started = runFerry(ws.path(), scriptArguments(u"media.tfevents"_s) << u"--follow"_s);
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = runIdOf(started);
        QVERIFY(!id.isEmpty());

        // --json: every tag with its steps, each image with its format and size.
        const Result listed = runFerry(ws.path(), {u"runs"_s, u"images"_s, id, u"--json"_s});
        QCOMPARE(listed.exitCode, 0);
        const QJsonObject json = QJsonDocument::fromJson(listed.out.toUtf8()).object();
        QMap<QString, QList<qint64>> steps;
        for (const QJsonValue t : json[u"tags"_s].toArray())
            for (const QJsonValue s : t[u"steps"_s].toArray())
                steps[t[u"tag"_s].toString()] << s.toInteger();
        QMap<QString, QList<qint64>> want;
        QList<QJsonObject> images;
        for (const QJsonArray &list : {m_expected[u"items"_s].toArray(), m_expected[u"folder"_s].toArray()}) {
            for (const QJsonValue v : list) {
                if (v[u"kind"_s].toString() != u"image"_s)
                    continue;
                images << v.toObject();
                QList<qint64> &tagSteps = want[v[u"tag"_s].toString()];
                if (!tagSteps.contains(v[u"step"_s].toInteger()))
                    tagSteps << v[u"step"_s].toInteger();
            }
        }
        for (QList<qint64> &s : want)
            std::sort(s.begin(), s.end());
        QCOMPARE(steps, want);
        QCOMPARE(json[u"images"_s].toArray().size(), images.size());

        // -o: each image byte for byte as the run wrote it, DIR/<tag>/<step>.<ext>.
        const QString out = ws.filePath(u"exported"_s);
        const Result written = runFerry(ws.path(), {u"runs"_s, u"images"_s, id, u"-o"_s, out});
        QVERIFY2(written.exitCode == 0, qPrintable(written.err));
        QVERIFY2(written.err.contains(u"wrote %1 images"_s.arg(images.size())), qPrintable(written.err));
        for (const QJsonObject &image : std::as_const(images)) {
            const QString format = image[u"format"_s].toString();
            const QString name =
                image[u"tag"_s].toString() + u'/' + QString::number(image[u"step"_s].toInteger()) +
                (image[u"sample"_s].toInt() > 0 ? u"-%1"_s.arg(image[u"sample"_s].toInt()) : QString()) + u'.' +
                (format == u"jpeg"_s ? u"jpg"_s : format);
            QVERIFY2(QFile::exists(out + u'/' + name), qPrintable(name));
            QCOMPARE(mediaCliBytes(out + u'/' + name).toHex(), image[u"bytes"_s].toString().toLatin1());
        }
        // One tag at one step: one file.
        const QString one = ws.filePath(u"one"_s);
        QCOMPARE(runFerry(ws.path(),
                          {u"runs"_s, u"images"_s, id, u"--tag"_s, u"samples"_s, u"--step"_s, u"10"_s, u"-o"_s, one})
                     .exitCode,
                 0);
        QCOMPARE(QDir(one + u"/samples"_s).entryList(QDir::Files), QStringList{u"10.png"_s});
        const Result nope = runFerry(ws.path(), {u"runs"_s, u"images"_s, id, u"--tag"_s, u"nope"_s});
        QCOMPARE(nope.exitCode, 1);
        QVERIFY2(nope.err.contains(u"no image tag 'nope'"_s) && nope.err.contains(u"samples"_s), qPrintable(nope.err));
        const Result noStep = runFerry(ws.path(), {u"runs"_s, u"images"_s, id, u"--step"_s, u"11"_s});
        QCOMPARE(noStep.exitCode, 1);
        QVERIFY2(noStep.err.contains(u"no image at step 11"_s), qPrintable(noStep.err));

        // histograms --json: per step bucket_limit and bucket as HistogramProto has them, exact.
        const Result histograms =
            runFerry(ws.path(), {u"runs"_s, u"histograms"_s, id, u"--tag"_s, u"weights/fc1"_s, u"--json"_s});
        QVERIFY2(histograms.exitCode == 0, qPrintable(histograms.err));
        const QJsonObject h = QJsonDocument::fromJson(histograms.out.toUtf8()).object();
        QCOMPARE(h[u"tag"_s].toString(), u"weights/fc1"_s);
        QJsonArray wantHistograms;
        for (const QJsonValue v : m_expected[u"items"_s].toArray()) {
            if (v[u"tag"_s].toString() == u"weights/fc1"_s)
                wantHistograms.append(v);
        }
        const QJsonArray gotHistograms = h[u"histograms"_s].toArray();
        QCOMPARE(gotHistograms.size(), wantHistograms.size());
        for (qsizetype i = 0; i < gotHistograms.size(); ++i) {
            const QJsonObject got = gotHistograms.at(i).toObject(), w = wantHistograms.at(i).toObject();
            QCOMPARE(got[u"step"_s].toInteger(), w[u"step"_s].toInteger());
            QCOMPARE(got[u"bucket_limit"_s].toArray(), w[u"bucket_limit"_s].toArray());
            QCOMPARE(got[u"bucket"_s].toArray(), w[u"bucket"_s].toArray());
            for (const QString &field : {u"min"_s, u"max"_s, u"num"_s, u"sum"_s, u"sum_squares"_s})
                QCOMPARE(got[field].toDouble(), w[field].toDouble());
        }
        const Result tags = runFerry(ws.path(), {u"runs"_s, u"histograms"_s, id, u"--json"_s});
        QCOMPARE(tags.exitCode, 0);
        QStringList tagNames;
        for (const QJsonValue t : QJsonDocument::fromJson(tags.out.toUtf8()).object()[u"tags"_s].toArray())
            tagNames << t[u"tag"_s].toString();
        QCOMPARE(tagNames, (QStringList{u"jsonl/w"_s, u"tf2/hist"_s, u"weights/fc1"_s}));

        // show --json: the text summaries, the counts; the run's own parameters, not the hparams.
        const QJsonObject shown = ferry::test::shownRun(ws.path(), id);
        const QJsonObject text = shown[u"text"_s].toObject();
        QCOMPARE(text.keys(), (QStringList{u"notes"_s, u"table"_s}));
        QCOMPARE(text[u"notes"_s][0][u"step"_s].toInteger(), 1);
        QCOMPARE(text[u"notes"_s][0][u"text"_s].toString(), u"hello ünïcode\nsecond line"_s);
        QCOMPARE(text[u"notes"_s][1][u"text"_s].toString(), u"step two"_s);
        QCOMPARE(text[u"table"_s][0][u"text"_s].toString(), u"a\tb\nc\td"_s);
        QCOMPARE(shown[u"media"_s][u"images"_s].toInteger(), images.size());
        QVERIFY(!shown[u"params"_s].toObject().contains(u"optimizer"_s));
        QVERIFY(shown[u"params"_s].toObject().contains(u"events"_s));
        const Result plain = runFerry(ws.path(), {u"runs"_s, u"show"_s, id});
        QVERIFY2(plain.out.contains(u"text:      notes at step 2: step two"_s), qPrintable(plain.out));
    }

    // The attacks followed live: each said once beside the log, naming its file; nothing of them
    // listed, the scalars around them kept.
    void attacksAreSaidAndNothingOfThemListed()
    {
        QTemporaryDir ws;
        const Result started = runFerry(ws.path(), scriptArguments(u"hostile.tfevents"_s) << u"--follow"_s);
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = runIdOf(started);
        for (const QJsonValue attack : m_expected[u"attacks"_s].toArray()) {
            const QString said = u"events.out.tfevents.1700000000.host.1.0: TensorBoard event file: %1 '%2' at step"_s;
            const QString tag = attack[u"tag"_s].toString();
            QVERIFY2(started.out.contains(said.arg(u"image"_s, tag)) ||
                         started.out.contains(said.arg(u"histogram"_s, tag)) ||
                         started.out.contains(said.arg(u"text"_s, tag)),
                     qPrintable(tag + u"\n"_s + started.out));
            for (const QJsonValue word : attack[u"words"_s].toArray())
                QVERIFY2(started.out.contains(word.toString()), qPrintable(word.toString()));
        }
        const QJsonObject listed =
            QJsonDocument::fromJson(runFerry(ws.path(), {u"runs"_s, u"images"_s, id, u"--json"_s}).out.toUtf8())
                .object();
        QStringList tags;
        for (const QJsonValue t : listed[u"tags"_s].toArray())
            tags << t[u"tag"_s].toString();
        QCOMPARE(tags, (QStringList{u"anim"_s, u"gen"_s, u"val/grid"_s})); // the folder's alone
        const Result histograms = runFerry(ws.path(), {u"runs"_s, u"histograms"_s, id, u"--json"_s});
        QVERIFY(!histograms.out.contains(u"many buckets"_s));
        QVERIFY(histograms.out.contains(u"jsonl/w"_s));
        QCOMPARE(ferry::test::shownRun(ws.path(), id)[u"lastMetrics"_s][u"kept"_s].toDouble(), 2.0);
    }

    // The run ended while no Ferry followed it: the next command collects it, its media too.
    void runCollectedAfterTheFact()
    {
        QTemporaryDir ws;
        const Result started = runFerry(ws.path(), scriptArguments(u"media.tfevents"_s));
        QVERIFY2(started.exitCode == 0, qPrintable(started.err));
        const QString id = runIdOf(started);
        const QString dir = ws.filePath(u".ferry/runs/"_s + id + u'/');
        QVERIFY(ferry::test::waitFor(
            [&] { return QFile::exists(dir + u"exit.json"_s) && QFile::exists(dir + u"output.tar.gz"_s); }, 120000,
            100));
        const QString out = ws.filePath(u"exported"_s);
        const Result written = runFerry(ws.path(), {u"runs"_s, u"images"_s, id, u"--tag"_s, u"big"_s, u"-o"_s, out});
        QVERIFY2(written.exitCode == 0, qPrintable(written.err));
        for (const QJsonValue v : m_expected[u"items"_s].toArray()) {
            if (v[u"tag"_s].toString() == u"big"_s)
                QCOMPARE(mediaCliBytes(out + u"/big/7.png"_s).toHex(), v[u"bytes"_s].toString().toLatin1());
        }
        const QJsonObject counts = ferry::test::shownRun(ws.path(), id)[u"media"_s].toObject();
        QCOMPARE(counts[u"histograms"_s].toInteger(), 7);
        QCOMPARE(counts[u"texts"_s].toInteger(), 3);
    }
};

FERRY_TEST_GUILESS_MAIN(TestMediaCli)
#include "tst_mediacli.moc"
