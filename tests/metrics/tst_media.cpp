// Images, histograms, text and hparams (metrics/media.h) read out of what tests/metrics/media_writer.py
// writes through the records' protobuf: TensorBoard's image, histogram and text summaries in both of
// their forms, histograms.jsonl; every item indexed where it is, its bytes read back equal to what
// was written (the images byte for byte), whole or in pieces or walked; the attacks the issue names
// (a decompression bomb, a 60,000 x 60,000 header, 10^9 buckets, NaN edges) refused by name with the
// file named, nothing of them indexed and the scalars around them kept; the corpus' histogram and
// hparams as Python reads them.
#include "support/corpus.h"
#include "support/process.h"
#include "support/testmain.h"

#include "metrics/eventfile.h"
#include "metrics/media.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;
using namespace ferry::run;

namespace {

const QString kMediaProto = QStringLiteral(FERRY_SOURCE_DIR "/core/metrics/tensorboard_event.proto");
const QString kMediaWriter = QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/media_writer.py");
const QString kYoloEvents = u"logs/tfevents/hrithikacharukula__Chess-Pawn-Detection-using-YOLOv5-/runs/train/exp/"
                            u"events.out.tfevents.1622905844.4319aacdd242.193.0"_s;
const QString kLightningFolder = u"logs/tfevents/Abdul-AA__Text-Generation-With-LSTM/lightning_logs/version_0/"_s;

QByteArray mediaFileBytes(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

// A JSON number, or NaN for null (what JSON has for a number that is not given).
double numberOrNaN(const QJsonValue &v)
{
    return v.isDouble() ? v.toDouble() : std::numeric_limits<double>::quiet_NaN();
}

std::vector<double> numbersIn(const QJsonValue &v)
{
    std::vector<double> out;
    for (const QJsonValue x : v.toArray())
        out.push_back(x.toDouble());
    return out;
}

// NaN equal to NaN: the fields a form does not carry.
bool sameNumber(double a, double b)
{
    return (std::isnan(a) && std::isnan(b)) || a == b;
}

Histogram histogramIn(const QJsonObject &o)
{
    Histogram h;
    h.min = numberOrNaN(o[u"min"_s]);
    h.max = numberOrNaN(o[u"max"_s]);
    h.num = numberOrNaN(o[u"num"_s]);
    h.sum = numberOrNaN(o[u"sum"_s]);
    h.sumSquares = numberOrNaN(o[u"sum_squares"_s]);
    h.bucketLimit = numbersIn(o[u"bucket_limit"_s]);
    h.bucket = numbersIn(o[u"bucket"_s]);
    return h;
}

QString histogramDifferences(const Histogram &got, const Histogram &want)
{
    QStringList out;
    const auto field = [&](const char *name, double a, double b) {
        if (!sameNumber(a, b))
            out << u"%1: %2, not %3"_s.arg(QLatin1StringView(name)).arg(a, 0, 'g', 17).arg(b, 0, 'g', 17);
    };
    field("min", got.min, want.min);
    field("max", got.max, want.max);
    field("num", got.num, want.num);
    field("sum", got.sum, want.sum);
    field("sum_squares", got.sumSquares, want.sumSquares);
    if (got.bucketLimit != want.bucketLimit)
        out << u"bucket_limit differs"_s;
    if (got.bucket != want.bucket)
        out << u"bucket differs"_s;
    return out.join(u"; "_s);
}

struct MediaReading {
    QStringList points; // "name step value"
    QList<MediaItem> media;
    QList<ferry::Error> refused;
    std::optional<QList<HParam>> hparams;
    std::optional<ferry::Error> error;
    qint64 offset = 0;
};

// An event file read as a follower reads it, `piece` more bytes each time (0: all at once).
MediaReading readMediaEvents(const QByteArray &file, qsizetype piece, const QString &path, EventFileLimits limits = {})
{
    EventFileReader reader({}, path, limits);
    MediaReading r;
    qsizetype available = 0;
    for (;;) {
        available = piece > 0 ? std::min(file.size(), available + piece) : file.size();
        const auto got = reader.read(QByteArrayView(file).sliced(reader.offset(), available - reader.offset()));
        if (!got) {
            r.error = got.error();
            break;
        }
        for (const MetricPoint &p : *got)
            r.points << u"%1 %2 %3"_s.arg(p.name).arg(p.step).arg(p.value);
        r.media += reader.takeMedia();
        r.refused += reader.takeRefused();
        if (auto h = reader.takeHParams())
            r.hparams = h;
        if (available == file.size())
            break;
    }
    r.offset = reader.offset();
    return r;
}

QMap<QString, QString> hparamsByName(const QList<HParam> &hparams)
{
    QMap<QString, QString> out;
    for (const HParam &p : hparams)
        out.insert(p.name, p.value);
    return out;
}

QByteArray pngHeader(quint32 width, quint32 height, bool end = true)
{
    QByteArray b("\x89PNG\r\n\x1a\n", 8);
    char ihdr[25] = {0, 0, 0, 13, 'I', 'H', 'D', 'R'};
    qToBigEndian(width, ihdr + 8);
    qToBigEndian(height, ihdr + 12);
    ihdr[16] = 8;
    ihdr[17] = 6;
    b.append(ihdr, 25);
    if (end)
        b.append("\0\0\0\0IEND\xae\x42\x60\x82", 12);
    return b;
}

} // namespace

class TestMedia : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    QJsonObject m_expected;

    QString file(const QString &name) const { return m_dir.filePath(name); }

    // Each item read back from the file it indexes and compared with what the writer wrote.
    void verifyItems(const QList<MediaItem> &got, const QJsonArray &want, const QString &fileName)
    {
        QCOMPARE(got.size(), want.size());
        for (qsizetype i = 0; i < got.size(); ++i) {
            MediaItem item = got.at(i);
            const QJsonObject w = want.at(i).toObject();
            const QString what = u"item %1 (%2 %3)"_s.arg(i).arg(w[u"tag"_s].toString()).arg(w[u"step"_s].toInteger());
            QCOMPARE(mediaKindText(item.kind), w[u"kind"_s].toString());
            QCOMPARE(item.tag, w[u"tag"_s].toString());
            QCOMPARE(item.step, w[u"step"_s].toInteger());
            QCOMPARE(item.sample, w[u"sample"_s].toInt());
            QCOMPARE(item.format, w[u"format"_s].toString());
            if (w.contains(u"wallMs"_s))
                QCOMPARE(item.wallMs, w[u"wallMs"_s].toInteger());
            if (item.file.isEmpty())
                item.file = fileName;
            switch (item.kind) {
            case MediaKind::Image: {
                QCOMPARE(item.width, w[u"width"_s].toInt());
                QCOMPARE(item.height, w[u"height"_s].toInt());
                const QByteArray bytes = QByteArray::fromHex(w[u"bytes"_s].toString().toLatin1());
                QCOMPARE(item.length, bytes.size());
                const auto read = readMediaBytes(m_dir.path(), item);
                QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
                QVERIFY2(*read == bytes, qPrintable(what));
                break;
            }
            case MediaKind::Histogram: {
                const auto read = readHistogram(m_dir.path(), item);
                QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
                const QString diff = histogramDifferences(*read, histogramIn(w));
                QVERIFY2(diff.isEmpty(), qPrintable(what + u": "_s + diff));
                break;
            }
            case MediaKind::Text: {
                const auto read = readText(m_dir.path(), item);
                QVERIFY2(read, qPrintable(read ? QString() : read.error().toString()));
                QCOMPARE(*read, w[u"text"_s].toString());
                break;
            }
            }
        }
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto r =
            ferry::test::runCommand(u"/usr/bin/python3"_s, {kMediaWriter, u"write"_s, kMediaProto, m_dir.path()});
        QVERIFY2(r.code == 0, r.err.constData());
        m_expected = QJsonDocument::fromJson(mediaFileBytes(file(u"expected.json"_s))).object();
        QVERIFY(!m_expected.isEmpty());
    }

    // Whole, in pieces as a growing file is read, every record walked field by field, every value
    // walked unparsed: the same items, each read back equal to what was written.
    void eventFileMediaAreWhatWasWritten_data()
    {
        QTest::addColumn<qsizetype>("piece");
        QTest::addColumn<qint64>("wholeRecordBytes");
        QTest::addColumn<qint64>("valueBytes");
        QTest::newRow("whole") << qsizetype(0) << (1ll << 20) << (1ll << 20);
        QTest::newRow("7 bytes at a time") << qsizetype(7) << (1ll << 20) << (1ll << 20);
        QTest::newRow("4096 bytes at a time") << qsizetype(4096) << (1ll << 20) << (1ll << 20);
        QTest::newRow("every record walked") << qsizetype(0) << 0ll << (1ll << 20);
        QTest::newRow("every value walked unparsed") << qsizetype(0) << 0ll << 0ll;
    }
    void eventFileMediaAreWhatWasWritten()
    {
        QFETCH(qsizetype, piece);
        QFETCH(qint64, wholeRecordBytes);
        QFETCH(qint64, valueBytes);
        const QString path = file(u"media.tfevents"_s);
        const QByteArray bytes = mediaFileBytes(path);
        const MediaReading got =
            readMediaEvents(bytes, piece, path, EventFileLimits{64 << 20, wholeRecordBytes, valueBytes, {}});
        QVERIFY2(!got.error, qPrintable(got.error ? got.error->toString() : QString()));
        QCOMPARE(got.offset, bytes.size());
        QVERIFY2(got.refused.isEmpty(), qPrintable(got.refused.isEmpty() ? QString() : got.refused.first().toString()));
        if (valueBytes > 0) { // with no value parsed, no scalar either (tst_eventfile)
            QStringList points;
            for (const QJsonValue p : m_expected[u"points"_s].toArray())
                points << p.toString();
            QCOMPARE(got.points, points);
        }
        verifyItems(got.media, m_expected[u"items"_s].toArray(), u"media.tfevents"_s);
        QVERIFY(got.hparams);
        QMap<QString, QString> want;
        const QJsonObject hp = m_expected[u"hparams"_s].toObject();
        for (auto it = hp.begin(); it != hp.end(); ++it)
            want.insert(it.key(), it.value().toString());
        QCOMPARE(hparamsByName(*got.hparams), want);
    }

    // Each attack refused by name, with the file named, nothing of it indexed; the scalars before
    // and after it kept, the file read to its end.
    void attacksInAnEventFileAreRefusedAndChangeNothing()
    {
        const QString path = file(u"hostile.tfevents"_s);
        const QByteArray bytes = mediaFileBytes(path);
        for (const qsizetype piece : {qsizetype(0), qsizetype(65536)}) {
            const MediaReading got = readMediaEvents(bytes, piece, path);
            QVERIFY(!got.error);
            QCOMPARE(got.offset, bytes.size());
            QCOMPARE(got.points, (QStringList{u"kept 1 1"_s, u"kept 10 2"_s}));
            QVERIFY(got.media.isEmpty());
            const QJsonArray attacks = m_expected[u"attacks"_s].toArray();
            QCOMPARE(got.refused.size(), attacks.size());
            for (qsizetype i = 0; i < attacks.size(); ++i) {
                const ferry::Error &e = got.refused.at(i);
                QCOMPARE(e.path, path);
                const QJsonObject attack = attacks.at(i).toObject();
                QVERIFY2(e.message.contains(u"'%1'"_s.arg(attack[u"tag"_s].toString())), qPrintable(e.message));
                for (const QJsonValue word : attack[u"words"_s].toArray())
                    QVERIFY2(e.message.contains(word.toString()), qPrintable(e.message));
            }
        }
    }

    // A record's items are held until it is read whole: past 4,096 the rest are refused, said once.
    void crowdedEventKeepsItsFirstItems()
    {
        const QString path = file(u"crowded.tfevents"_s);
        const MediaReading got = readMediaEvents(mediaFileBytes(path), 0, path);
        QVERIFY(!got.error);
        QCOMPARE(got.points, QStringList{u"kept 1 3"_s});
        QCOMPARE(got.media.size(), 4096);
        QCOMPARE(got.media.last().tag, u"crowd/4095"_s);
        QCOMPARE(got.refused.size(), 1);
        QVERIFY2(got.refused.first().message.contains(u"more than 4096 images"_s),
                 qPrintable(got.refused.first().message));
    }

    void histogramLinesAreWhatWasWritten_data()
    {
        QTest::addColumn<qsizetype>("piece");
        QTest::newRow("whole") << qsizetype(0);
        QTest::newRow("5 bytes at a time") << qsizetype(5);
    }
    void histogramLinesAreWhatWasWritten()
    {
        QFETCH(qsizetype, piece);
        const QByteArray bytes = mediaFileBytes(file(u"histograms.jsonl"_s));
        HistogramLinesReader reader(file(u"histograms.jsonl"_s));
        QList<MediaItem> items;
        for (qsizetype available = 0; available < bytes.size();) {
            available = piece > 0 ? std::min(bytes.size(), available + piece) : bytes.size();
            auto read = reader.read(QByteArrayView(bytes).sliced(reader.offset(), available - reader.offset()));
            QVERIFY(read.refused.isEmpty());
            items += read.items;
        }
        QCOMPARE(reader.offset(), bytes.size());
        const QJsonArray want = m_expected[u"jsonl"_s].toArray();
        QCOMPARE(items.size(), want.size());
        for (qsizetype i = 0; i < items.size(); ++i) {
            MediaItem item = items.at(i);
            item.file = u"histograms.jsonl"_s;
            const QJsonObject w = want.at(i).toObject();
            QCOMPARE(item.tag, w[u"tag"_s].toString());
            QCOMPARE(item.step, w[u"step"_s].toInteger());
            QCOMPARE(item.format, QString(mediaformat::kHistogramLine));
            if (w.contains(u"wall_time"_s))
                QCOMPARE(item.wallMs, std::llround(w[u"wall_time"_s].toDouble() * 1000));
            const auto h = readHistogram(m_dir.path(), item);
            QVERIFY2(h, qPrintable(h ? QString() : h.error().toString()));
            Histogram expected = histogramIn(w);
            if (!w.contains(u"num"_s)) { // the buckets' sum when the line has none
                expected.num = 0;
                for (const double c : expected.bucket)
                    expected.num += c;
            }
            const QString diff = histogramDifferences(*h, expected);
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    // A NaN, 70,000 buckets, a 5 MiB line, no JSON, uneven arrays, a negative count, no tag: each
    // refused at its byte offset with the file named; the good lines around them read.
    void attacksInHistogramLinesAreRefused()
    {
        const QString path = file(u"hostile.jsonl"_s);
        const QByteArray bytes = mediaFileBytes(path);
        for (const qsizetype piece : {qsizetype(0), qsizetype(1 << 20)}) {
            HistogramLinesReader reader(path);
            QList<MediaItem> items;
            QList<ferry::Error> refused;
            for (qsizetype available = 0; available < bytes.size();) {
                available = piece > 0 ? std::min(bytes.size(), available + piece) : bytes.size();
                auto read = reader.read(QByteArrayView(bytes).sliced(reader.offset(), available - reader.offset()));
                items += read.items;
                refused += read.refused;
            }
            QCOMPARE(reader.offset(), bytes.size());
            QList<qint64> steps;
            for (const MediaItem &item : std::as_const(items))
                steps << item.step;
            QCOMPARE(steps, (QList<qint64>{1, 8}));
            const QJsonArray want = m_expected[u"hostileJsonl"_s][u"refusals"_s].toArray();
            QCOMPARE(refused.size(), want.size());
            for (qsizetype i = 0; i < want.size(); ++i) {
                const ferry::Error &e = refused.at(i);
                QCOMPARE(e.path, path);
                QVERIFY2(e.message.contains(u"at byte %1 "_s.arg(want.at(i)[u"at"_s].toInteger())),
                         qPrintable(e.message));
                QVERIFY2(e.message.contains(want.at(i)[u"words"_s].toString()), qPrintable(e.message));
            }
        }
    }

    // The headers a reader checks, at and past the limits.
    void imageHeaders_data()
    {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("problem"); // empty: accepted
        QTest::newRow("8192 x 8192: the most pixels") << pngHeader(8192, 8192) << QString();
        QTest::newRow("8193 x 8192") << pngHeader(8193, 8192) << u"8193 x 8192"_s;
        QTest::newRow("a side over 32768") << pngHeader(40000, 1) << u"40000 x 1"_s;
        QTest::newRow("60000 x 60000") << pngHeader(60000, 60000) << u"13.4 GiB"_s;
        QTest::newRow("no pixels") << pngHeader(0, 5) << u"no image"_s;
        QTest::newRow("over 2^31") << pngHeader(0x80000000u, 1) << u"no image"_s;
        QTest::newRow("cut short") << pngHeader(4, 4).left(20) << u"IHDR"_s;
        QTest::newRow("no image at all") << QByteArray("GIF8") << u"not a PNG, JPEG or GIF"_s;
        QTest::newRow("a GIF") << QByteArray("GIF89a\x10\x00\x08\x00\x00\x00\x00;", 14) << QString();
        QTest::newRow("a JPEG without a frame")
            << QByteArray("\xff\xd8\xff\xe0\x00\x04\x00\x00\xff\xd9", 10) << u"without a frame header"_s;
        QTest::newRow("a JPEG's damaged segment") << QByteArray("\xff\xd8\xff\xe0\x00\x01", 6) << u"damaged"_s;
        QTest::newRow("a JPEG of 70000 lines")
            << QByteArray("\xff\xd8\xff\xc2\x00\x11\x08\xff\xff\xff\xff\x03", 12) << u"65535 x 65535"_s;
    }
    void imageHeaders()
    {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, problem);
        const auto info = imageInfo(bytes);
        if (problem.isEmpty()) {
            QVERIFY2(info, qPrintable(info ? QString() : info.error().message));
        } else {
            QVERIFY(!info);
            QVERIFY2(info.error().message.contains(problem), qPrintable(info.error().message));
        }
    }

    void wholeImagesEndAsTheirFormatEnds()
    {
        QVERIFY(isWholeImage(pngHeader(4, 4)));
        QVERIFY(!isWholeImage(pngHeader(4, 4, false)));
        QVERIFY(isWholeImage(QByteArray("\xff\xd8\xff\xd9", 4)));
        QVERIFY(!isWholeImage(QByteArray("\xff\xd8\xff\xc0", 4)));
        QVERIFY(isWholeImage(QByteArray("GIF89a;")));
        QVERIFY(!isWholeImage(QByteArray("GIF89a")));
    }

    // An indexed item whose file changed (a flipped byte, cut short, gone) is an Error naming the
    // file, never other bytes.
    void changedFileIsAnErrorNotOtherBytes()
    {
        const QString path = file(u"media.tfevents"_s);
        QByteArray bytes = mediaFileBytes(path);
        MediaReading got = readMediaEvents(bytes, 0, path);
        QVERIFY(!got.media.isEmpty());
        MediaItem item = got.media.first();
        QTemporaryDir copy;
        item.file = u"copy.tfevents"_s;
        bytes[item.offset + item.length / 2] = char(bytes.at(item.offset + item.length / 2) ^ 1);
        QFile out(copy.filePath(item.file));
        QVERIFY(out.open(QIODevice::WriteOnly) && out.write(bytes) == bytes.size());
        out.close();
        auto read = readMediaBytes(copy.path(), item);
        QVERIFY(!read);
        QCOMPARE(read.error().path, copy.filePath(item.file));
        QVERIFY2(read.error().message.contains(u"changed"_s), qPrintable(read.error().message));
        QVERIFY(out.resize(item.offset + 3));
        read = readMediaBytes(copy.path(), item);
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(u"changed"_s), qPrintable(read.error().message));
        QVERIFY(QFile::remove(copy.filePath(item.file)));
        read = readMediaBytes(copy.path(), item);
        QVERIFY(!read);
        QVERIFY2(read.error().message.contains(u"no longer there"_s), qPrintable(read.error().message));
    }

    // YOLOv5's "classes" histogram (a HistogramProto in the corpus) as Python's protobuf reads it.
    void corpusHistogramAsPythonReadsIt()
    {
        const QString path = corpusPath(kYoloEvents);
        const auto r =
            ferry::test::runCommand(u"/usr/bin/python3"_s, {kMediaWriter, u"histograms"_s, kMediaProto, path});
        QVERIFY2(r.code == 0, r.err.constData());
        const QList<QByteArray> lines = r.out.trimmed().split('\n');
        QVERIFY(!lines.isEmpty() && !lines.first().isEmpty());
        const MediaReading got = readMediaEvents(mediaFileBytes(path), 0, path);
        QVERIFY(!got.error);
        QVERIFY(got.refused.isEmpty());
        QList<MediaItem> histograms;
        for (const MediaItem &item : got.media) {
            if (item.kind == MediaKind::Histogram)
                histograms << item;
        }
        QCOMPARE(histograms.size(), lines.size());
        const QString folder = QFileInfo(path).absolutePath();
        for (qsizetype i = 0; i < lines.size(); ++i) {
            const QJsonObject want = QJsonDocument::fromJson(lines.at(i)).object();
            MediaItem item = histograms.at(i);
            item.file = QFileInfo(path).fileName();
            QCOMPARE(item.tag, want[u"tag"_s].toString());
            QCOMPARE(item.step, want[u"step"_s].toInteger());
            const auto h = readHistogram(folder, item);
            QVERIFY2(h, qPrintable(h ? QString() : h.error().toString()));
            QVERIFY(!h->bucket.empty());
            const QString diff = histogramDifferences(*h, histogramIn(want));
            QVERIFY2(diff.isEmpty(), qPrintable(diff));
        }
    }

    // Lightning's TensorBoardLogger wrote its hyperparameters twice: hparams.yaml and the hparams
    // plugin's session start. Read from the event file, they are the YAML's.
    void corpusHParamsAreLightningsYaml()
    {
        const QDir folder(corpusPath(kLightningFolder));
        const QStringList events = folder.entryList({u"events.out.tfevents.*"_s}, QDir::Files);
        QCOMPARE(events.size(), 1);
        const MediaReading got = readMediaEvents(mediaFileBytes(folder.filePath(events.first())), 0, events.first());
        QVERIFY(!got.error);
        QVERIFY(got.hparams);
        QMap<QString, QString> yaml;
        for (const QByteArray &line : mediaFileBytes(folder.filePath(u"hparams.yaml"_s)).split('\n')) {
            const qsizetype colon = line.indexOf(':');
            if (colon > 0)
                yaml.insert(QString::fromUtf8(line.left(colon)), QString::fromUtf8(line.mid(colon + 1).trimmed()));
        }
        QCOMPARE(yaml.size(), 5);
        QCOMPARE(hparamsByName(*got.hparams), yaml);
    }
};

FERRY_TEST_APPLESS_MAIN(TestMedia)
#include "tst_media.moc"
