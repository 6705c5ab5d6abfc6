// What a dropped path holds (detectDataset, core/data/detect.cpp): tables, image folders and
// idx files, found without a full parse; unknown files get the list of supported formats.
#include "data/dataset.h"
#include "support/files.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#if FERRY_HAS_GUI
#include <QImage>
#endif

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

} // namespace

class TestDatasetDetect : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;
    QString path(const QString &relative) const { return m_dir.filePath(relative); }

private Q_SLOTS:
    void initTestCase() { QVERIFY(m_dir.isValid()); }

    void table()
    {
        QByteArray content = "a,b,species\n";
        for (int i = 0; i < 1000; ++i)
            content += QByteArray::number(i) + ',' + QByteArray::number(i * 0.5) + (i % 2 ? ",cat\n" : ",dog\n");
        writeFileOrStop(path(u"pets.csv"_s), content);
        const auto info = detectDataset(path(u"pets.csv"_s));
        QVERIFY2(info, qPrintable(info ? QString() : info.error().toString()));
        QCOMPARE(info->kind, DatasetKind::Table);
        QCOMPARE(info->format, u"csv"_s);
        QCOMPARE(info->path, path(u"pets.csv"_s));
        QCOMPARE(info->samples, 1000);
        QCOMPARE(info->bytes, content.size());
        QCOMPARE(info->shape, QList<int>({2}));
        QCOMPARE(info->columns, QStringList({u"a"_s, u"b"_s, u"species"_s}));
        QCOMPARE(info->columnTypes, QStringList({u"number"_s, u"number"_s, u"text"_s}));
        QCOMPARE(info->head.size(), 10);
        QCOMPARE(info->head[1], QStringList({u"1"_s, u"0.5"_s, u"cat"_s}));
        QVERIFY(info->classCounts.isEmpty());
        QVERIFY2(info->problems.isEmpty(), qPrintable(info->problems.join(u'\n')));
    }

    void tableProblems()
    {
        writeFileOrStop(path(u"problems.tsv"_s), "x\tname\ty\n1\tbob\t2\n3\t4\n5\tNA\t6\n");
        const auto info = detectDataset(path(u"problems.tsv"_s));
        QVERIFY(info);
        QCOMPARE(info->format, u"tsv"_s);
        QCOMPARE(info->samples, 3);
        QVERIFY2(info->problems.contains(u"line 3: 2 columns, not 3"_s), qPrintable(info->problems.join(u'\n')));
        QVERIFY2(
            info->problems.contains(
                u"column 'name' holds text ('bob'): only the target column may; choose it as the target or remove it"_s),
            qPrintable(info->problems.join(u'\n')));
        QVERIFY2(
            info->problems.contains(u"1 of the first 3 rows have missing values (dropped, or filled with the mean)"_s),
            qPrintable(info->problems.join(u'\n')));
    }

    // Rows are counted over the whole file (not the sniffed start), quoted line breaks and
    // blank lines included.
    void bigTableCount()
    {
        QByteArray plain = "a,b,c\n";
        QByteArray quoted = "a,b,c\n";
        const int rows = 300000;
        for (int i = 0; i < rows; ++i) {
            plain += QByteArray::number(i) + ",2.5,3\n";
            quoted += QByteArray::number(i) + (i % 1000 == 0 ? ",\"two\nlines\",3\n" : ",\"x\",3\n");
            if (i % 5000 == 0) {
                plain += "\r\n";
                quoted += "\n";
            }
        }
        writeFileOrStop(path(u"big_plain.csv"_s), plain);
        writeFileOrStop(path(u"big_quoted.csv"_s), quoted);
        for (const QString &name : {u"big_plain.csv"_s, u"big_quoted.csv"_s}) {
            const auto info = detectDataset(path(name));
            QVERIFY2(info, qPrintable(info ? QString() : info.error().toString()));
            QCOMPARE(info->samples, rows);
            QCOMPARE(info->head.size(), 10);
        }
        QVERIFY(QFileInfo(path(u"big_plain.csv"_s)).size() > 3 * 1024 * 1024);
    }

    void idx()
    {
        const QByteArray images =
            QByteArray("\x00\x00\x08\x03", 4) + bigEndian(4) + bigEndian(2) + bigEndian(3) + QByteArray(24, '\x7f');
        const QByteArray labels = QByteArray("\x00\x00\x08\x01", 4) + bigEndian(4) + QByteArray("\x05\x01\x05\x05", 4);
        writeFileOrStop(path(u"mnist/train-images-idx3-ubyte"_s), images);
        writeFileOrStop(path(u"mnist/train-labels-idx1-ubyte"_s), labels);
        for (const QString &where : {path(u"mnist"_s), path(u"mnist/train-images-idx3-ubyte"_s)}) {
            const auto info = detectDataset(where);
            QVERIFY2(info, qPrintable(info ? QString() : info.error().toString()));
            QCOMPARE(info->kind, DatasetKind::Idx);
            QCOMPARE(info->format, u"mnist-idx"_s);
            QCOMPARE(info->samples, 4);
            QCOMPARE(info->shape, QList<int>({1, 2, 3}));
            QCOMPARE(info->bytes, images.size() + labels.size());
            const QList<QPair<QString, qsizetype>> counts = {{u"1"_s, 1}, {u"5"_s, 3}};
            QCOMPARE(info->classCounts, counts);
            QVERIFY(info->problems.isEmpty());
        }
        // A truncated images file is a problem to show, not a failure to detect.
        writeFileOrStop(path(u"cut/train-images-idx3-ubyte"_s), images.chopped(4));
        writeFileOrStop(path(u"cut/train-labels-idx1-ubyte"_s), labels);
        const auto cut = detectDataset(path(u"cut"_s));
        QVERIFY(cut);
        QCOMPARE(cut->problems.size(), 1);
        QVERIFY(cut->problems.first().contains(u"truncated"_s));
    }

    void imageFolder()
    {
        const QString root = path(u"pictures"_s);
#if FERRY_HAS_GUI
        QImage wide(30, 20, QImage::Format_RGB32);
        wide.fill(qRgb(10, 200, 30));
        QVERIFY(QDir().mkpath(root + u"/cats"_s) && QDir().mkpath(root + u"/dogs"_s));
        QVERIFY(wide.save(root + u"/cats/1.png"_s));
        QVERIFY(wide.save(root + u"/cats/2.jpg"_s));
        QVERIFY(wide.save(root + u"/dogs/1.png"_s));
#else
        writeFileOrStop(root + u"/cats/1.png"_s, "\x89PNG\r\n\x1a\n");
        writeFileOrStop(root + u"/cats/2.jpg"_s, "\xFF\xD8\xFF");
        writeFileOrStop(root + u"/dogs/1.png"_s, "\x89PNG\r\n\x1a\n");
#endif
        writeFileOrStop(root + u"/dogs/labels.csv"_s, "not an image");
        QVERIFY(QDir().mkpath(root + u"/fish"_s));
        const auto info = detectDataset(root);
        QVERIFY2(info, qPrintable(info ? QString() : info.error().toString()));
        QCOMPARE(info->kind, DatasetKind::ImageFolder);
        QCOMPARE(info->format, u"image-folder"_s);
        QCOMPARE(info->samples, 3);
        const QList<QPair<QString, qsizetype>> counts = {{u"cats"_s, 2}, {u"dogs"_s, 1}, {u"fish"_s, 0}};
        QCOMPARE(info->classCounts, counts);
        QVERIFY(info->problems.contains(u"class 'fish' has no images"_s));
        QVERIFY(info->problems.contains(u"skipped 1 files that are not images (labels.csv)"_s));
#if FERRY_HAS_GUI
        QCOMPARE(info->shape, QList<int>({3, 20, 30})); // from the first image's header
#else
        QVERIFY(info->shape.isEmpty());
        QVERIFY2(info->problems.last().contains(u"without Qt Gui and cannot decode images"_s),
                 qPrintable(info->problems.join(u'\n')));
#endif
    }

    void unknown()
    {
        writeFileOrStop(path(u"model.pt"_s), "PK\x03\x04");
        const auto info = detectDataset(path(u"model.pt"_s));
        QVERIFY(!info);
        QCOMPARE(info.error().message, u"Ferry cannot read '.pt' files as a dataset"_s);
        QVERIFY(info.error().hint.contains(u"CSV/TSV tables"_s));
        QVERIFY(info.error().hint.contains(u"image folders"_s));
        QVERIFY(info.error().hint.contains(u"idx"_s));
        const auto load = loadDataset(path(u"model.pt"_s));
        QVERIFY(!load);
        QCOMPARE(load.error().message, info.error().message);

        const auto missing = detectDataset(path(u"absent.csv"_s));
        QVERIFY(!missing);
        QCOMPARE(missing.error().message, u"no such file or folder"_s);

        writeFileOrStop(path(u"empty.csv"_s), "");
        const auto empty = detectDataset(path(u"empty.csv"_s));
        QVERIFY(!empty);
        QCOMPARE(empty.error().message, u"the file is empty"_s);

        writeFileOrStop(path(u"photo.png"_s), "\x89PNG\r\n\x1a\n");
        const auto image = detectDataset(path(u"photo.png"_s));
        QVERIFY(!image);
        QCOMPARE(image.error().message, u"a single image is not a dataset"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestDatasetDetect)
#include "tst_datasetdetect.moc"
