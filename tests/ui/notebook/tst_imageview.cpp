// An image output (ui/notebook/imageview.h): its size from the header before anything is
// decoded, decoded when it is drawn, a PNG and a JPEG, base64 as a string or a list of lines, a
// broken one drawn as nothing; the decoded images of all views kept within their budget, the
// least recently drawn dropped first, and decoded again when drawn again.
#include "ui/notebook/imageview.h"

#include "support/testmain.h"

#include <QBuffer>
#include <QJsonArray>
#include <QTest>

#include <memory>
#include <vector>

using namespace Qt::StringLiterals;
using ferry::ui::ImageView;

namespace {

QString encodedImage(const QImage &image, const char *format)
{
    QByteArray bytes;
    QBuffer buffer(&bytes);
    (void)buffer.open(QIODevice::WriteOnly);
    (void)image.save(&buffer, format);
    return QString::fromLatin1(bytes.toBase64());
}

QImage filledImage(QSize size, QColor color)
{
    QImage image(size, QImage::Format_RGB32);
    image.fill(color);
    return image;
}

} // namespace

class TestImageView : public QObject {
    Q_OBJECT
private Q_SLOTS:
    void sizeFirstPixelsWhenDrawn()
    {
        ImageView png(QJsonValue(encodedImage(filledImage({640, 480}, Qt::blue), "PNG")));
        QCOMPARE(png.imageSize(), QSize(640, 480));
        QCOMPARE(png.sizeHint(), QSize(640, 480));
        QVERIFY(!png.isDecoded());
        png.show();
        QVERIFY(QTest::qWaitForWindowExposed(&png));
        QTRY_VERIFY(png.isDecoded());
        QCOMPARE(png.image().pixelColor(10, 10), QColor(Qt::blue));

        // nbformat may hold the base64 as a list of lines.
        const QString jpeg = encodedImage(filledImage({300, 200}, Qt::green), "JPEG");
        QJsonArray lines;
        for (qsizetype at = 0; at < jpeg.size(); at += 76)
            lines.append(QString(jpeg.mid(at, 76) + u'\n'));
        ImageView split{QJsonValue(lines)};
        QCOMPARE(split.imageSize(), QSize(300, 200));
        QCOMPARE(split.image().size(), QSize(300, 200));

        ImageView broken(QJsonValue(u"bm90IGFuIGltYWdl"_s));
        QCOMPARE(broken.imageSize(), QSize(0, 0));
        broken.resize(50, 50); // a window of no size is never shown
        broken.show();
        QVERIFY(QTest::qWaitForWindowExposed(&broken));
    }

    // Six images of 16 MiB decoded in turn: no more than the budget holds stay decoded, the last
    // drawn among them; one dropped is decoded again when asked.
    void decodedImagesWithinTheBudget()
    {
        const QString big = encodedImage(filledImage({2048, 2048}, Qt::gray), "PNG");
        std::vector<std::unique_ptr<ImageView>> views;
        for (int i = 0; i < 6; ++i) {
            views.push_back(std::make_unique<ImageView>(QJsonValue(big)));
            QCOMPARE(views.back()->image().size(), QSize(2048, 2048));
        }
        const qsizetype each = views.front()->image().sizeInBytes(); // decoded again: now the latest
        int decoded = 0;
        for (const auto &view : views)
            decoded += view->isDecoded() ? 1 : 0;
        QVERIFY2(decoded * each <= ImageView::kDecodedBudget, qPrintable(QString::number(decoded)));
        QVERIFY(decoded >= 2);
        QVERIFY(views.front()->isDecoded());
        QVERIFY(views.back()->isDecoded());
        QVERIFY(!views.at(1)->isDecoded()); // the least recently drawn
        views.clear();                      // a view gone takes its image with it
    }
};

FERRY_TEST_MAIN(TestImageView)
#include "tst_imageview.moc"
