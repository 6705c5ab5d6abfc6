#include "ui/notebook/imageview.h"

#include "notebook/jupyterjson.h"

#include <QBuffer>
#include <QCache>
#include <QImageReader>
#include <QPainter>

namespace ferry::ui {

namespace {

// The decoded images of every view, by view, their cost in bytes.
QCache<const ImageView *, QImage> &decodedImages()
{
    static QCache<const ImageView *, QImage> cache(ImageView::kDecodedBudget);
    return cache;
}

QSize sizeFromHeader(const QByteArray &bytes)
{
    QBuffer buffer;
    buffer.setData(bytes);
    QImageReader reader(&buffer);
    return reader.size();
}

} // namespace

ImageView::ImageView(QJsonValue encoded, QWidget *parent) : QWidget(parent), m_data(std::move(encoded))
{
    // A PNG's size is in its first bytes; a JPEG's may come after its metadata: then all of it.
    const QString text = notebook::joinedText(m_data);
    m_size = sizeFromHeader(QByteArray::fromBase64(QStringView(text).left(512).toLatin1()));
    if (!m_size.isValid())
        m_size = sizeFromHeader(QByteArray::fromBase64(text.toLatin1()));
    if (!m_size.isValid())
        m_size = QSize(0, 0);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
}

ImageView::~ImageView()
{
    decodedImages().remove(this);
}

bool ImageView::isDecoded() const
{
    return decodedImages().contains(this);
}

QImage ImageView::image() const
{
    if (const QImage *cached = decodedImages().object(this))
        return *cached;
    QImage image;
    image.loadFromData(QByteArray::fromBase64(notebook::joinedText(m_data).toLatin1()));
    // Drawn as it is, without a conversion at each paint.
    image.convertTo(image.hasAlphaChannel() ? QImage::Format_ARGB32_Premultiplied : QImage::Format_RGB32);
    decodedImages().insert(this, new QImage(image), qMax<qsizetype>(1, image.sizeInBytes()));
    return image;
}

void ImageView::paintEvent(QPaintEvent *)
{
    if (m_size.isEmpty())
        return;
    QPainter painter(this);
    painter.drawImage(0, 0, image());
}

} // namespace ferry::ui
