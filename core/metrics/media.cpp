#include "metrics/media.h"

#include "common/crc32c.h"
#include "common/untrustedtree.h"
#include "metrics/mediaproblem.h"
#include "metrics/metricnames.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QtEndian>

#include <cmath>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

QString mib(qint64 bytes)
{
    if (bytes >= (1ll << 30))
        return u"%1 GiB"_s.arg(double(bytes) / double(1ll << 30), 0, 'f', 1);
    return u"%1 MiB"_s.arg(double(bytes) / double(1 << 20), 0, 'f', 0);
}

Expected<ImageInfo> checkedSize(QString format, qint64 width, qint64 height, const MediaLimits &limits)
{
    if (width <= 0 || height <= 0)
        return media::problem(
            u"its %1 header says %2 x %3 pixels: no image"_s.arg(format.toUpper()).arg(width).arg(height));
    const qint64 pixels = width * height; // both below 2^31: no overflow
    if (width > limits.maxImageSide || height > limits.maxImageSide || pixels > limits.maxImagePixels)
        return media::problem(u"its %1 header says %2 x %3 pixels, %4 once decoded: more than the %5 pixels (%6) an "
                              "image may have (a decompression bomb, or no image to show)"_s.arg(format.toUpper())
                                  .arg(width)
                                  .arg(height)
                                  .arg(mib(pixels * 4))
                                  .arg(limits.maxImagePixels)
                                  .arg(mib(limits.maxImagePixels * 4)));
    return ImageInfo{std::move(format), int(width), int(height)};
}

Expected<ImageInfo> pngInfo(QByteArrayView b, const MediaLimits &limits)
{
    // The signature, then IHDR: length 13, "IHDR", width, height, bit depth, colour type, ...
    if (b.size() < 33 || qFromBigEndian<quint32>(b.data() + 8) != 13 || b.sliced(12, 4) != "IHDR")
        return media::problem(u"a PNG without its IHDR header"_s);
    const quint32 width = qFromBigEndian<quint32>(b.data() + 16);
    const quint32 height = qFromBigEndian<quint32>(b.data() + 20);
    if (width > 0x7fffffffu || height > 0x7fffffffu)
        return media::problem(u"its PNG header says %1 x %2 pixels: no image"_s.arg(width).arg(height));
    return checkedSize(mediaformat::kPng, width, height, limits);
}

bool isJpegFrameMarker(quint8 m)
{
    return m >= 0xc0 && m <= 0xcf && m != 0xc4 && m != 0xc8 && m != 0xcc;
}

Expected<ImageInfo> jpegInfo(QByteArrayView b, const MediaLimits &limits)
{
    // Segments after SOI (FF D8) until the frame header (SOFn): its height and width.
    qsizetype at = 2;
    for (;;) {
        while (at < b.size() && quint8(b[at]) == 0xff && at + 1 < b.size() && quint8(b[at + 1]) == 0xff)
            ++at; // fill bytes
        if (at + 4 > b.size() || quint8(b[at]) != 0xff)
            return media::problem(u"a JPEG without a frame header"_s);
        const quint8 marker = quint8(b[at + 1]);
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
            at += 2;
            continue;
        }
        if (marker == 0xd9 || marker == 0xda)
            return media::problem(u"a JPEG without a frame header"_s);
        const quint16 length = qFromBigEndian<quint16>(b.data() + at + 2);
        if (length < 2)
            return media::problem(u"a JPEG whose segment at byte %1 is damaged"_s.arg(at));
        if (isJpegFrameMarker(marker)) {
            if (at + 9 > b.size() || length < 7)
                return media::problem(u"a JPEG whose frame header is cut short"_s);
            const quint16 height = qFromBigEndian<quint16>(b.data() + at + 5);
            const quint16 width = qFromBigEndian<quint16>(b.data() + at + 7);
            return checkedSize(mediaformat::kJpeg, width, height, limits);
        }
        at += 2 + length;
    }
}

Expected<ImageInfo> gifInfo(QByteArrayView b, const MediaLimits &limits)
{
    if (b.size() < 10)
        return media::problem(u"a GIF without its screen descriptor"_s);
    return checkedSize(mediaformat::kGif, qFromLittleEndian<quint16>(b.data() + 6),
                       qFromLittleEndian<quint16>(b.data() + 8), limits);
}

} // namespace

QString mediaKindText(MediaKind kind)
{
    switch (kind) {
    case MediaKind::Image:
        return u"image"_s;
    case MediaKind::Histogram:
        return u"histogram"_s;
    case MediaKind::Text:
        break;
    }
    return u"text"_s;
}

std::optional<MediaKind> mediaKindFromText(QStringView text)
{
    for (const MediaKind kind : {MediaKind::Image, MediaKind::Histogram, MediaKind::Text}) {
        if (text == mediaKindText(kind))
            return kind;
    }
    return std::nullopt;
}

Expected<ImageInfo> imageInfo(QByteArrayView bytes, const MediaLimits &limits)
{
    if (bytes.size() > limits.maxImageBytes)
        return media::problem(
            u"an image of %1 bytes, more than the %2 an image may have"_s.arg(bytes.size()).arg(limits.maxImageBytes));
    if (bytes.startsWith("\x89PNG\r\n\x1a\n"))
        return pngInfo(bytes, limits);
    if (bytes.startsWith("\xff\xd8\xff"))
        return jpegInfo(bytes, limits);
    if (bytes.startsWith("GIF87a") || bytes.startsWith("GIF89a"))
        return gifInfo(bytes, limits);
    return media::problem(u"not a PNG, JPEG or GIF image"_s);
}

bool isWholeImage(QByteArrayView bytes)
{
    if (bytes.startsWith("\x89PNG"))
        return bytes.endsWith(QByteArrayView("\0\0\0\0IEND\xae\x42\x60\x82", 12));
    if (bytes.startsWith("\xff\xd8"))
        return bytes.endsWith("\xff\xd9");
    if (bytes.startsWith("GIF"))
        return bytes.endsWith(";");
    return true;
}

bool isImageFileName(QStringView name)
{
    for (const QStringView suffix : {u".png", u".jpg", u".jpeg", u".gif"}) {
        if (name.size() > suffix.size() && name.endsWith(suffix, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

Expected<void> checkHistogram(const Histogram &h, const MediaLimits &limits)
{
    if (qsizetype(h.bucketLimit.size()) > limits.maxBins || qsizetype(h.bucket.size()) > limits.maxBins)
        return media::bucketProblem(
            u"%1 buckets, more than the %2 a histogram may have"_s.arg(std::max(h.bucketLimit.size(), h.bucket.size()))
                .arg(limits.maxBins));
    if (h.bucketLimit.size() != h.bucket.size())
        return media::bucketProblem(
            u"%1 bucket limits for %2 buckets"_s.arg(h.bucketLimit.size()).arg(h.bucket.size()));
    for (std::size_t i = 0; i < h.bucketLimit.size(); ++i) {
        if (std::isnan(h.bucketLimit[i]))
            return media::bucketProblem(u"a NaN bucket limit (bucket %1)"_s.arg(i));
        if (i > 0 && h.bucketLimit[i] < h.bucketLimit[i - 1])
            return media::bucketProblem(u"bucket limits that decrease (bucket %1)"_s.arg(i));
        if (!std::isfinite(h.bucket[i]) || h.bucket[i] < 0)
            return media::bucketProblem(u"a count of %1 (bucket %2)"_s.arg(media::numberText(h.bucket[i])).arg(i));
    }
    return {};
}

Expected<HistogramLine> histogramFromLine(QByteArrayView line, const MediaLimits &limits)
{
    if (line.size() > limits.maxLineBytes)
        return media::problem(u"a line longer than %1 bytes"_s.arg(limits.maxLineBytes));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(line.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError) {
        const QByteArrayView at = line.sliced(std::clamp<qsizetype>(error.offset, 0, line.size()));
        if (at.startsWith("NaN") || at.startsWith("Infinity"))
            return media::problem(
                u"a NaN or infinite number, which JSON does not have (Python's json.dumps writes them "
                "unless allow_nan=False): a histogram's limits and counts are finite numbers"_s);
        return media::problem(u"not JSON: %1 at character %2"_s.arg(error.errorString()).arg(error.offset));
    }
    if (!doc.isObject())
        return media::problem(u"not a JSON object"_s);
    const QJsonObject o = doc.object();
    HistogramLine out;
    out.tag = o.value(u"tag"_s).toString();
    if (const QString why = metricNameProblem(out.tag); !why.isEmpty())
        return media::problem(u"its \"tag\" is no tag: %1"_s.arg(why));
    const QJsonValue step = o.value(u"step"_s);
    if (!step.isDouble() || step.toDouble() != std::trunc(step.toDouble()) || std::fabs(step.toDouble()) > 9.0e15)
        return media::problem(u"no whole \"step\""_s);
    out.step = qint64(step.toDouble());
    if (const QJsonValue wall = o.value(u"wall_time"_s);
        wall.isDouble() && std::isfinite(wall.toDouble() * 1000) && std::fabs(wall.toDouble() * 1000) < 9.0e15)
        out.wallMs = std::llround(wall.toDouble() * 1000);
    const QJsonValue limitsValue = o.value(u"bucket_limit"_s), bucketsValue = o.value(u"bucket"_s);
    if (!limitsValue.isArray() || !bucketsValue.isArray())
        return media::problem(u"no \"bucket_limit\" and \"bucket\" arrays"_s);
    const QJsonArray limitsArray = limitsValue.toArray(), bucketsArray = bucketsValue.toArray();
    if (limitsArray.size() > limits.maxBins || bucketsArray.size() > limits.maxBins)
        return media::bucketProblem(u"%1 buckets, more than the %2 a histogram may have"_s
                                        .arg(std::max(limitsArray.size(), bucketsArray.size()))
                                        .arg(limits.maxBins));
    Histogram &h = out.histogram;
    for (const auto &[array, values] : {std::pair{&limitsArray, &h.bucketLimit}, {&bucketsArray, &h.bucket}}) {
        values->reserve(std::size_t(array->size()));
        for (const QJsonValue v : *array) {
            if (!v.isDouble())
                return media::bucketProblem(u"a bucket limit or count that is no number"_s);
            values->push_back(v.toDouble());
        }
    }
    const auto number = [&o](const QString &key) {
        const QJsonValue v = o.value(key);
        return v.isDouble() ? v.toDouble() : media::kNaN;
    };
    h.min = number(u"min"_s);
    h.max = number(u"max"_s);
    h.sum = number(u"sum"_s);
    h.sumSquares = number(u"sum_squares"_s);
    if (auto checked = checkHistogram(h, limits); !checked)
        return checked.error();
    h.num = number(u"num"_s);
    if (std::isnan(h.num)) {
        h.num = 0;
        for (const double count : h.bucket)
            h.num += count;
    }
    return out;
}

HistogramLinesReader::HistogramLinesReader(QString path, MediaLimits limits) : m_path(std::move(path)), m_limits(limits)
{
}

HistogramLinesReader::Read HistogramLinesReader::read(QByteArrayView bytes)
{
    Read out;
    qsizetype at = 0;
    const auto refuse = [&](qint64 where, const QString &what) {
        out.refused << Error{u"histograms: the line at byte %1 is refused: %2"_s.arg(where).arg(what), m_path, 0, 0,
                             u"the lines after it are read"_s};
    };
    while (at < bytes.size()) {
        const qsizetype newline = bytes.indexOf('\n', at);
        if (m_skipping) {
            if (newline < 0) {
                at = bytes.size();
                break;
            }
            m_skipping = false;
            at = newline + 1;
            continue;
        }
        if (newline < 0) {
            if (bytes.size() - at > m_limits.maxLineBytes) {
                refuse(m_offset + at, u"longer than %1 bytes"_s.arg(m_limits.maxLineBytes));
                m_skipping = true;
                at = bytes.size();
            }
            break; // a line still being written
        }
        QByteArrayView line = bytes.sliced(at, newline - at);
        if (line.endsWith('\r'))
            line.chop(1);
        const qint64 where = m_offset + at;
        at = newline + 1;
        if (line.trimmed().isEmpty())
            continue;
        auto parsed = histogramFromLine(line, m_limits);
        if (!parsed) {
            refuse(where, parsed.error().message);
            continue;
        }
        MediaItem item;
        item.kind = MediaKind::Histogram;
        item.tag = parsed->tag;
        item.step = parsed->step;
        item.wallMs = parsed->wallMs;
        item.offset = where;
        item.length = line.size();
        item.format = mediaformat::kHistogramLine;
        item.checksum = crc32c(line);
        out.items << item;
    }
    m_offset += at;
    return out;
}

Expected<QByteArray> readMediaBytes(const QString &runDir, const MediaItem &item, const MediaLimits &limits)
{
    const QString path = runDir + u'/' + item.file;
    const auto failed = [&](const QString &what) {
        return Error{u"%1 '%2' at step %3: %4"_s.arg(mediaKindText(item.kind), item.tag).arg(item.step).arg(what),
                     path,
                     0,
                     0,
                     {}};
    };
    // An event file's record is at most maxImageBytes long; a line at most maxLineBytes.
    const qint64 most = item.format == mediaformat::kHistogramLine ? limits.maxLineBytes : limits.maxImageBytes;
    if (item.length < 0 || item.length > most || item.offset < 0)
        return failed(u"its index claims %1 bytes, more than it may have"_s.arg(item.length));
    auto bytes = readTreeFile(runDir, item.file, item.offset, item.length);
    if (!bytes)
        return bytes.error();
    if (!*bytes)
        return failed(u"its file is no longer there"_s);
    if ((*bytes)->size() != item.length || crc32c(**bytes) != item.checksum)
        return failed(u"its file has changed since Ferry read it (following the run again reads it anew)"_s);
    if (item.kind == MediaKind::Image) {
        if (auto info = imageInfo(**bytes, limits); !info)
            return failed(info.error().message);
    }
    return std::move(**bytes);
}

Expected<Histogram> readHistogram(const QString &runDir, const MediaItem &item, const MediaLimits &limits)
{
    auto bytes = readMediaBytes(runDir, item, limits);
    if (!bytes)
        return bytes.error();
    Expected<Histogram> h = Error{};
    if (item.format == mediaformat::kHistogramProto)
        h = histogramFromProto(*bytes, limits);
    else if (item.format == mediaformat::kHistogramTensor)
        h = histogramFromTensor(*bytes, limits);
    else if (item.format == mediaformat::kHistogramLine) {
        auto line = histogramFromLine(*bytes, limits);
        h = line ? Expected<Histogram>(std::move(line->histogram)) : Expected<Histogram>(line.error());
    } else {
        h = media::problem(u"a histogram stored as '%1', which this Ferry does not read"_s.arg(item.format));
    }
    if (!h)
        return Error{u"histogram '%1' at step %2: %3"_s.arg(item.tag).arg(item.step).arg(h.error().message),
                     runDir + u'/' + item.file,
                     0,
                     0,
                     {}};
    return h;
}

Expected<QString> readText(const QString &runDir, const MediaItem &item, const MediaLimits &limits)
{
    auto bytes = readMediaBytes(runDir, item, limits);
    if (!bytes)
        return bytes.error();
    auto text = textFromTensor(*bytes, limits);
    if (!text)
        return Error{u"text '%1' at step %2: %3"_s.arg(item.tag).arg(item.step).arg(text.error().message),
                     runDir + u'/' + item.file,
                     0,
                     0,
                     {}};
    return text;
}

} // namespace ferry::run
