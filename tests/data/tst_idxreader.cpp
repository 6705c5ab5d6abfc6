// MNIST idx files (core/data/idxreader.cpp): written here, raw and gzip-compressed, and read
// back exactly; every broken file gets its own error.
#include "data/dataset.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

using namespace Qt::StringLiterals;
using namespace ferry::data;
using ferry::test::writeFileOrStop;

namespace {

QByteArray bigEndian(quint32 value)
{
    QByteArray bytes(4, '\0');
    for (int i = 0; i < 4; ++i)
        bytes[i] = char((value >> (24 - 8 * i)) & 0xFF);
    return bytes;
}

QByteArray imagesFile(const QByteArray &pixels, quint32 count, quint32 rows, quint32 columns)
{
    return QByteArray("\x00\x00\x08\x03", 4) + bigEndian(count) + bigEndian(rows) + bigEndian(columns) + pixels;
}

QByteArray labelsFile(const QByteArray &labels)
{
    return QByteArray("\x00\x00\x08\x01", 4) + bigEndian(quint32(labels.size())) + labels;
}

// gzip -n: the compressed file beside the original, which stays.
bool gzip(const QString &path)
{
    const QString program = QStandardPaths::findExecutable(u"gzip"_s);
    if (program.isEmpty())
        return false;
    return QProcess::execute(program, {u"-kfn"_s, path}) == 0;
}

} // namespace

class TestIdxReader : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    // Five 4×3 images whose bytes cover 0..255, and their labels.
    QByteArray m_pixels;
    const QByteArray m_labels = QByteArray("\x03\x07\x03\x00\x07", 5);

    QString folder(const QString &name)
    {
        QDir(m_dir.path()).mkpath(name);
        return m_dir.filePath(name);
    }

    void checkDigits(const Dataset &data)
    {
        QCOMPARE(data.kind, DatasetKind::Idx);
        QCOMPARE(data.task, Task::Classification);
        QCOMPARE(data.count, 5);
        QCOMPARE(data.shape, QList<int>({1, 4, 3}));
        QCOMPARE(data.classNames, QStringList({u"0"_s, u"3"_s, u"7"_s}));
        QCOMPARE(data.classes, std::vector<std::int64_t>({1, 2, 1, 0, 2}));
        QCOMPARE(data.x.size(), size_t(60));
        for (int i = 0; i < 60; ++i)
            QCOMPARE(data.x[size_t(i)], float(quint8(m_pixels[i])) / 255.0f);
    }

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        for (int i = 0; i < 60; ++i)
            m_pixels.append(char(i == 59 ? 255 : i * 4));
    }

    void roundTrip()
    {
        const QString dir = folder(u"raw"_s);
        writeFileOrStop(dir + u"/train-images-idx3-ubyte"_s, imagesFile(m_pixels, 5, 4, 3));
        writeFileOrStop(dir + u"/train-labels-idx1-ubyte"_s, labelsFile(m_labels));
        for (const QString &path :
             QStringList{dir + u"/train-images-idx3-ubyte"_s, dir + u"/train-labels-idx1-ubyte"_s, dir}) {
            const auto data = loadDataset(path);
            QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
            checkDigits(*data);
            QCOMPARE(data->source, path);
        }
    }

    void roundTripGzip()
    {
        const QString dir = folder(u"gz"_s);
        writeFileOrStop(dir + u"/t10k-images-idx3-ubyte"_s, imagesFile(m_pixels, 5, 4, 3));
        writeFileOrStop(dir + u"/t10k-labels-idx1-ubyte"_s, labelsFile(m_labels));
        if (!gzip(dir + u"/t10k-images-idx3-ubyte"_s) || !gzip(dir + u"/t10k-labels-idx1-ubyte"_s))
            QSKIP("no gzip to compress the test files");
        QFile::remove(dir + u"/t10k-labels-idx1-ubyte"_s);
        // Compressed images with compressed labels, and (once removed) with raw labels.
        const auto both = loadDataset(dir + u"/t10k-images-idx3-ubyte.gz"_s);
        QVERIFY2(both, qPrintable(both ? QString() : both.error().toString()));
        checkDigits(*both);
        QVERIFY(both->notes.first().contains(u"t10k-labels-idx1-ubyte.gz"_s));

        QFile::remove(dir + u"/t10k-images-idx3-ubyte"_s);
        const auto fromFolder = loadDataset(dir);
        QVERIFY2(fromFolder, qPrintable(fromFolder ? QString() : fromFolder.error().toString()));
        checkDigits(*fromFolder);

        writeFileOrStop(dir + u"/t10k-labels-idx1-ubyte"_s, labelsFile(m_labels));
        QFile::remove(dir + u"/t10k-labels-idx1-ubyte.gz"_s);
        const auto mixed = loadDataset(dir + u"/t10k-images-idx3-ubyte.gz"_s);
        QVERIFY(mixed);
        checkDigits(*mixed);
    }

    void prefersTrainingSet()
    {
        const QString dir = folder(u"both"_s);
        writeFileOrStop(dir + u"/t10k-images-idx3-ubyte"_s, imagesFile(m_pixels.first(24), 2, 4, 3));
        writeFileOrStop(dir + u"/t10k-labels-idx1-ubyte"_s, labelsFile("\x01\x02"));
        writeFileOrStop(dir + u"/train-images-idx3-ubyte"_s, imagesFile(m_pixels, 5, 4, 3));
        writeFileOrStop(dir + u"/train-labels-idx1-ubyte"_s, labelsFile(m_labels));
        const auto data = loadDataset(dir);
        QVERIFY(data);
        checkDigits(*data);
        QVERIFY2(
            data->notes.contains(
                u"the folder holds t10k-images-idx3-ubyte, train-images-idx3-ubyte; used train-images-idx3-ubyte"_s),
            qPrintable(data->notes.join(u'\n')));
    }

    void errors_data()
    {
        QTest::addColumn<QByteArray>("images");
        QTest::addColumn<QByteArray>("labels");
        QTest::addColumn<QString>("file"); // the file the error names
        QTest::addColumn<QString>("message");
        const QByteArray pixels = QByteArray(60, '\x10');
        const QByteArray labels = QByteArray(5, '\x01');
        QTest::newRow("truncated images")
            << imagesFile(pixels.first(50), 5, 4, 3) << labelsFile(labels) << u"images"_s
            << u"the file is truncated: 5 images of 4×3 pixels need 76 bytes, it has 66"_s;
        QTest::newRow("images too long")
            << imagesFile(pixels + "xx", 5, 4, 3) << labelsFile(labels) << u"images"_s
            << u"the file is longer than its header says: 5 images of 4×3 pixels need 76 bytes, it has 78"_s;
        QTest::newRow("truncated header")
            << QByteArray("\x00\x00\x08\x03\x00\x00", 6) << labelsFile(labels) << u"images"_s
            << u"the file is truncated: its header needs 16 bytes, it has 6"_s;
        QTest::newRow("truncated labels") << imagesFile(pixels, 5, 4, 3) << labelsFile(labels).chopped(2) << u"labels"_s
                                          << u"the file is truncated: 5 labels need 13 bytes, it has 11"_s;
        QTest::newRow("wrong magic")
            << QByteArray("\x12\x34\x56\x78") + QByteArray(72, '\0') << labelsFile(labels) << u"images"_s
            << u"not an MNIST images (idx3) file: it starts with 12 34 56 78, not 00 00 08 03"_s;
        QTest::newRow("labels as images") << labelsFile(labels) << labelsFile(labels) << u"images"_s
                                          << u"this idx file has 1 dimension; an images file has 3"_s;
        QTest::newRow("float values")
            << QByteArray("\x00\x00\x0D\x03", 4) + QByteArray(12, '\0') << labelsFile(labels) << u"images"_s
            << u"idx values of type 0x0d: only unsigned bytes (0x08, as in MNIST) can be read"_s;
        QTest::newRow("label count") << imagesFile(pixels, 5, 4, 3) << labelsFile(labels.first(4)) << u"labels"_s
                                     << u"the labels file holds 4 labels for 5 images"_s;
    }
    void errors()
    {
        QFETCH(QByteArray, images);
        QFETCH(QByteArray, labels);
        QFETCH(QString, file);
        QFETCH(QString, message);
        for (bool compressed : {false, true}) {
            const QString dir =
                folder(u"errors-%1-%2"_s.arg(QString::fromUtf8(QTest::currentDataTag())).arg(compressed));
            const QString imagesPath = dir + u"/train-images-idx3-ubyte"_s;
            const QString labelsPath = dir + u"/train-labels-idx1-ubyte"_s;
            writeFileOrStop(imagesPath, images);
            writeFileOrStop(labelsPath, labels);
            QString suffix;
            if (compressed) {
                if (!gzip(imagesPath) || !gzip(labelsPath))
                    QSKIP("no gzip to compress the test files");
                QFile::remove(imagesPath);
                QFile::remove(labelsPath);
                suffix = u".gz"_s;
            }
            const auto data = loadDataset(imagesPath + suffix);
            QVERIFY(!data);
            QCOMPARE(data.error().message, message);
            QCOMPARE(data.error().path, (file == u"images"_s ? imagesPath : labelsPath) + suffix);
            QVERIFY(!data.error().hint.isEmpty());
        }
    }

    void damagedGzip()
    {
        const QString dir = folder(u"damaged"_s);
        writeFileOrStop(dir + u"/train-images-idx3-ubyte"_s, imagesFile(m_pixels, 5, 4, 3));
        writeFileOrStop(dir + u"/train-labels-idx1-ubyte"_s, labelsFile(m_labels));
        if (!gzip(dir + u"/train-images-idx3-ubyte"_s))
            QSKIP("no gzip to compress the test files");
        QFile file(dir + u"/train-images-idx3-ubyte.gz"_s);
        QVERIFY(file.open(QIODevice::ReadWrite));
        const QByteArray compressed = file.readAll();
        QVERIFY(file.resize(compressed.size() / 2));
        file.close();
        const auto cut = loadDataset(dir + u"/train-images-idx3-ubyte.gz"_s);
        QVERIFY(!cut);
        QCOMPARE(cut.error().path, dir + u"/train-images-idx3-ubyte.gz"_s);

        writeFileOrStop(dir + u"/train-images-idx3-ubyte.gz"_s, imagesFile(m_pixels, 5, 4, 3)); // not compressed
        const auto plain = loadDataset(dir + u"/train-images-idx3-ubyte.gz"_s);
        QVERIFY(!plain);
        QCOMPARE(plain.error().message, u"not a gzip file, although its name ends in .gz"_s);
    }

    void missingPartner()
    {
        const QString dir = folder(u"alone"_s);
        writeFileOrStop(dir + u"/train-images-idx3-ubyte"_s, imagesFile(m_pixels, 5, 4, 3));
        const auto data = loadDataset(dir + u"/train-images-idx3-ubyte"_s);
        QVERIFY(!data);
        QCOMPARE(data.error().message, u"no labels file beside the images: expected train-labels-idx1-ubyte"_s);
        QCOMPARE(data.error().path, dir + u"/train-images-idx3-ubyte"_s);

        const QString labelsOnly = folder(u"labels-only"_s);
        writeFileOrStop(labelsOnly + u"/train-labels-idx1-ubyte"_s, labelsFile(m_labels));
        const auto noImages = loadDataset(labelsOnly + u"/train-labels-idx1-ubyte"_s);
        QVERIFY(!noImages);
        QVERIFY(noImages.error().message.startsWith(u"this is a labels file, and no images file lies beside it"_s));
    }
};

FERRY_TEST_APPLESS_MAIN(TestIdxReader)
#include "tst_idxreader.moc"
