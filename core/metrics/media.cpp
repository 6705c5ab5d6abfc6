#include "metrics/media.h"

#include "common/crc32c.h"
#include "common/untrustedtree.h"
#include "metrics/metricnames.h"
#include "metrics/tensorboard_event.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocale>
#include <QtEndian>

#include <bit>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

using WireFormat = google::protobuf::internal::WireFormatLite;
using Coded = google::protobuf::io::CodedInputStream;

constexpr qsizetype kMostHParams = 1000;
constexpr qsizetype kMostHParamChars = 4096;

const double kNaN = std::numeric_limits<double>::quiet_NaN();

Error problem(const QString &message)
{
    return Error{message, {}, 0, 0, {}};
}

QString mib(qint64 bytes)
{
    if (bytes >= (1ll << 30))
        return u"%1 GiB"_s.arg(double(bytes) / double(1ll << 30), 0, 'f', 1);
    return u"%1 MiB"_s.arg(double(bytes) / double(1 << 20), 0, 'f', 0);
}

Expected<ImageInfo> checkedSize(QString format, qint64 width, qint64 height, const MediaLimits &limits)
{
    if (width <= 0 || height <= 0)
        return problem(u"its %1 header says %2 x %3 pixels: no image"_s.arg(format.toUpper()).arg(width).arg(height));
    const qint64 pixels = width * height; // both below 2^31: no overflow
    if (width > limits.maxImageSide || height > limits.maxImageSide || pixels > limits.maxImagePixels)
        return problem(u"its %1 header says %2 x %3 pixels, %4 once decoded: more than the %5 pixels (%6) an "
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
        return problem(u"a PNG without its IHDR header"_s);
    const quint32 width = qFromBigEndian<quint32>(b.data() + 16);
    const quint32 height = qFromBigEndian<quint32>(b.data() + 20);
    if (width > 0x7fffffffu || height > 0x7fffffffu)
        return problem(u"its PNG header says %1 x %2 pixels: no image"_s.arg(width).arg(height));
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
            return problem(u"a JPEG without a frame header"_s);
        const quint8 marker = quint8(b[at + 1]);
        if (marker == 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
            at += 2;
            continue;
        }
        if (marker == 0xd9 || marker == 0xda)
            return problem(u"a JPEG without a frame header"_s);
        const quint16 length = qFromBigEndian<quint16>(b.data() + at + 2);
        if (length < 2)
            return problem(u"a JPEG whose segment at byte %1 is damaged"_s.arg(at));
        if (isJpegFrameMarker(marker)) {
            if (at + 9 > b.size() || length < 7)
                return problem(u"a JPEG whose frame header is cut short"_s);
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
        return problem(u"a GIF without its screen descriptor"_s);
    return checkedSize(mediaformat::kGif, qFromLittleEndian<quint16>(b.data() + 6),
                       qFromLittleEndian<quint16>(b.data() + 8), limits);
}

// A length-delimited field's length, read as 64 bits (a hostile one may claim more than 4 GiB).
bool readLength(Coded &in, quint64 &length)
{
    std::uint64_t value = 0;
    if (!in.ReadVarint64(&value))
        return false;
    length = value;
    return true;
}

QString numberText(double x)
{
    if (std::isfinite(x) && x == std::trunc(x) && std::fabs(x) < 9.0e15)
        return QString::number(qint64(x));
    return QString::number(x, 'g', QLocale::FloatingPointShortest);
}

// A TensorProto walked on the wire: what the histogram and text readers need, its values' counts
// known before they are read.
struct TensorWire {
    int dtype = 0;
    std::vector<qint64> dims;
    bool shapeTooLong = false;
    QByteArrayView content;                // tensor_content
    std::vector<QByteArrayView> floatRuns; // float_val: packed runs, or single values
    std::vector<QByteArrayView> doubleRuns;
    std::vector<QByteArrayView> strings; // string_val
    qint64 floats = 0, doubles = 0, stringBytes = 0;
};

// The tensor's fields, without allocating for its values: a count over `maxValues` or strings over
// `maxStringBytes` stop the walk with an Error.
Expected<TensorWire> walkTensor(QByteArrayView bytes, qint64 maxValues, qint64 maxStrings, qint64 maxStringBytes)
{
    TensorWire t;
    Coded in(reinterpret_cast<const quint8 *>(bytes.data()), int(bytes.size()));
    const auto damaged = [] { return problem(u"its tensor is damaged"_s); };
    const auto rest = [&] { return quint64(bytes.size() - in.CurrentPosition()); };
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        const int field = WireFormat::GetTagFieldNumber(key);
        const auto type = WireFormat::GetTagWireType(key);
        if (field == 0)
            return damaged();
        if (field == tensorboard::TensorProto::kDtypeFieldNumber && type == WireFormat::WIRETYPE_VARINT) {
            quint32 v = 0;
            if (!in.ReadVarint32(&v))
                return damaged();
            t.dtype = int(v);
            continue;
        }
        if (type != WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            // An unpacked float or double value.
            if (maxValues > 0 && field == tensorboard::TensorProto::kFloatValFieldNumber &&
                type == WireFormat::WIRETYPE_FIXED32) {
                if (rest() < 4 || ++t.floats > maxValues)
                    return t.floats > maxValues ? problem(u"its tensor holds more than %1 values"_s.arg(maxValues))
                                                : damaged();
                t.floatRuns.push_back(bytes.sliced(in.CurrentPosition(), 4));
                in.Skip(4);
                continue;
            }
            if (maxValues > 0 && field == tensorboard::TensorProto::kDoubleValFieldNumber &&
                type == WireFormat::WIRETYPE_FIXED64) {
                if (rest() < 8 || ++t.doubles > maxValues)
                    return t.doubles > maxValues ? problem(u"its tensor holds more than %1 values"_s.arg(maxValues))
                                                 : damaged();
                t.doubleRuns.push_back(bytes.sliced(in.CurrentPosition(), 8));
                in.Skip(8);
                continue;
            }
            if (!WireFormat::SkipField(&in, key))
                return damaged();
            continue;
        }
        quint64 length = 0;
        if (!readLength(in, length))
            return damaged();
        // Values a reader does not want (a text's numbers, a histogram's strings) are skipped.
        const bool wanted = (field != tensorboard::TensorProto::kFloatValFieldNumber &&
                             field != tensorboard::TensorProto::kDoubleValFieldNumber) ||
                            maxValues > 0;
        if (!wanted || (field == tensorboard::TensorProto::kStringValFieldNumber && maxStrings == 0)) {
            if (length > rest())
                return damaged();
            in.Skip(int(length));
            continue;
        }
        if (field == tensorboard::TensorProto::kFloatValFieldNumber &&
            length / 4 + quint64(t.floats) > quint64(maxValues))
            return problem(
                u"its tensor claims %1 values, more than the %2 read"_s.arg(length / 4 + t.floats).arg(maxValues));
        if (field == tensorboard::TensorProto::kDoubleValFieldNumber &&
            length / 8 + quint64(t.doubles) > quint64(maxValues))
            return problem(
                u"its tensor claims %1 values, more than the %2 read"_s.arg(length / 8 + t.doubles).arg(maxValues));
        if (length > rest())
            return damaged();
        const QByteArrayView value = bytes.sliced(in.CurrentPosition(), qsizetype(length));
        in.Skip(int(length));
        switch (field) {
        case tensorboard::TensorProto::kTensorShapeFieldNumber: {
            Coded shape(reinterpret_cast<const quint8 *>(value.data()), int(value.size()));
            for (quint32 k = shape.ReadTag(); k != 0; k = shape.ReadTag()) {
                if (WireFormat::GetTagFieldNumber(k) == 0)
                    return damaged();
                if (WireFormat::GetTagFieldNumber(k) != 2 ||
                    WireFormat::GetTagWireType(k) != WireFormat::WIRETYPE_LENGTH_DELIMITED) {
                    if (!WireFormat::SkipField(&shape, k))
                        return damaged();
                    continue;
                }
                quint32 dimLength = 0;
                if (!shape.ReadVarint32(&dimLength) || dimLength > quint32(value.size() - shape.CurrentPosition()))
                    return damaged();
                const auto limit = shape.PushLimit(int(dimLength));
                qint64 size = 0;
                for (quint32 d = shape.ReadTag(); d != 0; d = shape.ReadTag()) {
                    if (WireFormat::GetTagFieldNumber(d) == 1 &&
                        WireFormat::GetTagWireType(d) == WireFormat::WIRETYPE_VARINT) {
                        std::uint64_t v = 0;
                        if (!shape.ReadVarint64(&v))
                            return damaged();
                        size = static_cast<qint64>(v);
                    } else if (WireFormat::GetTagFieldNumber(d) == 0 || !WireFormat::SkipField(&shape, d)) {
                        return damaged();
                    }
                }
                if (!shape.ConsumedEntireMessage())
                    return damaged();
                shape.PopLimit(limit);
                if (t.dims.size() >= 8)
                    t.shapeTooLong = true;
                else
                    t.dims.push_back(size);
            }
            if (!shape.ConsumedEntireMessage())
                return damaged();
            break;
        }
        case tensorboard::TensorProto::kTensorContentFieldNumber:
            t.content = value;
            break;
        case tensorboard::TensorProto::kFloatValFieldNumber:
            if (length % 4)
                return damaged();
            t.floats += qint64(length / 4);
            t.floatRuns.push_back(value);
            break;
        case tensorboard::TensorProto::kDoubleValFieldNumber:
            if (length % 8)
                return damaged();
            t.doubles += qint64(length / 8);
            t.doubleRuns.push_back(value);
            break;
        case tensorboard::TensorProto::kStringValFieldNumber:
            t.stringBytes += qint64(length);
            if (t.stringBytes > maxStringBytes)
                return problem(u"its strings are longer than %1 bytes together"_s.arg(maxStringBytes));
            if (qint64(t.strings.size()) >= maxStrings)
                return problem(u"it holds more than %1 strings"_s.arg(maxStrings));
            t.strings.push_back(value);
            break;
        default:
            break;
        }
    }
    if (!in.ConsumedEntireMessage())
        return damaged();
    return t;
}

// Checks a histogram's buckets as they are read (before any is kept).
Error bucketProblem(const QString &what)
{
    return problem(u"a histogram with %1"_s.arg(what));
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
        return problem(
            u"an image of %1 bytes, more than the %2 an image may have"_s.arg(bytes.size()).arg(limits.maxImageBytes));
    if (bytes.startsWith("\x89PNG\r\n\x1a\n"))
        return pngInfo(bytes, limits);
    if (bytes.startsWith("\xff\xd8\xff"))
        return jpegInfo(bytes, limits);
    if (bytes.startsWith("GIF87a") || bytes.startsWith("GIF89a"))
        return gifInfo(bytes, limits);
    return problem(u"not a PNG, JPEG or GIF image"_s);
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
        return bucketProblem(
            u"%1 buckets, more than the %2 a histogram may have"_s.arg(std::max(h.bucketLimit.size(), h.bucket.size()))
                .arg(limits.maxBins));
    if (h.bucketLimit.size() != h.bucket.size())
        return bucketProblem(u"%1 bucket limits for %2 buckets"_s.arg(h.bucketLimit.size()).arg(h.bucket.size()));
    for (std::size_t i = 0; i < h.bucketLimit.size(); ++i) {
        if (std::isnan(h.bucketLimit[i]))
            return bucketProblem(u"a NaN bucket limit (bucket %1)"_s.arg(i));
        if (i > 0 && h.bucketLimit[i] < h.bucketLimit[i - 1])
            return bucketProblem(u"bucket limits that decrease (bucket %1)"_s.arg(i));
        if (!std::isfinite(h.bucket[i]) || h.bucket[i] < 0)
            return bucketProblem(u"a count of %1 (bucket %2)"_s.arg(numberText(h.bucket[i])).arg(i));
    }
    return {};
}

Expected<Histogram> histogramFromProto(QByteArrayView bytes, const MediaLimits &limits)
{
    Histogram h;
    Coded in(reinterpret_cast<const quint8 *>(bytes.data()), int(bytes.size()));
    const auto damaged = [] { return bucketProblem(u"damaged data"_s); };
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        const int field = WireFormat::GetTagFieldNumber(key);
        const auto type = WireFormat::GetTagWireType(key);
        if (field == 0)
            return damaged();
        const bool repeated = field == tensorboard::HistogramProto::kBucketLimitFieldNumber ||
                              field == tensorboard::HistogramProto::kBucketFieldNumber;
        std::vector<double> *values = field == tensorboard::HistogramProto::kBucketLimitFieldNumber ? &h.bucketLimit
                                      : field == tensorboard::HistogramProto::kBucketFieldNumber    ? &h.bucket
                                                                                                    : nullptr;
        if (type == WireFormat::WIRETYPE_FIXED64 && (field <= 5 || repeated)) {
            std::uint64_t bits = 0;
            if (!in.ReadLittleEndian64(&bits))
                return damaged();
            const double value = std::bit_cast<double>(bits);
            if (values) {
                if (qsizetype(values->size()) >= limits.maxBins)
                    return bucketProblem(u"more than the %1 buckets a histogram may have"_s.arg(limits.maxBins));
                values->push_back(value);
            } else {
                (field == 1   ? h.min
                 : field == 2 ? h.max
                 : field == 3 ? h.num
                 : field == 4 ? h.sum
                              : h.sumSquares) = value;
            }
            continue;
        }
        if (values && type == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            // Packed: the count is known from the length, before anything is read or allocated.
            quint64 length = 0;
            if (!readLength(in, length))
                return damaged();
            const quint64 count = length / 8 + values->size();
            if (count > quint64(limits.maxBins))
                return bucketProblem(
                    u"%1 buckets, more than the %2 a histogram may have"_s.arg(count).arg(limits.maxBins));
            if (length % 8 || length > quint64(bytes.size() - in.CurrentPosition()))
                return damaged();
            const char *at = bytes.data() + in.CurrentPosition();
            values->reserve(count);
            for (quint64 i = 0; i < length / 8; ++i)
                values->push_back(std::bit_cast<double>(qFromLittleEndian<quint64>(at + 8 * i)));
            in.Skip(int(length));
            continue;
        }
        if (!WireFormat::SkipField(&in, key))
            return damaged();
    }
    if (!in.ConsumedEntireMessage())
        return damaged();
    if (auto checked = checkHistogram(h, limits); !checked)
        return checked.error();
    return h;
}

Expected<Histogram> histogramFromTensor(QByteArrayView bytes, const MediaLimits &limits)
{
    const qint64 maxValues = 3 * qint64(limits.maxBins);
    auto wire = walkTensor(bytes, maxValues, 0, 0);
    if (!wire)
        return bucketProblem(QString(wire.error().message).replace(u"its tensor"_s, u"a tensor that"_s));
    const TensorWire &t = *wire;
    if (t.dtype != tfdtype::kFloat && t.dtype != tfdtype::kDouble)
        return bucketProblem(u"a tensor of type %1, not of floats or doubles"_s.arg(t.dtype));
    if (t.shapeTooLong || t.dims.size() != 2 || t.dims[1] != 3 || t.dims[0] < 0)
        return bucketProblem(u"a tensor of another shape than [buckets, 3]"_s);
    if (t.dims[0] > limits.maxBins)
        return bucketProblem(u"%1 buckets, more than the %2 a histogram may have"_s.arg(t.dims[0]).arg(limits.maxBins));
    const qint64 n = 3 * t.dims[0];
    const int size = t.dtype == tfdtype::kFloat ? 4 : 8;
    std::vector<double> values;
    values.reserve(std::size_t(n));
    const auto take = [&](QByteArrayView run) {
        for (qsizetype i = 0; i + size <= run.size(); i += size)
            values.push_back(size == 4 ? double(std::bit_cast<float>(qFromLittleEndian<quint32>(run.data() + i)))
                                       : std::bit_cast<double>(qFromLittleEndian<quint64>(run.data() + i)));
    };
    if (!t.content.isEmpty()) {
        if (t.content.size() != n * size)
            return bucketProblem(u"a tensor whose content is not its shape's %1 values"_s.arg(n));
        take(t.content);
    } else {
        for (const QByteArrayView run : size == 4 ? t.floatRuns : t.doubleRuns)
            take(run);
        if (qint64(values.size()) != n)
            return bucketProblem(u"a tensor of %1 values for its shape's %2"_s.arg(values.size()).arg(n));
    }
    Histogram h;
    h.min = h.max = h.sum = h.sumSquares = kNaN;
    for (qint64 i = 0; i < t.dims[0]; ++i) {
        const double left = values[std::size_t(3 * i)], right = values[std::size_t(3 * i + 1)];
        if (std::isnan(left) || std::isnan(right))
            return bucketProblem(u"a NaN bucket edge (bucket %1)"_s.arg(i));
        if (right < left || (i > 0 && left < h.bucketLimit.back()))
            return bucketProblem(u"bucket edges that decrease (bucket %1)"_s.arg(i));
        if (i == 0)
            h.min = left;
        h.bucketLimit.push_back(right);
        h.bucket.push_back(values[std::size_t(3 * i + 2)]);
    }
    if (!h.bucketLimit.empty())
        h.max = h.bucketLimit.back();
    if (auto checked = checkHistogram(h, limits); !checked)
        return checked.error();
    h.num = 0;
    for (const double count : h.bucket)
        h.num += count;
    return h;
}

Expected<HistogramLine> histogramFromLine(QByteArrayView line, const MediaLimits &limits)
{
    if (line.size() > limits.maxLineBytes)
        return problem(u"a line longer than %1 bytes"_s.arg(limits.maxLineBytes));
    QJsonParseError error{};
    const QJsonDocument doc = QJsonDocument::fromJson(line.toByteArray(), &error);
    if (error.error != QJsonParseError::NoError) {
        const QByteArrayView at = line.sliced(std::clamp<qsizetype>(error.offset, 0, line.size()));
        if (at.startsWith("NaN") || at.startsWith("Infinity"))
            return problem(u"a NaN or infinite number, which JSON does not have (Python's json.dumps writes them "
                           "unless allow_nan=False): a histogram's limits and counts are finite numbers"_s);
        return problem(u"not JSON: %1 at character %2"_s.arg(error.errorString()).arg(error.offset));
    }
    if (!doc.isObject())
        return problem(u"not a JSON object"_s);
    const QJsonObject o = doc.object();
    HistogramLine out;
    out.tag = o.value(u"tag"_s).toString();
    if (const QString why = metricNameProblem(out.tag); !why.isEmpty())
        return problem(u"its \"tag\" is no tag: %1"_s.arg(why));
    const QJsonValue step = o.value(u"step"_s);
    if (!step.isDouble() || step.toDouble() != std::trunc(step.toDouble()) || std::fabs(step.toDouble()) > 9.0e15)
        return problem(u"no whole \"step\""_s);
    out.step = qint64(step.toDouble());
    if (const QJsonValue wall = o.value(u"wall_time"_s);
        wall.isDouble() && std::isfinite(wall.toDouble() * 1000) && std::fabs(wall.toDouble() * 1000) < 9.0e15)
        out.wallMs = std::llround(wall.toDouble() * 1000);
    const QJsonValue limitsValue = o.value(u"bucket_limit"_s), bucketsValue = o.value(u"bucket"_s);
    if (!limitsValue.isArray() || !bucketsValue.isArray())
        return problem(u"no \"bucket_limit\" and \"bucket\" arrays"_s);
    const QJsonArray limitsArray = limitsValue.toArray(), bucketsArray = bucketsValue.toArray();
    if (limitsArray.size() > limits.maxBins || bucketsArray.size() > limits.maxBins)
        return bucketProblem(u"%1 buckets, more than the %2 a histogram may have"_s
                                 .arg(std::max(limitsArray.size(), bucketsArray.size()))
                                 .arg(limits.maxBins));
    Histogram &h = out.histogram;
    for (const auto &[array, values] : {std::pair{&limitsArray, &h.bucketLimit}, {&bucketsArray, &h.bucket}}) {
        values->reserve(std::size_t(array->size()));
        for (const QJsonValue v : *array) {
            if (!v.isDouble())
                return bucketProblem(u"a bucket limit or count that is no number"_s);
            values->push_back(v.toDouble());
        }
    }
    const auto number = [&o](const QString &key) {
        const QJsonValue v = o.value(key);
        return v.isDouble() ? v.toDouble() : kNaN;
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

Expected<QString> textFromTensor(QByteArrayView bytes, const MediaLimits &limits)
{
    auto wire = walkTensor(bytes, 0, limits.maxTextStrings, limits.maxTextBytes);
    if (!wire)
        return problem(u"a text tensor: %1"_s.arg(wire.error().message));
    if (wire->dtype != tfdtype::kString)
        return problem(u"a text tensor of type %1, not of strings"_s.arg(wire->dtype));
    const auto string = [](QByteArrayView b) { return QString::fromUtf8(b); };
    QStringList lines;
    const std::vector<QByteArrayView> &s = wire->strings;
    if (wire->dims.size() == 2 && wire->dims[0] > 0 && wire->dims[1] > 0 &&
        wire->dims[0] * wire->dims[1] == qint64(s.size())) {
        const auto columns = std::size_t(wire->dims[1]);
        for (std::size_t row = 0; row < s.size() / columns; ++row) {
            QStringList cells;
            for (std::size_t c = 0; c < columns; ++c)
                cells << string(s[row * columns + c]);
            lines << cells.join(u'\t');
        }
    } else {
        for (const QByteArrayView line : s)
            lines << string(line);
    }
    return lines.join(u'\n');
}

Expected<QList<HParam>> hparamsFromPluginContent(QByteArrayView content)
{
    tensorboard::HParamsPluginData data;
    if (!data.ParseFromArray(content.data(), int(content.size())))
        return problem(u"the hparams plugin's data is damaged"_s);
    QList<HParam> out;
    if (data.data_case() != tensorboard::HParamsPluginData::kSessionStartInfo)
        return out;
    for (const auto &entry : data.session_start_info().hparams()) {
        if (out.size() >= kMostHParams)
            break;
        const QString name = QString::fromUtf8(entry.key().data(), qsizetype(entry.key().size()));
        const tensorboard::HParamValue &v = entry.value();
        QString value;
        switch (v.kind_case()) {
        case tensorboard::HParamValue::kNumberValue:
            value = numberText(v.number_value());
            break;
        case tensorboard::HParamValue::kStringValue:
            value = QString::fromUtf8(v.string_value().data(), qsizetype(v.string_value().size()));
            break;
        case tensorboard::HParamValue::kBoolValue:
            value = v.bool_value() ? u"true"_s : u"false"_s;
            break;
        default:
            continue; // null, a list, an object: no parameter
        }
        if (name.isEmpty() || name.size() > kMostHParamChars || value.size() > kMostHParamChars ||
            !metricNameProblem(name).isEmpty())
            continue;
        // A later entry of the same name wins, as in a map.
        const auto same = std::find_if(out.begin(), out.end(), [&](const HParam &p) { return p.name == name; });
        if (same != out.end())
            same->value = value;
        else
            out.append(HParam{name, value});
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
        h = problem(u"a histogram stored as '%1', which this Ferry does not read"_s.arg(item.format));
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
