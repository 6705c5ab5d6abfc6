// An image output of a notebook cell (image/png, image/jpeg), drawn from the base64 the notebook
// holds. Its size is read from the image's header when the view is made; its pixels are decoded
// when it is first drawn and kept in a cache every view shares, bounded (kDecodedBudget bytes,
// the least recently drawn dropped first): a notebook of a hundred figures opens without decoding
// one, and scrolling through it keeps a few decoded, not all.
#pragma once

#include <QImage>
#include <QJsonValue>
#include <QWidget>

namespace ferry::ui {

class ImageView : public QWidget {
    Q_OBJECT
public:
    // `encoded`: the output bundle's value (base64, a string or a list of lines as nbformat allows).
    explicit ImageView(QJsonValue encoded, QWidget *parent = nullptr);
    ~ImageView() override;

    // The image's size, from its header (empty when it cannot be read: then nothing is drawn).
    QSize imageSize() const { return m_size; }
    // The decoded image: from the cache, or decoded now (and cached).
    QImage image() const;
    // Whether the decoded image is in the cache now.
    bool isDecoded() const;

    // Decoded images kept for all views together, bytes.
    static constexpr qsizetype kDecodedBudget = qsizetype(64) << 20;

    QSize sizeHint() const override { return m_size; }
    QSize minimumSizeHint() const override { return m_size; }

protected:
    void paintEvent(QPaintEvent *event) override;

private:
    QJsonValue m_data; // shares the notebook's JSON: nothing copied until decoded
    QSize m_size;
};

} // namespace ferry::ui
