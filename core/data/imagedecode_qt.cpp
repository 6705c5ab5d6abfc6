#include "data/imagedecode.h"

#include <QImage>
#include <QImageReader>

using namespace Qt::StringLiterals;

// QImage needs no QGuiApplication, and QImageReader may be used from any thread.

namespace ferry::data {

bool canDecodeImages()
{
    return true;
}

QStringList imageSuffixes()
{
    QStringList suffixes;
    for (const QByteArray &format : QImageReader::supportedImageFormats()) {
        const QString suffix = QString::fromLatin1(format).toLower();
        if (suffix != u"svg"_s && suffix != u"svgz"_s) // drawings, not photographs of a class
            suffixes.append(suffix);
    }
    return suffixes;
}

Expected<void> decodeImage(const QString &path, const ImageOptions &options, float *out)
{
    QImageReader reader(path);
    QImage image;
    if (!reader.read(&image))
        return Error{u"cannot decode the image: "_s + reader.errorString(), path, 0, 0,
                     u"replace the file with a valid image, or remove it"_s};
    const int width = options.width;
    const int height = options.height;
    if (image.width() != width || image.height() != height)
        image = image.scaled(width, height, Qt::IgnoreAspectRatio, Qt::SmoothTransformation);
    constexpr float scale = 1.0f / 255.0f;
    if (options.grayscale) {
        image.convertTo(QImage::Format_Grayscale8);
        for (int y = 0; y < height; ++y) {
            const uchar *line = image.constScanLine(y);
            float *row = out + qsizetype(y) * width;
            for (int x = 0; x < width; ++x)
                row[x] = float(line[x]) * scale;
        }
        return {};
    }
    image.convertTo(QImage::Format_RGB888);
    const qsizetype plane = qsizetype(width) * height;
    for (int y = 0; y < height; ++y) {
        const uchar *line = image.constScanLine(y);
        for (int x = 0; x < width; ++x) {
            const qsizetype at = qsizetype(y) * width + x;
            out[at] = float(line[3 * x]) * scale;
            out[plane + at] = float(line[3 * x + 1]) * scale;
            out[2 * plane + at] = float(line[3 * x + 2]) * scale;
        }
    }
    return {};
}

Expected<ImageHeader> readImageHeader(const QString &path)
{
    QImageReader reader(path);
    const QSize size = reader.size();
    if (!size.isValid())
        return Error{u"cannot read the image's size: "_s + reader.errorString(), path, 0, 0,
                     u"replace the file with a valid image, or remove it"_s};
    ImageHeader header;
    header.width = size.width();
    header.height = size.height();
    switch (reader.imageFormat()) {
    case QImage::Format_Grayscale8:
    case QImage::Format_Grayscale16:
    case QImage::Format_Mono:
    case QImage::Format_MonoLSB:
        header.channels = 1;
        break;
    default:
        header.channels = 3;
    }
    return header;
}

} // namespace ferry::data
