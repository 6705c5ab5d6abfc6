// Image folders (core/data/imagefolder.cpp): one subfolder per class, drawn here as PNG and
// JPEG files; shapes, pixel values, resizing, channels, errors and cancelling. A build without
// Qt Gui refuses images with one clear message.
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

#if FERRY_HAS_GUI
// Vertical white bars on black, or a white cross on black.
QImage pattern(bool bars, int size)
{
    QImage image(size, size, QImage::Format_RGB32);
    for (int y = 0; y < size; ++y) {
        for (int x = 0; x < size; ++x) {
            const bool white = bars ? (x / 2) % 2 == 0 : (x == size / 2 || y == size / 2);
            image.setPixel(x, y, white ? qRgb(255, 255, 255) : qRgb(0, 0, 0));
        }
    }
    return image;
}

QImage filled(QRgb color, int width, int height)
{
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(color);
    return image;
}

void save(const QImage &image, const QString &path)
{
    QDir().mkpath(QFileInfo(path).path());
    if (!image.save(path))
        qFatal("cannot save %s", qPrintable(path));
}
#endif

LoadOptions imageOptions(int width, int height, bool grayscale, int threads = 0)
{
    LoadOptions options;
    options.image.width = width;
    options.image.height = height;
    options.image.grayscale = grayscale;
    options.image.threads = threads;
    return options;
}

} // namespace

class TestImageFolder : public QObject {
    Q_OBJECT

private:
    QTemporaryDir m_dir;

    QString path(const QString &relative) const { return m_dir.filePath(relative); }

#if FERRY_HAS_GUI
    // shapes/bars: a white PNG first, 3 more PNGs, 2 JPEGs, a text file; shapes/crosses: 4 PNGs.
    QString shapes()
    {
        const QString root = path(u"shapes"_s);
        if (QFileInfo::exists(root))
            return root;
        save(filled(qRgb(255, 255, 255), 8, 8), root + u"/bars/a_white.png"_s);
        for (int i = 0; i < 3; ++i)
            save(pattern(true, 8), root + u"/bars/bar%1.png"_s.arg(i));
        for (int i = 0; i < 2; ++i)
            save(pattern(true, 16), root + u"/bars/photo%1.jpg"_s.arg(i));
        writeFileOrStop(root + u"/bars/README.txt"_s, "not an image");
        for (int i = 0; i < 4; ++i)
            save(pattern(false, 12), root + u"/crosses/cross%1.png"_s.arg(i));
        return root;
    }
#endif

private Q_SLOTS:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
    }

#if FERRY_HAS_GUI
    void classesAndShape()
    {
        const auto data = loadDataset(shapes(), imageOptions(8, 8, true, 2));
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->kind, DatasetKind::ImageFolder);
        QCOMPARE(data->task, Task::Classification);
        QCOMPARE(data->classNames, QStringList({u"bars"_s, u"crosses"_s}));
        QCOMPARE(data->count, 10);
        QCOMPARE(data->shape, QList<int>({1, 8, 8}));
        QCOMPARE(data->x.size(), size_t(10 * 64));
        QCOMPARE(data->classes, std::vector<std::int64_t>({0, 0, 0, 0, 0, 0, 1, 1, 1, 1}));
        QVERIFY(data->featureNames.isEmpty());
        QVERIFY2(data->notes.contains(u"skipped 1 files that are not images (README.txt)"_s),
                 qPrintable(data->notes.join(u'\n')));
        // The white image is the first sample: every value 1.
        for (int i = 0; i < 64; ++i)
            QCOMPARE(data->x[size_t(i)], 1.0f);
        // bar0.png: columns 0-1 white, 2-3 black, ... (no resize for an 8×8 image)
        const float *bars = data->x.data() + 64;
        for (int x = 0; x < 8; ++x)
            QCOMPARE(bars[3 * 8 + x], (x / 2) % 2 == 0 ? 1.0f : 0.0f);
        for (float v : data->x)
            QVERIFY(v >= 0.0f && v <= 1.0f);
    }

    void rgb()
    {
        const QString root = path(u"colours"_s);
        save(filled(qRgb(255, 0, 0), 6, 4), root + u"/red/r.png"_s);
        save(filled(qRgb(0, 0, 255), 6, 4), root + u"/blue/b.png"_s);
        const auto data = loadDataset(root, imageOptions(6, 4, false));
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->shape, QList<int>({3, 4, 6}));
        QCOMPARE(data->classNames, QStringList({u"blue"_s, u"red"_s}));
        // Channel planes (CHW): blue first (class order), then red.
        const std::vector<float> blue = {0, 0, 1};
        const std::vector<float> red = {1, 0, 0};
        for (int sample = 0; sample < 2; ++sample) {
            for (int channel = 0; channel < 3; ++channel) {
                for (int i = 0; i < 24; ++i)
                    QCOMPARE(data->x[size_t(sample * 72 + channel * 24 + i)],
                             (sample == 0 ? blue : red)[size_t(channel)]);
            }
        }
        const auto gray = loadDataset(root, imageOptions(6, 4, true));
        QVERIFY(gray);
        QCOMPARE(gray->shape, QList<int>({1, 4, 6}));
        QVERIFY(gray->x[0] > 0.0f && gray->x[0] < 0.5f); // blue is dark in gray
    }

    void resize()
    {
        const QString root = path(u"halves"_s);
        QImage half(40, 20, QImage::Format_RGB32);
        for (int y = 0; y < 20; ++y) {
            for (int x = 0; x < 40; ++x)
                half.setPixel(x, y, x < 20 ? qRgb(0, 0, 0) : qRgb(255, 255, 255));
        }
        save(half, root + u"/a/half.png"_s);
        save(half.mirrored(true, false), root + u"/b/half.jpg"_s);
        const auto data = loadDataset(root, imageOptions(10, 5, true));
        QVERIFY2(data, qPrintable(data ? QString() : data.error().toString()));
        QCOMPARE(data->shape, QList<int>({1, 5, 10}));
        QCOMPARE(data->x.size(), size_t(2 * 50));
        for (int y = 0; y < 5; ++y) {
            QCOMPARE(data->x[size_t(y * 10)], 0.0f);      // left edge: black
            QCOMPARE(data->x[size_t(y * 10 + 9)], 1.0f);  // right edge: white
            QVERIFY(data->x[size_t(50 + y * 10)] > 0.9f); // the mirrored JPEG: white on the left
            QVERIFY(data->x[size_t(50 + y * 10 + 9)] < 0.1f);
        }
    }

    void threadsGiveTheSameResult()
    {
        const auto one = loadDataset(shapes(), imageOptions(5, 7, false, 1));
        const auto four = loadDataset(shapes(), imageOptions(5, 7, false, 4));
        QVERIFY(one && four);
        QVERIFY(one->x == four->x);
        QVERIFY(one->classes == four->classes);
    }

    void corruptImage()
    {
        const QString root = path(u"corrupt"_s);
        save(pattern(true, 8), root + u"/good/a.png"_s);
        save(pattern(false, 8), root + u"/bad/a.png"_s);
        writeFileOrStop(root + u"/bad/broken.png"_s, "\x89PNG\r\n\x1a\n this is not the rest of a PNG");
        const auto data = loadDataset(root);
        QVERIFY(!data);
        QVERIFY2(data.error().message.startsWith(u"cannot decode the image"_s), qPrintable(data.error().message));
        QCOMPARE(data.error().path, root + u"/bad/broken.png"_s);
        QVERIFY(!data.error().hint.isEmpty());
    }

    void emptyClass()
    {
        const QString root = path(u"emptyclass"_s);
        save(pattern(true, 8), root + u"/bars/a.png"_s);
        writeFileOrStop(root + u"/crosses/notes.txt"_s, "no images here");
        const auto data = loadDataset(root);
        QVERIFY(!data);
        QCOMPARE(data.error().message, u"class folder 'crosses' has no images"_s);
        QCOMPARE(data.error().path, root + u"/crosses"_s);
    }

    void looseImages()
    {
        const QString root = path(u"loose"_s);
        save(pattern(true, 8), root + u"/a.png"_s);
        const auto data = loadDataset(root);
        QVERIFY(!data);
        QCOMPARE(data.error().message, u"the images are not sorted into class folders"_s);
    }

    void progressAndCancel()
    {
        const QString root = path(u"many"_s);
        for (int i = 0; i < 60; ++i)
            save(pattern(i % 2 == 0, 32), root + (i % 2 == 0 ? u"/bars/"_s : u"/crosses/"_s) + u"%1.png"_s.arg(i));
        LoadOptions options = imageOptions(16, 16, true, 1);
        qsizetype last = -1;
        bool monotonic = true;
        options.progress = [&](qsizetype done, qsizetype total) {
            monotonic = monotonic && done >= last && total == 60;
            last = done;
        };
        const auto data = loadDataset(root, options);
        QVERIFY(data);
        QVERIFY(monotonic);
        QCOMPARE(last, 60);

        // Cancelled once the first images are in: the load stops with an error.
        bool stop = false;
        options.progress = [&](qsizetype done, qsizetype) { stop = stop || done > 0; };
        options.cancelled = [&] { return stop; };
        const auto cancelled = loadDataset(root, options);
        QVERIFY(!cancelled);
        QCOMPARE(cancelled.error().message, u"loading was cancelled"_s);
    }
#else
    void refusedWithoutGui()
    {
        const QString root = path(u"nogui"_s);
        writeFileOrStop(root + u"/bars/a.png"_s, "\x89PNG\r\n\x1a\n");
        writeFileOrStop(root + u"/crosses/b.png"_s, "\x89PNG\r\n\x1a\n");
        const auto data = loadDataset(root);
        QVERIFY(!data);
        QCOMPARE(data.error().message, u"this build of Ferry was made without Qt Gui and cannot decode images"_s);
        QCOMPARE(data.error().hint, u"install the full build of Ferry"_s);
    }
#endif

    void emptyFolder()
    {
        QVERIFY(QDir().mkpath(path(u"nothing"_s)));
        const auto info = detectDataset(path(u"nothing"_s));
        QVERIFY(!info);
        QCOMPARE(info.error().message, u"the folder is empty: it has no class subfolders"_s);
        QCOMPARE(info.error().path, path(u"nothing"_s));
        if (FERRY_HAS_GUI) {
            const auto data = loadDataset(path(u"nothing"_s));
            QVERIFY(!data);
            QCOMPARE(data.error().message, info.error().message);
        }
    }

    void badSize()
    {
        writeFileOrStop(path(u"sized/a/x.png"_s), "");
        writeFileOrStop(path(u"sized/b/x.png"_s), "");
        const auto data = loadDataset(path(u"sized"_s), imageOptions(0, 28, true));
        QVERIFY(!data);
        if (FERRY_HAS_GUI)
            QCOMPARE(data.error().message, u"cannot resize images to 0×28"_s);
    }
};

FERRY_TEST_APPLESS_MAIN(TestImageFolder)
#include "tst_imagefolder.moc"
