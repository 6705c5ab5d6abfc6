// L3 (security review; issue 14, item 6): a small dataset whose header asks for more memory than
// the machine has is refused, naming the file and the size, before anything is allocated (Linux
// overcommits, so the allocation itself would not fail; the process would be killed later). Each
// case crafts the file and loads it with the real loader (core/data), in this process: an abort
// would end the test.
#include "common/memorybudget.h"
#include "data/dataset.h"
#include "support/files.h"
#include "support/tarball.h"
#include "support/testmain.h"

#include <QDir>
#include <QFile>
#include <QLocale>
#include <QTemporaryDir>
#include <QTest>

#include <limits>
#include <memory>

using namespace Qt::StringLiterals;
using namespace ferry;
using ferry::test::writeFile;
using ferry::test::writeGzip;

namespace {

QByteArray bigEndian(quint32 v)
{
    const char bytes[4] = {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
    return QByteArray(bytes, 4);
}

// MemAvailable, read here the way a user would look it up.
qint64 memAvailable()
{
    QFile meminfo(u"/proc/meminfo"_s);
    if (!meminfo.open(QIODevice::ReadOnly))
        return -1;
    for (const QByteArray &line : meminfo.readAll().split('\n')) {
        if (line.startsWith("MemAvailable:"))
            return line.mid(13).trimmed().split(' ').value(0).toLongLong() * 1024;
    }
    return -1;
}

// A 1×1 RGB PNG.
const QByteArray kTinyPng = QByteArray::fromBase64(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC");

} // namespace

class TestMemoryBombs : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;

private Q_SLOTS:
    void cleanup() { qunsetenv("FERRY_MEMORY_LIMIT"); }

    // The budget is half of MemAvailable, and FERRY_MEMORY_LIMIT only lowers it.
    void budgetIsHalfOfWhatIsAvailable()
    {
        const qint64 available = memAvailable();
        QVERIFY(available > 0);
        const qint64 budget = memoryBudget();
        QVERIFY2(budget > available / 2 * 8 / 10 && budget < available / 2 * 12 / 10,
                 qPrintable(u"%1 of %2"_s.arg(budget).arg(available)));
        qputenv("FERRY_MEMORY_LIMIT", "1000000");
        QCOMPARE(memoryBudget(), qint64(1000000));
        qputenv("FERRY_MEMORY_LIMIT", QByteArray::number(available * 4));
        QVERIFY(memoryBudget() < available);
        QCOMPARE(saturatingProduct({qint64(1) << 40, qint64(1) << 40}), std::numeric_limits<qint64>::max());
    }

    // A 10,000-column header over 10 MB of blank lines: every line may be a row, 400 GB of floats.
    void csvHeaderTimesLines()
    {
        QByteArrayList columns;
        for (int c = 0; c < 10000; ++c)
            columns << "c" + QByteArray::number(c);
        const QString path = m_dir.filePath(u"wide.csv"_s);
        QVERIFY(writeFile(path, columns.join(',') + ",label\n1" + QByteArray(10000, ',') + "\n" +
                                    QByteArray(10 * 1024 * 1024, '\n')));
        const auto loaded = data::loadDataset(path);
        QVERIFY(!loaded);
        QCOMPARE(loaded.error().path, path);
        QVERIFY2(loaded.error().message.contains(u"rows of 10001 columns needs "_s) &&
                     loaded.error().message.contains(u"GiB of memory; at most"_s),
                 qPrintable(loaded.error().toString()));
    }

    // An idx.gz whose header says 15 images of 16384×16384: 4 GiB decompressed, 15 GiB of floats.
    // Only the header is in the file: the refusal comes before anything is decompressed. The
    // limit makes the case the same on every machine (the header's own cap keeps it under 20 GiB).
    void idxHeaderDims()
    {
        qputenv("FERRY_MEMORY_LIMIT", QByteArray::number(qint64(1) << 30));
        const QString images = m_dir.filePath(u"mnist/train-images-idx3-ubyte.gz"_s);
        QVERIFY(QDir().mkpath(m_dir.filePath(u"mnist"_s)));
        QVERIFY(writeGzip(images, QByteArray::fromHex("00000803") + bigEndian(15) + bigEndian(16384) +
                                      bigEndian(16384) + QByteArray(4096, '\0')));
        QVERIFY(writeGzip(m_dir.filePath(u"mnist/train-labels-idx1-ubyte.gz"_s),
                          QByteArray::fromHex("00000801") + bigEndian(15) + QByteArray(15, '\1')));
        const auto loaded = data::loadDataset(images);
        QVERIFY(!loaded);
        QCOMPARE(loaded.error().path, images);
        // The .gz decompressed, then a float and a class per pixel and image.
        const qint64 need = (16 + 15 * qint64(16384) * 16384) + 15 * (qint64(16384) * 16384 * 4 + 8);
        const QString size = QLocale::c().formattedDataSize(need, 1);
        QVERIFY2(loaded.error().message.contains(
                     u"loading 15 images of 16384×16384 pixels needs %1 of memory"_s.arg(size)) &&
                     loaded.error().message.contains(u"FERRY_MEMORY_LIMIT"_s),
                 qPrintable(loaded.error().toString()));
    }

    // 1,200 images of one pixel, each to be resized to 3×4096×4096 (the size a model card asks
    // for in `ferry predict`): 241 GB of floats.
    void imageFolderCountTimesSize()
    {
        const QString folder = m_dir.filePath(u"images"_s);
        for (int i = 0; i < 1200; ++i)
            QVERIFY(writeFile(u"%1/%2/%3.png"_s.arg(folder, i % 2 ? u"cat"_s : u"dog"_s).arg(i), kTinyPng));
        data::LoadOptions options;
        options.image.width = 4096;
        options.image.height = 4096;
        options.image.grayscale = false;
        const auto loaded = data::loadDataset(folder, options);
        QVERIFY(!loaded);
        QCOMPARE(loaded.error().path, folder);
#if FERRY_HAS_GUI
        QVERIFY2(loaded.error().message.contains(u"loading 1200 images of 3×4096×4096 needs 225.0 GiB of memory"_s),
                 qPrintable(loaded.error().toString()));
#else
        // Without the GUI the build has no image decoder: the loader refuses every folder.
        QVERIFY2(!loaded.error().message.isEmpty(), qPrintable(loaded.error().toString()));
#endif
        // The same images at a sane size load.
        options.image.width = options.image.height = 8;
        const auto small = data::loadDataset(folder, options);
        Q_UNUSED(small)
#if FERRY_HAS_GUI
        QVERIFY2(small, qPrintable(small ? QString() : small.error().toString()));
        QCOMPARE(small->count, 1200);
#endif
    }
};

FERRY_TEST_GUILESS_MAIN(TestMemoryBombs)
#include "tst_memorybombs.moc"
