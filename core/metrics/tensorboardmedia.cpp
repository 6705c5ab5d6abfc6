// TensorBoard's media as its event files encode them, read on the protobuf wire: a HistogramProto,
// the histograms and text plugins' TensorProtos, the hparams plugin's session start (media.h).
#include "metrics/media.h"

#include "metrics/mediaproblem.h"
#include "metrics/metricnames.h"
#include "metrics/tensorboard_event.pb.h"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <QStringList>
#include <QtEndian>

#include <algorithm>
#include <bit>
#include <cmath>
#include <vector>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

using WireFormat = google::protobuf::internal::WireFormatLite;
using Coded = google::protobuf::io::CodedInputStream;

constexpr qsizetype kMostHParams = 1000;
constexpr qsizetype kMostHParamChars = 4096;

// A length-delimited field's length, read as 64 bits (a hostile one may claim more than 4 GiB).
bool readLength(Coded &in, quint64 &length)
{
    std::uint64_t value = 0;
    if (!in.ReadVarint64(&value))
        return false;
    length = value;
    return true;
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

// What a walk of a tensor reads at most (walkTensor): values 0 skips the float and double values,
// strings 0 the strings.
struct TensorWalkLimits {
    qint64 maxValues = 0;
    qint64 maxStrings = 0;
    qint64 maxStringBytes = 0;
};

Error damagedTensor()
{
    return media::problem(u"its tensor is damaged"_s);
}

// One TensorShapeProto.Dim (its length read next from `shape`, which holds `value`): its size.
Expected<qint64> tensorDimension(Coded &shape, QByteArrayView value)
{
    quint32 dimLength = 0;
    if (!shape.ReadVarint32(&dimLength) || dimLength > quint32(value.size() - shape.CurrentPosition()))
        return damagedTensor();
    const auto limit = shape.PushLimit(int(dimLength));
    qint64 size = 0;
    for (quint32 d = shape.ReadTag(); d != 0; d = shape.ReadTag()) {
        if (WireFormat::GetTagFieldNumber(d) == 1 && WireFormat::GetTagWireType(d) == WireFormat::WIRETYPE_VARINT) {
            std::uint64_t v = 0;
            if (!shape.ReadVarint64(&v))
                return damagedTensor();
            size = static_cast<qint64>(v);
        } else if (WireFormat::GetTagFieldNumber(d) == 0 || !WireFormat::SkipField(&shape, d)) {
            return damagedTensor();
        }
    }
    if (!shape.ConsumedEntireMessage())
        return damagedTensor();
    shape.PopLimit(limit);
    return size;
}

// The tensor's TensorShapeProto (`value`): its dimensions, the first 8 of them.
Expected<void> readTensorShape(QByteArrayView value, TensorWire &t)
{
    Coded shape(reinterpret_cast<const quint8 *>(value.data()), int(value.size()));
    for (quint32 k = shape.ReadTag(); k != 0; k = shape.ReadTag()) {
        if (WireFormat::GetTagFieldNumber(k) == 0)
            return damagedTensor();
        if (WireFormat::GetTagFieldNumber(k) != 2 ||
            WireFormat::GetTagWireType(k) != WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            if (!WireFormat::SkipField(&shape, k))
                return damagedTensor();
            continue;
        }
        const Expected<qint64> size = tensorDimension(shape, value);
        if (!size)
            return size.error();
        if (t.dims.size() >= 8)
            t.shapeTooLong = true;
        else
            t.dims.push_back(*size);
    }
    if (!shape.ConsumedEntireMessage())
        return damagedTensor();
    return {};
}

// One float or double value written unpacked (its own tag, `size` bytes), counted in `count`:
// kept in `runs` while the values are at most `maxValues`.
Expected<void> readUnpackedValue(Coded &in, QByteArrayView bytes, int size, qint64 maxValues, qint64 &count,
                                 std::vector<QByteArrayView> &runs)
{
    if (quint64(bytes.size() - in.CurrentPosition()) < quint64(size) || ++count > maxValues)
        return count > maxValues ? media::problem(u"its tensor holds more than %1 values"_s.arg(maxValues))
                                 : damagedTensor();
    runs.push_back(bytes.sliced(in.CurrentPosition(), size));
    in.Skip(size);
    return {};
}

// A field that is not length-delimited (`key` read from `in`, over `bytes`): the dtype, a float or
// double value written unpacked, or another field, skipped.
Expected<void> readTensorScalarField(Coded &in, QByteArrayView bytes, quint32 key, qint64 maxValues, TensorWire &t)
{
    const int field = WireFormat::GetTagFieldNumber(key);
    const auto type = WireFormat::GetTagWireType(key);
    if (field == tensorboard::TensorProto::kDtypeFieldNumber && type == WireFormat::WIRETYPE_VARINT) {
        quint32 v = 0;
        if (!in.ReadVarint32(&v))
            return damagedTensor();
        t.dtype = int(v);
        return {};
    }
    if (maxValues > 0 && field == tensorboard::TensorProto::kFloatValFieldNumber &&
        type == WireFormat::WIRETYPE_FIXED32)
        return readUnpackedValue(in, bytes, 4, maxValues, t.floats, t.floatRuns);
    if (maxValues > 0 && field == tensorboard::TensorProto::kDoubleValFieldNumber &&
        type == WireFormat::WIRETYPE_FIXED64)
        return readUnpackedValue(in, bytes, 8, maxValues, t.doubles, t.doubleRuns);
    if (!WireFormat::SkipField(&in, key))
        return damagedTensor();
    return {};
}

// A length-delimited field's `value`, kept by its field: the shape, the content, a packed run of
// floats or doubles, a string (within the limits); any other is left.
Expected<void> keepTensorValue(int field, QByteArrayView value, const TensorWalkLimits &limits, TensorWire &t)
{
    const auto length = quint64(value.size());
    switch (field) {
    case tensorboard::TensorProto::kTensorShapeFieldNumber:
        return readTensorShape(value, t);
    case tensorboard::TensorProto::kTensorContentFieldNumber:
        t.content = value;
        break;
    case tensorboard::TensorProto::kFloatValFieldNumber:
    case tensorboard::TensorProto::kDoubleValFieldNumber: {
        const bool floats = field == tensorboard::TensorProto::kFloatValFieldNumber;
        const quint64 size = floats ? 4 : 8;
        if (length % size)
            return damagedTensor();
        (floats ? t.floats : t.doubles) += qint64(length / size);
        (floats ? t.floatRuns : t.doubleRuns).push_back(value);
        break;
    }
    case tensorboard::TensorProto::kStringValFieldNumber:
        t.stringBytes += qint64(length);
        if (t.stringBytes > limits.maxStringBytes)
            return media::problem(u"its strings are longer than %1 bytes together"_s.arg(limits.maxStringBytes));
        if (qint64(t.strings.size()) >= limits.maxStrings)
            return media::problem(u"it holds more than %1 strings"_s.arg(limits.maxStrings));
        t.strings.push_back(value);
        break;
    default:
        break;
    }
    return {};
}

// A length-delimited field (its length read next from `in`, over `bytes`): skipped when the reader
// does not want it, refused when it claims more values than are read, else kept.
Expected<void> readTensorDelimitedField(Coded &in, QByteArrayView bytes, int field, const TensorWalkLimits &limits,
                                        TensorWire &t)
{
    const auto rest = [&] { return quint64(bytes.size() - in.CurrentPosition()); };
    quint64 length = 0;
    if (!readLength(in, length))
        return damagedTensor();
    // Values a reader does not want (a text's numbers, a histogram's strings) are skipped.
    const bool wanted = (field != tensorboard::TensorProto::kFloatValFieldNumber &&
                         field != tensorboard::TensorProto::kDoubleValFieldNumber) ||
                        limits.maxValues > 0;
    if (!wanted || (field == tensorboard::TensorProto::kStringValFieldNumber && limits.maxStrings == 0)) {
        if (length > rest())
            return damagedTensor();
        in.Skip(int(length));
        return {};
    }
    // Packed floats or doubles: their count known from the length, before anything is kept.
    const bool floats = field == tensorboard::TensorProto::kFloatValFieldNumber;
    if (floats || field == tensorboard::TensorProto::kDoubleValFieldNumber) {
        const quint64 claimed = length / (floats ? 4 : 8) + quint64(floats ? t.floats : t.doubles);
        if (claimed > quint64(limits.maxValues))
            return media::problem(
                u"its tensor claims %1 values, more than the %2 read"_s.arg(claimed).arg(limits.maxValues));
    }
    if (length > rest())
        return damagedTensor();
    const QByteArrayView value = bytes.sliced(in.CurrentPosition(), qsizetype(length));
    in.Skip(int(length));
    return keepTensorValue(field, value, limits, t);
}

// The tensor's fields, without allocating for its values: a count over `maxValues` or strings over
// `maxStringBytes` stop the walk with an Error.
Expected<TensorWire> walkTensor(QByteArrayView bytes, qint64 maxValues, qint64 maxStrings, qint64 maxStringBytes)
{
    const TensorWalkLimits limits{maxValues, maxStrings, maxStringBytes};
    TensorWire t;
    Coded in(reinterpret_cast<const quint8 *>(bytes.data()), int(bytes.size()));
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        const int field = WireFormat::GetTagFieldNumber(key);
        if (field == 0)
            return damagedTensor();
        const Expected<void> read = WireFormat::GetTagWireType(key) == WireFormat::WIRETYPE_LENGTH_DELIMITED
                                        ? readTensorDelimitedField(in, bytes, field, limits, t)
                                        : readTensorScalarField(in, bytes, key, maxValues, t);
        if (!read)
            return read.error();
    }
    if (!in.ConsumedEntireMessage())
        return damagedTensor();
    return t;
}

} // namespace

Expected<Histogram> histogramFromProto(QByteArrayView bytes, const MediaLimits &limits)
{
    Histogram h;
    Coded in(reinterpret_cast<const quint8 *>(bytes.data()), int(bytes.size()));
    const auto damaged = [] { return media::bucketProblem(u"damaged data"_s); };
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
                    return media::bucketProblem(u"more than the %1 buckets a histogram may have"_s.arg(limits.maxBins));
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
                return media::bucketProblem(
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
        return media::bucketProblem(QString(wire.error().message).replace(u"its tensor"_s, u"a tensor that"_s));
    const TensorWire &t = *wire;
    if (t.dtype != tfdtype::kFloat && t.dtype != tfdtype::kDouble)
        return media::bucketProblem(u"a tensor of type %1, not of floats or doubles"_s.arg(t.dtype));
    if (t.shapeTooLong || t.dims.size() != 2 || t.dims[1] != 3 || t.dims[0] < 0)
        return media::bucketProblem(u"a tensor of another shape than [buckets, 3]"_s);
    if (t.dims[0] > limits.maxBins)
        return media::bucketProblem(
            u"%1 buckets, more than the %2 a histogram may have"_s.arg(t.dims[0]).arg(limits.maxBins));
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
            return media::bucketProblem(u"a tensor whose content is not its shape's %1 values"_s.arg(n));
        take(t.content);
    } else {
        for (const QByteArrayView run : size == 4 ? t.floatRuns : t.doubleRuns)
            take(run);
        if (qint64(values.size()) != n)
            return media::bucketProblem(u"a tensor of %1 values for its shape's %2"_s.arg(values.size()).arg(n));
    }
    Histogram h;
    h.min = h.max = h.sum = h.sumSquares = media::kNaN;
    for (qint64 i = 0; i < t.dims[0]; ++i) {
        const double left = values[std::size_t(3 * i)], right = values[std::size_t(3 * i + 1)];
        if (std::isnan(left) || std::isnan(right))
            return media::bucketProblem(u"a NaN bucket edge (bucket %1)"_s.arg(i));
        if (right < left || (i > 0 && left < h.bucketLimit.back()))
            return media::bucketProblem(u"bucket edges that decrease (bucket %1)"_s.arg(i));
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

Expected<QString> textFromTensor(QByteArrayView bytes, const MediaLimits &limits)
{
    auto wire = walkTensor(bytes, 0, limits.maxTextStrings, limits.maxTextBytes);
    if (!wire)
        return media::problem(u"a text tensor: %1"_s.arg(wire.error().message));
    if (wire->dtype != tfdtype::kString)
        return media::problem(u"a text tensor of type %1, not of strings"_s.arg(wire->dtype));
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
        return media::problem(u"the hparams plugin's data is damaged"_s);
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
            value = media::numberText(v.number_value());
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

} // namespace ferry::run
