// TensorBoard event files (metrics/eventfile.h): the real files of the corpus (../shared/corpus/logs/
// tfevents/: Lightning's logger, tensorboardX, YOLOv5's SummaryWriter) read as
// tests/metrics/event_oracle.py reads them (Python's protobuf and struct, its own CRC-32C); files it
// writes with python3-protobuf (simple values, Keras' tensors, doubles, no step, what is no scalar,
// records over 1 MiB); the same files fed in small pieces as a growing file is; damaged files.
#include "support/corpus.h"
#include "support/process.h"
#include "support/testmain.h"

#include "metrics/eventfile.h"

#include <QFile>
#include <QRandomGenerator>
#include <QTemporaryDir>
#include <QTest>
#include <QtEndian>

#include <algorithm>
#include <cmath>
#include <optional>

using namespace Qt::StringLiterals;
using namespace ferry::run;
using ferry::crc32c;
using ferry::crc32cPortable;

namespace {

const QString kProto = QStringLiteral(FERRY_SOURCE_DIR "/core/metrics/tensorboard_event.proto");
const QString kOracle = QStringLiteral(FERRY_SOURCE_DIR "/tests/metrics/event_oracle.py");

const QString kLightning = u"logs/tfevents/Abdul-AA__Text-Generation-With-LSTM/lightning_logs/version_0/"
                           u"events.out.tfevents.1716735746.99c8c45923de.3769.0"_s;
const QString kTensorboardX =
    u"logs/tfevents/cht619__tensorboardX-mnist/runs/classifier_mnist_0915/events.out.tfevents.1600155893.yca-2662-2"_s;
const QString kYolo = u"logs/tfevents/hrithikacharukula__Chess-Pawn-Detection-using-YOLOv5-/runs/train/exp/"
                      u"events.out.tfevents.1622905844.4319aacdd242.193.0"_s;

QString number(double x)
{
    return QString::number(x, 'g', 17);
}

// A point as "name step value wallMs", the numbers exact: how both sides are compared.
QString line(const QString &name, double step, double value, qint64 wallMs)
{
    return u"%1 %2 %3 %4"_s.arg(name, number(step), number(value)).arg(wallMs);
}

QStringList rendered(const QList<MetricPoint> &points)
{
    QStringList out;
    for (const MetricPoint &p : points) {
        out << line(p.name, p.step, p.value, p.wallMs);
        if (!std::isnan(p.epoch))
            out.last() += u" epoch?"_s; // an event file gives no epoch
    }
    return out;
}

struct Oracle {
    QStringList points;
    qint64 damagedAt = -1; // where the oracle found a damaged record
};

// What Python reads from the file: its repr()s read back to the same doubles.
Oracle oracle(const QString &path, const QString &prefix = {})
{
    const auto r = ferry::test::runCommand(u"/usr/bin/python3"_s, {kOracle, u"points"_s, kProto, path, prefix});
    if (r.code != 0)
        qFatal("event_oracle.py failed: %s", r.err.constData());
    Oracle out;
    for (const QString &text : QString::fromUtf8(r.out).split(u'\n', Qt::SkipEmptyParts)) {
        if (text.startsWith(u"damaged "_s)) {
            out.damagedAt = text.sliced(8).toLongLong();
            continue;
        }
        const QStringList f = text.split(u'\t');
        out.points << line(f.at(0), f.at(1).toDouble(), f.at(2).toDouble(), f.at(3).toLongLong());
    }
    return out;
}

QByteArray contents(const QString &path)
{
    QFile file(path);
    if (!file.open(QIODevice::ReadOnly))
        qFatal("cannot read %s", qPrintable(path));
    return file.readAll();
}

bool writeFile(const QString &path, const QByteArray &bytes)
{
    QFile file(path);
    return file.open(QIODevice::WriteOnly) && file.write(bytes) == bytes.size();
}

struct Reading {
    QList<MetricPoint> points;
    std::optional<ferry::Error> error;
    qint64 offset = 0;
    bool askedForMore = true; // each call that left bytes unread wanted more than it had
};

// Reads `file` as a follower reads a growing file: `piece` more bytes each time (0: all at once),
// each call handed the bytes from the reader's offset on, until the end or an error.
Reading readGrowing(const QByteArray &file, qsizetype piece, const QString &prefix = {}, const QString &path = {},
                    EventFileReader::Limits limits = {})
{
    EventFileReader reader(prefix, path, limits);
    Reading r;
    qsizetype available = 0;
    for (;;) {
        available = piece > 0 ? std::min(file.size(), available + piece) : file.size();
        const auto got = reader.read(QByteArrayView(file).sliced(reader.offset(), available - reader.offset()));
        if (!got) {
            r.error = got.error();
            break;
        }
        r.points += *got;
        if (!reader.failed() && available - reader.offset() >= reader.bytesWanted())
            r.askedForMore = false;
        if (available == file.size() && !reader.failed())
            break;
    }
    r.offset = reader.offset();
    return r;
}

// Where each record of a well-formed file starts.
QList<qint64> recordStarts(const QByteArray &file)
{
    QList<qint64> starts;
    for (qint64 at = 0; at + 12 <= file.size();) {
        starts << at;
        at += 16 + static_cast<qint64>(qFromLittleEndian<quint64>(file.constData() + at));
    }
    return starts;
}

} // namespace

class TestEventFile : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString synthetic(const QString &name) const { return m_dir.filePath(name + u".tfevents"_s); }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        const auto r = ferry::test::runCommand(u"/usr/bin/python3"_s, {kOracle, u"write"_s, kProto, m_dir.path()});
        QVERIFY2(r.code == 0, r.err.constData());
    }

    void corpusAsPythonReadsIt_data()
    {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("tag"); // one of its curves
        QTest::addColumn<int>("atLeast"); // points of that curve, so that an empty reading cannot pass
        QTest::newRow("lightning") << kLightning << u"train_loss"_s << 7000;
        QTest::newRow("tensorboardX, with a graph") << kTensorboardX << u"batch_loss"_s << 30;
        QTest::newRow("yolov5, with a graph and an image") << kYolo << u"metrics/mAP_0.5"_s << 100;
    }
    void corpusAsPythonReadsIt()
    {
        QFETCH(QString, file);
        QFETCH(QString, tag);
        QFETCH(int, atLeast);
        const QString path = corpusPath(file);
        const QByteArray bytes = contents(path);
        const Reading got = readGrowing(bytes, 0, {}, path);
        QVERIFY2(!got.error, qPrintable(got.error ? got.error->toString() : QString()));
        QCOMPARE(got.offset, bytes.size());
        const QStringList want = oracle(path).points;
        QCOMPARE(rendered(got.points), want);
        QVERIFY(std::count_if(got.points.begin(), got.points.end(),
                              [&](const MetricPoint &p) { return p.name == tag; }) >= atLeast);
    }

    void syntheticFiles_data()
    {
        QTest::addColumn<QString>("name");
        QTest::addColumn<QStringList>("expected"); // what event_oracle.py wrote, by hand
        QTest::newRow("simple values") << u"scalars"_s
                                       << QStringList{u"loss 1 0.5 1700000000500"_s,   u"acc 1 0.75 1700000000500"_s,
                                                      u"loss 2 0.25 1700000001000"_s,  u"acc 2 0.875 1700000001000"_s,
                                                      u"loss 3 0.125 1700000001500"_s, u"acc 3 0.9375 1700000001500"_s};
        QTest::newRow("keras: float tensors, packed and in float_val")
            << u"keras"_s
            << QStringList{u"epoch_loss 0 1.5 1700000010000"_s,   u"epoch_accuracy 0 0.75 1700000010000"_s,
                           u"epoch_loss 1 0.75 1700000011000"_s,  u"epoch_accuracy 1 0.375 1700000011000"_s,
                           u"epoch_loss 2 0.375 1700000012000"_s, u"epoch_accuracy 2 0.1875 1700000012000"_s};
        QTest::newRow("double tensors") << u"double"_s
                                        << QStringList{u"lr 5 0.001 1700000001250"_s,
                                                       u"lr 6 0.10000000000000001 1700000001250"_s};
        QTest::newRow("no step: 0") << u"nostep"_s
                                    << QStringList{u"loss 0 2.5 1700000001250"_s, u"loss 3 1.25 1700000001250"_s};
        QTest::newRow("images, histograms, text, other plugins, non-scalar tensors")
            << u"ignored"_s << QStringList{u"kept 2 3 1700000001250"_s, u"kept 4 2 1700000001250"_s};
        QTest::newRow("records over 1 MiB")
            << u"large"_s
            << QStringList{u"loss 7 0.5 1700000003500"_s, u"accuracy 7 0.75 1700000003500"_s,
                           u"loss 9 0.25 1700000001250"_s};
    }
    void syntheticFiles()
    {
        QFETCH(QString, name);
        QFETCH(QStringList, expected);
        const QByteArray bytes = contents(synthetic(name));
        const Reading got = readGrowing(bytes, 0);
        QVERIFY2(!got.error, qPrintable(got.error ? got.error->toString() : QString()));
        QCOMPARE(got.offset, bytes.size());
        QCOMPARE(rendered(got.points), expected);
        QCOMPARE(oracle(synthetic(name)).points, expected);
    }

    // Every record walked field by field, as a long one is (EventFileLimits): the same points.
    void walkedRecordsGiveWhatParsedOnesGive_data()
    {
        QTest::addColumn<QString>("path");
        QTest::newRow("lightning") << corpusPath(kLightning);
        QTest::newRow("tensorboardX") << corpusPath(kTensorboardX);
        QTest::newRow("yolov5") << corpusPath(kYolo);
        for (const QString &name : {u"scalars"_s, u"keras"_s, u"double"_s, u"nostep"_s, u"ignored"_s, u"large"_s})
            QTest::newRow(qPrintable(name)) << synthetic(name);
    }
    void walkedRecordsGiveWhatParsedOnesGive()
    {
        QFETCH(QString, path);
        const QByteArray bytes = contents(path);
        const Reading walked = readGrowing(bytes, 0, {}, path, EventFileLimits{64 << 20, 0, 1 << 20, {}});
        QVERIFY2(!walked.error, qPrintable(walked.error ? walked.error->toString() : QString()));
        QVERIFY(!walked.points.isEmpty());
        QCOMPARE(rendered(walked.points), oracle(path).points);
        // A value over maxValueBytes is skipped unparsed: with a cap of 0, every one.
        const Reading capped = readGrowing(bytes, 0, {}, path, EventFileLimits{64 << 20, 0, 0, {}});
        QVERIFY(!capped.error);
        QVERIFY(capped.points.isEmpty());
    }

    void prefixGoesBeforeEveryTag()
    {
        const Reading got = readGrowing(contents(synthetic(u"scalars"_s)), 0, u"train/"_s);
        QCOMPARE(got.points.size(), 6);
        for (const MetricPoint &p : got.points)
            QVERIFY2(p.name == u"train/loss"_s || p.name == u"train/acc"_s, qPrintable(p.name));
        QCOMPARE(rendered(got.points), oracle(synthetic(u"scalars"_s), u"train/"_s).points);
    }

    // A growing file read whatever its pieces: exactly the points of the whole file, each once.
    void piecesGiveTheWholeFile_data()
    {
        QTest::addColumn<QString>("path");
        QTest::addColumn<int>("piece");
        for (const int piece : {1, 7, 100}) {
            QTest::addRow("lightning, %d bytes at a time", piece) << corpusPath(kLightning) << piece;
            QTest::addRow("yolov5, %d bytes at a time", piece) << corpusPath(kYolo) << piece;
            QTest::addRow("keras, %d bytes at a time", piece) << synthetic(u"keras"_s) << piece;
            QTest::addRow("over 1 MiB, %d bytes at a time", piece) << synthetic(u"large"_s) << piece;
        }
    }
    void piecesGiveTheWholeFile()
    {
        QFETCH(QString, path);
        QFETCH(int, piece);
        const QByteArray bytes = contents(path);
        const Reading whole = readGrowing(bytes, 0);
        const Reading pieces = readGrowing(bytes, piece);
        QVERIFY(!whole.error && !pieces.error);
        QVERIFY(!whole.points.isEmpty());
        QCOMPARE(rendered(pieces.points), rendered(whole.points));
        QCOMPARE(pieces.offset, bytes.size());
        QVERIFY(pieces.askedForMore);
    }

    // A follower that re-attaches carries on at the offset it stored: the rest, nothing twice.
    void resumedReaderReadsTheRest()
    {
        const QByteArray bytes = contents(corpusPath(kLightning));
        const Reading whole = readGrowing(bytes, 0);
        EventFileReader first;
        const auto head = first.read(QByteArrayView(bytes).first(bytes.size() / 2));
        QVERIFY(head && !head->isEmpty());
        QVERIFY(first.offset() > 0 && first.offset() <= bytes.size() / 2);
        EventFileReader second;
        second.resumeAt(first.offset());
        QCOMPARE(second.offset(), first.offset());
        const auto tail = second.read(QByteArrayView(bytes).sliced(second.offset()));
        QVERIFY(tail && !tail->isEmpty());
        QCOMPARE(second.offset(), bytes.size());
        QCOMPARE(rendered(*head + *tail), rendered(whole.points));
    }

    // A flipped bit in a record's length CRC, its data CRC or its data: the points before it, then
    // an Error naming the file and the record's offset, and nothing after it however often asked.
    void damagedRecordStopsTheReading_data()
    {
        QTest::addColumn<int>("record"); // which record of scalars.tfevents (0: the file version)
        QTest::addColumn<int>("byte");   // which byte of it; -1: its data CRC
        QTest::addColumn<int>("pointsBefore");
        QTest::newRow("length CRC") << 3 << 8 << 2;
        QTest::newRow("length") << 2 << 0 << 1;
        QTest::newRow("data CRC") << 4 << -1 << 3;
        QTest::newRow("data") << 5 << 14 << 4;
        QTest::newRow("the first record") << 0 << 9 << 0;
    }
    void damagedRecordStopsTheReading()
    {
        QFETCH(int, record);
        QFETCH(int, byte);
        QFETCH(int, pointsBefore);
        QByteArray bytes = contents(synthetic(u"scalars"_s));
        const QList<qint64> starts = recordStarts(bytes);
        QCOMPARE(starts.size(), 7);
        const qint64 at = starts.at(record);
        const qint64 flip = byte >= 0 ? at + byte : starts.at(record + 1) - 1;
        bytes[flip] = static_cast<char>(bytes.at(flip) ^ 0x10);
        const QString path = m_dir.filePath(u"damaged.tfevents"_s);
        QVERIFY(writeFile(path, bytes));

        EventFileReader reader({}, path);
        const auto first = reader.read(bytes);
        if (pointsBefore > 0) {
            QVERIFY(first);
            QCOMPARE(first->size(), pointsBefore);
            QVERIFY(reader.failed());
        }
        const auto error = pointsBefore > 0 ? reader.read(QByteArrayView(bytes).sliced(reader.offset())) : first;
        QVERIFY(!error);
        QCOMPARE(error.error().path, path);
        QVERIFY2(error.error().message.contains(u"at byte %1 "_s.arg(at)), qPrintable(error.error().message));
        QCOMPARE(reader.offset(), at);
        QCOMPARE(reader.bytesWanted(), 0);
        const auto again = reader.read(QByteArrayView(bytes).sliced(reader.offset()));
        QVERIFY(!again);
        QCOMPARE(again.error().message, error.error().message);

        const Oracle python = oracle(path);
        QCOMPARE(python.damagedAt, at);
        QCOMPARE(python.points.size(), pointsBefore);
    }

    // A header that claims 2^62 bytes (with a length CRC that matches) is refused as soon as its 12
    // bytes are there: nothing allocated for it, no waiting for bytes that will never come.
    void hugeRecordIsRefusedAtItsHeader()
    {
        const QByteArray bytes = contents(synthetic(u"huge"_s));
        const qint64 at = recordStarts(bytes).last();
        EventFileReader reader({}, u"/runs/x/events.out.tfevents.1"_s);
        const auto before = reader.read(QByteArrayView(bytes).first(at + 11));
        QVERIFY(before);
        QCOMPARE(rendered(*before), QStringList{u"loss 1 1 1700000001250"_s});
        QVERIFY(!reader.failed());
        QCOMPARE(reader.offset(), at);
        const auto error = reader.read(QByteArrayView(bytes).sliced(at, 12));
        QVERIFY(!error);
        QVERIFY2(error.error().message.contains(u"at byte %1 "_s.arg(at)), qPrintable(error.error().message));
        QVERIFY2(error.error().message.contains(u"4611686018427387904"_s), qPrintable(error.error().message));
        QCOMPARE(error.error().path, u"/runs/x/events.out.tfevents.1"_s);

        // The cap is the caller's: a record longer than it is refused the same way.
        const Reading capped =
            readGrowing(contents(synthetic(u"scalars"_s)), 0, {}, {}, EventFileLimits{20, 1ll << 20, 1ll << 20, {}});
        QVERIFY(capped.error);
        QVERIFY(capped.points.isEmpty());
        QVERIFY2(capped.error->message.contains(u"at byte 0 "_s), qPrintable(capped.error->message));
    }

    void recordThatIsNoEventIsAnError()
    {
        const QByteArray bytes = contents(synthetic(u"garbage"_s));
        const Reading got = readGrowing(bytes, 0);
        QCOMPARE(rendered(got.points), QStringList{u"loss 1 1 1700000001250"_s});
        QVERIFY(got.error);
        QVERIFY2(got.error->message.contains(u"at byte %1 "_s.arg(recordStarts(bytes).last())),
                 qPrintable(got.error->message));
        QCOMPARE(oracle(synthetic(u"garbage"_s)).damagedAt, recordStarts(bytes).last());
    }

    // Nothing yet, or less than a header: no point, no error, the reader waits.
    void emptyAndTruncatedHeaderWait()
    {
        const QByteArray bytes = contents(synthetic(u"scalars"_s));
        EventFileReader reader;
        for (const qsizetype n : {0, 1, 11}) {
            const auto got = reader.read(QByteArrayView(bytes).first(n));
            QVERIFY(got);
            QVERIFY(got->isEmpty());
            QCOMPARE(reader.offset(), 0);
            QCOMPARE(reader.bytesWanted(), 12);
        }
        // With the header there the reader knows the record's whole size.
        const qint64 length = static_cast<qint64>(qFromLittleEndian<quint64>(bytes.constData()));
        const auto header = reader.read(QByteArrayView(bytes).first(12));
        QVERIFY(header && header->isEmpty());
        QCOMPARE(reader.offset(), 0);
        QCOMPARE(reader.bytesWanted(), 12 + length + 4);
        QVERIFY(!reader.failed());
        const auto rest = reader.read(QByteArrayView(bytes).first(12 + length + 4));
        QVERIFY(rest && rest->isEmpty()); // the file version: no point
        QCOMPARE(reader.offset(), 12 + length + 4);
        QCOMPARE(reader.bytesWanted(), 12);
    }

    void crc32cIsCastagnolis()
    {
        // RFC 3720 (iSCSI), B.4, and the usual check value.
        QCOMPARE(crc32c("123456789"), 0xe3069283u);
        QCOMPARE(crc32c(QByteArray(32, '\0')), 0x8a9136aau);
        QCOMPARE(crc32c(QByteArray(32, '\xff')), 0x62a8ab43u);
        QCOMPARE(crc32cPortable("123456789"), 0xe3069283u);
        QCOMPARE(crc32c(QByteArrayView()), 0u);
        // The CPU's instruction and the tables agree at every length and alignment, and a CRC
        // continued over two pieces is the CRC of the whole.
        QByteArray random(300, Qt::Uninitialized);
        QRandomGenerator generator(16);
        for (char &c : random)
            c = static_cast<char>(generator.bounded(256));
        for (qsizetype start = 0; start < 9; ++start) {
            for (qsizetype n = 0; start + n <= random.size(); n += 1 + n / 16) {
                const QByteArrayView piece = QByteArrayView(random).sliced(start, n);
                QCOMPARE(crc32c(piece), crc32cPortable(piece));
                QCOMPARE(crc32c(piece.sliced(n / 3), crc32c(piece.first(n / 3))), crc32c(piece));
            }
        }
    }
};

FERRY_TEST_APPLESS_MAIN(TestEventFile)
#include "tst_eventfile.moc"
