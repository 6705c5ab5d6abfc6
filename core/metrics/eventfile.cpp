#include "metrics/eventfile.h"

#include "metrics/metricnames.h"
#include "metrics/tensorboard_event.pb.h"

#include <google/protobuf/arena.h>
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/wire_format_lite.h>

#include <QtEndian>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

using tensorboard::Event;
using tensorboard::Summary_Value;
using tensorboard::TensorProto;
using WireFormat = google::protobuf::internal::WireFormatLite;

constexpr qint64 kHeaderBytes = 12; // the length and its CRC
constexpr qint64 kFooterBytes = 4;  // the data's CRC
// The cap's own cap: protobuf counts a message's bytes in an int.
constexpr qint64 kMaxRecordBytes = 1ll << 30;
constexpr std::size_t kArenaBytes = 1 << 20; // emptied when it holds more
constexpr std::size_t kMaxTags = 1 << 16;    // tags whose names and plugins are remembered
constexpr int kMaxMetadataBytes = 1 << 20;   // a value's metadata (the hparams plugin's content is in it)
constexpr qsizetype kMaxRefusedKept = 32;    // refusals handed out; the rest are counted
constexpr qint64 kMaxImagesPerTensor = 1024; // the images plugin's max_outputs, and then some
// Items of one record: a 64 MiB record of 14-byte GIF headers would be millions of them. A
// record's items are held until it is read whole, so they are what bounds the reader's memory.
constexpr qsizetype kMaxItemsPerRecord = 4096;

// Milliseconds since the epoch of a wall time in seconds; 0 for one no clock gives.
qint64 wallMsOf(double seconds)
{
    const double ms = seconds * 1000;
    return std::isfinite(ms) && std::fabs(ms) < 9.0e15 ? std::llround(ms) : 0;
}

// The number a tensor holds when it holds exactly one float or double: every dimension 1 (a
// rank-0 tensor has none), the value packed in tensor_content or alone in float_val/double_val.
std::optional<double> tensorScalar(const TensorProto &tensor)
{
    for (const auto &dim : tensor.tensor_shape().dim()) {
        if (dim.size() != 1)
            return std::nullopt;
    }
    const std::string &content = tensor.tensor_content();
    if (tensor.dtype() == tfdtype::kFloat) {
        if (content.size() == sizeof(quint32))
            return std::bit_cast<float>(qFromLittleEndian<quint32>(content.data()));
        if (content.empty() && tensor.float_val_size() == 1)
            return tensor.float_val(0);
    } else if (tensor.dtype() == tfdtype::kDouble) {
        if (content.size() == sizeof(quint64))
            return std::bit_cast<double>(qFromLittleEndian<quint64>(content.data()));
        if (content.empty() && tensor.double_val_size() == 1)
            return tensor.double_val(0);
    }
    return std::nullopt;
}

} // namespace

quint32 maskedCrc32c(QByteArrayView bytes)
{
    const quint32 crc = crc32c(bytes);
    return ((crc >> 15) | (crc << 17)) + 0xa282ead8u;
}

EventFileReader::EventFileReader(QString prefix, QString path, Limits limits)
    : m_prefix(std::move(prefix)), m_path(std::move(path)), m_limits(limits),
      m_arena(std::make_unique<google::protobuf::Arena>())
{
    m_limits.maxRecordBytes = std::clamp<qint64>(m_limits.maxRecordBytes, 0, kMaxRecordBytes);
    m_limits.maxWholeRecordBytes = std::clamp<qint64>(m_limits.maxWholeRecordBytes, 0, kMaxRecordBytes);
    m_limits.maxValueBytes = std::clamp<qint64>(m_limits.maxValueBytes, 0, kMaxRecordBytes);
}

EventFileReader::~EventFileReader() = default;
EventFileReader::EventFileReader(EventFileReader &&) noexcept = default;
EventFileReader &EventFileReader::operator=(EventFileReader &&) noexcept = default;

void EventFileReader::resumeAt(qint64 offset)
{
    m_offset = std::max<qint64>(offset, 0);
    m_pendingLength = -1;
    m_error.reset();
}

qint64 EventFileReader::bytesWanted() const
{
    if (m_error)
        return 0;
    return m_pendingLength < 0 ? kHeaderBytes : kHeaderBytes + m_pendingLength + kFooterBytes;
}

Error EventFileReader::damaged(const QString &what) const
{
    return Error{u"TensorBoard event file: the record at byte %1 is damaged: %2"_s.arg(m_offset).arg(what), m_path, 0,
                 0, u"the file is read no further; the points of the records before byte %1 are kept"_s.arg(m_offset)};
}

Expected<QList<MetricPoint>> EventFileReader::read(QByteArrayView bytes)
{
    if (m_error)
        return *m_error;
    QList<MetricPoint> points;
    qint64 at = 0; // m_offset is where bytes[at] is in the file
    while (bytes.size() - at >= kHeaderBytes) {
        const char *record = bytes.data() + at;
        if (m_pendingLength < 0) {
            // The length is checked against its CRC before it is believed, then against the cap.
            const quint64 length = qFromLittleEndian<quint64>(record);
            if (maskedCrc32c(QByteArrayView(record, 8)) != qFromLittleEndian<quint32>(record + 8)) {
                m_error = damaged(u"its length does not match its CRC"_s);
                break;
            }
            if (length > static_cast<quint64>(m_limits.maxRecordBytes)) {
                m_error = damaged(u"it claims %1 bytes, more than the %2 a record may have"_s.arg(length).arg(
                    m_limits.maxRecordBytes));
                break;
            }
            m_pendingLength = static_cast<qint64>(length);
        }
        const qint64 whole = kHeaderBytes + m_pendingLength + kFooterBytes;
        if (bytes.size() - at < whole)
            break; // the rest of the record is not written yet
        const char *data = record + kHeaderBytes;
        if (maskedCrc32c(QByteArrayView(data, m_pendingLength)) != qFromLittleEndian<quint32>(data + m_pendingLength)) {
            m_error = damaged(u"its data does not match its CRC"_s);
            break;
        }
        const qsizetype before = points.size();
        const bool event = readEvent(data, m_pendingLength, points);
        endRecord(event);
        if (!event) {
            points.resize(before);
            m_error = damaged(u"its data is no TensorBoard event"_s);
            break;
        }
        at += whole;
        m_offset += whole;
        m_pendingLength = -1;
    }
    if (m_error && points.isEmpty())
        return *m_error;
    return points;
}

bool EventFileReader::readEvent(const char *data, qint64 length, QList<MetricPoint> &out)
{
    m_recordHasMedia = false;
    if (length > m_limits.maxWholeRecordBytes)
        return readLargeEvent(data, length, out, true);
    Event *event = google::protobuf::Arena::CreateMessage<Event>(m_arena.get());
    bool parsed = event->ParseFromArray(data, static_cast<int>(length));
    if (parsed && event->what_case() == Event::kSummary) {
        const double step = static_cast<double>(event->step());
        const qint64 wallMs = wallMsOf(event->wall_time());
        for (const Summary_Value &value : event->summary().value())
            takeValue(value, step, wallMs, out);
    } // else the file's version, a graph, a session log: no scalar
    emptyArenaIfFull();
    // A record with an image, a histogram, a text or hyperparameters is walked again for where
    // their bytes are (a parsed message has copies of them, not their offsets).
    if (parsed && m_recordHasMedia) {
        QList<MetricPoint> none;
        parsed = readLargeEvent(data, length, none, false);
    }
    return parsed;
}

// The arena's messages are the last record's or value's, no longer used: they go when there are
// more than kArenaBytes of them. A parsed record of n bytes takes a few times n of the arena (tens
// of times n for a hostile one), given back here before the next record.
void EventFileReader::emptyArenaIfFull()
{
    if (m_arena->SpaceAllocated() > kArenaBytes)
        m_arena->Reset();
}

// The long record's Event walked as ParseFromArray would read it: the last wall_time and step win
// wherever they are; a file_version or graph_def after the summary replaces it (they share a
// oneof); a field of the wrong wire type, or unknown here, is skipped.
bool EventFileReader::readLargeEvent(const char *data, qint64 length, QList<MetricPoint> &out, bool scalars)
{
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const quint8 *>(data), static_cast<int>(length));
    const qsizetype first = out.size();
    double wallTime = 0;
    std::uint64_t step = 0;
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        const int field = WireFormat::GetTagFieldNumber(key);
        const WireFormat::WireType type = WireFormat::GetTagWireType(key);
        if (field == 0)
            return false; // no field has number 0
        if (field == Event::kWallTimeFieldNumber && type == WireFormat::WIRETYPE_FIXED64) {
            std::uint64_t bits = 0;
            if (!in.ReadLittleEndian64(&bits))
                return false;
            wallTime = std::bit_cast<double>(bits);
        } else if (field == Event::kStepFieldNumber && type == WireFormat::WIRETYPE_VARINT) {
            if (!in.ReadVarint64(&step))
                return false;
        } else if (field == Event::kSummaryFieldNumber && type == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            quint32 size = 0;
            if (!in.ReadVarint32(&size) || size > length - in.CurrentPosition())
                return false;
            const int at = in.CurrentPosition();
            if (!readLargeSummary(data + at, static_cast<int>(size), m_offset + kHeaderBytes + at, out, scalars) ||
                !in.Skip(static_cast<int>(size)))
                return false;
        } else {
            if ((field == Event::kFileVersionFieldNumber || field == Event::kGraphDefFieldNumber) &&
                type == WireFormat::WIRETYPE_LENGTH_DELIMITED) {
                out.resize(first);
                m_recordMedia.clear();
                m_recordRefused.clear();
                m_recordHParams.reset();
            }
            if (!WireFormat::SkipField(&in, key))
                return false;
        }
    }
    if (!in.ConsumedEntireMessage())
        return false;
    // The step and wall time are the event's, known only now.
    const double stepValue = static_cast<double>(static_cast<qint64>(step));
    const qint64 wallMs = wallMsOf(wallTime);
    for (qsizetype i = first; i < out.size(); ++i) {
        out[i].step = stepValue;
        out[i].wallMs = wallMs;
    }
    m_recordStep = static_cast<qint64>(step);
    m_recordWallMs = wallMs;
    return true;
}

// A Summary's values, each parsed alone; one longer than maxValueBytes is an image, audio or a
// large tensor, never a scalar, and is skipped unparsed.
bool EventFileReader::readLargeSummary(const char *data, int length, qint64 at0, QList<MetricPoint> &out, bool scalars)
{
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const quint8 *>(data), length);
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        if (WireFormat::GetTagFieldNumber(key) == 0)
            return false;
        if (WireFormat::GetTagFieldNumber(key) != tensorboard::Summary::kValueFieldNumber ||
            WireFormat::GetTagWireType(key) != WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            if (!WireFormat::SkipField(&in, key))
                return false;
            continue;
        }
        quint32 size = 0;
        if (!in.ReadVarint32(&size) || size > static_cast<quint32>(length - in.CurrentPosition()))
            return false;
        const int at = in.CurrentPosition();
        if (scalars && size <= m_limits.maxValueBytes) {
            auto *value = google::protobuf::Arena::CreateMessage<Summary_Value>(m_arena.get());
            const bool parsed = value->ParseFromArray(data + at, static_cast<int>(size));
            if (parsed)
                takeValue(*value, 0, 0, out);
            emptyArenaIfFull();
            if (!parsed)
                return false;
        }
        // Not parsed whole (over maxValueBytes: an image, a large tensor), or parsed for its scalar
        // only: its media are found on the wire.
        if ((!scalars || size > m_limits.maxValueBytes || m_recordHasMedia) &&
            !indexValue(data + at, static_cast<int>(size), at0 + at))
            return false;
        if (!in.Skip(static_cast<int>(size)))
            return false;
    }
    return in.ConsumedEntireMessage();
}

void EventFileReader::takeValue(const Summary_Value &value, double step, qint64 wallMs, QList<MetricPoint> &out)
{
    Tag &known = tag(value.tag());
    if (value.has_metadata()) {
        known.plugin = pluginOf(value.metadata().plugin_data().plugin_name());
        if (known.plugin == Plugin::HParams)
            m_recordHasMedia = true;
    }
    std::optional<double> number;
    if (value.value_case() == Summary_Value::kSimpleValue)
        number = value.simple_value();
    else if (value.value_case() == Summary_Value::kTensor && known.plugin == Plugin::Scalars)
        number = tensorScalar(value.tensor());
    else if (value.value_case() == Summary_Value::kImage || value.value_case() == Summary_Value::kHisto ||
             (value.value_case() == Summary_Value::kTensor &&
              (known.plugin == Plugin::Images || known.plugin == Plugin::Histograms || known.plugin == Plugin::Text)))
        m_recordHasMedia = true;
    if (number)
        out.append(MetricPoint{known.name, step, *number, wallMs, kNoEpoch});
}

// The value's fields on the wire: its tag and metadata (a tag's plugin, the hparams plugin's
// content), and where its payload is; the payload's media indexed at their offsets. False: the
// value is damaged.
bool EventFileReader::indexValue(const char *data, int length, qint64 at)
{
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const quint8 *>(data), length);
    const char *tagBytes = nullptr;
    int tagLength = 0;
    int payload = 0; // the oneof's field that came last: 2 simple_value, 4 image, 5 histo, 8 tensor, ...
    int payloadAt = 0, payloadLength = 0;
    tensorboard::SummaryMetadata *metadata = nullptr;
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        const int field = WireFormat::GetTagFieldNumber(key);
        const WireFormat::WireType type = WireFormat::GetTagWireType(key);
        if (field == 0)
            return false;
        if (type != WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            if (field >= Summary_Value::kSimpleValueFieldNumber && field <= Summary_Value::kTensorFieldNumber &&
                field != Summary_Value::kNodeNameFieldNumber)
                payload = field; // a simple_value (or a value of the wrong type): no media
            if (!WireFormat::SkipField(&in, key))
                return false;
            continue;
        }
        quint32 size = 0;
        if (!in.ReadVarint32(&size) || size > static_cast<quint32>(length - in.CurrentPosition()))
            return false;
        const int start = in.CurrentPosition();
        if (field == Summary_Value::kTagFieldNumber) {
            tagBytes = data + start;
            tagLength = static_cast<int>(size);
        } else if (field == Summary_Value::kMetadataFieldNumber && size <= kMaxMetadataBytes) {
            metadata = google::protobuf::Arena::CreateMessage<tensorboard::SummaryMetadata>(m_arena.get());
            if (!metadata->ParseFromArray(data + start, static_cast<int>(size)))
                return false;
        } else if (field >= 3 && field <= Summary_Value::kTensorFieldNumber &&
                   field != Summary_Value::kNodeNameFieldNumber) {
            payload = field;
            payloadAt = start;
            payloadLength = static_cast<int>(size);
        }
        if (!in.Skip(static_cast<int>(size)))
            return false;
    }
    if (!in.ConsumedEntireMessage())
        return false;
    Tag &known = tag(tagBytes ? tagBytes : "", tagLength);
    if (metadata) {
        known.plugin = pluginOf(metadata->plugin_data().plugin_name());
        if (known.plugin == Plugin::HParams) {
            const std::string &content = metadata->plugin_data().content();
            if (auto hparams = hparamsFromPluginContent(QByteArrayView(content.data(), qsizetype(content.size())));
                hparams && !hparams->isEmpty())
                m_recordHParams = std::move(*hparams);
        }
    }
    const char *bytes = data + payloadAt;
    const qint64 bytesAt = at + payloadAt;
    if (payload == Summary_Value::kImageFieldNumber) {
        indexImages(known, bytes, payloadLength, bytesAt, false);
    } else if (payload == Summary_Value::kHistoFieldNumber ||
               (payload == Summary_Value::kTensorFieldNumber && known.plugin == Plugin::Histograms)) {
        const bool proto = payload == Summary_Value::kHistoFieldNumber;
        const QByteArrayView view(bytes, payloadLength);
        auto checked = proto ? histogramFromProto(view, m_limits.media) : histogramFromTensor(view, m_limits.media);
        if (!checked)
            refuse(known, MediaKind::Histogram, bytesAt, checked.error().message);
        else
            indexItem(MediaItem{MediaKind::Histogram,
                                known.name,
                                0,
                                0,
                                0,
                                {},
                                0,
                                payloadLength,
                                proto ? mediaformat::kHistogramProto : mediaformat::kHistogramTensor,
                                0,
                                0,
                                0},
                      bytes, bytesAt);
    } else if (payload == Summary_Value::kTensorFieldNumber && known.plugin == Plugin::Images) {
        indexImages(known, bytes, payloadLength, bytesAt, true);
    } else if (payload == Summary_Value::kTensorFieldNumber && known.plugin == Plugin::Text) {
        if (auto text = textFromTensor(QByteArrayView(bytes, payloadLength), m_limits.media); !text)
            refuse(known, MediaKind::Text, bytesAt, text.error().message);
        else
            indexItem(
                MediaItem{
                    MediaKind::Text, known.name, 0, 0, 0, {}, 0, payloadLength, mediaformat::kTextTensor, 0, 0, 0},
                bytes, bytesAt);
    }
    emptyArenaIfFull();
    return true;
}

// An Image message's encoded image, or the images plugin's string tensor (its width, its height,
// then the images), each checked by its own header.
void EventFileReader::indexImages(Tag &known, const char *data, int length, qint64 at, bool tensor)
{
    std::vector<std::pair<int, int>> images; // offset in data, length
    google::protobuf::io::CodedInputStream in(reinterpret_cast<const quint8 *>(data), length);
    int dtype = tensor ? -1 : tfdtype::kString;
    int strings = 0;
    for (quint32 key = in.ReadTag(); key != 0; key = in.ReadTag()) {
        const int field = WireFormat::GetTagFieldNumber(key);
        const WireFormat::WireType type = WireFormat::GetTagWireType(key);
        if (tensor && field == tensorboard::TensorProto::kDtypeFieldNumber && type == WireFormat::WIRETYPE_VARINT) {
            quint32 v = 0;
            if (!in.ReadVarint32(&v))
                break;
            dtype = static_cast<int>(v);
            continue;
        }
        const int wanted = tensor ? int(tensorboard::TensorProto::kStringValFieldNumber)
                                  : int(tensorboard::Summary_Image::kEncodedImageStringFieldNumber);
        if (field == 0 || field != wanted || type != WireFormat::WIRETYPE_LENGTH_DELIMITED) {
            if (field == 0 || !WireFormat::SkipField(&in, key))
                return refuse(known, MediaKind::Image, at, u"its data is damaged"_s);
            continue;
        }
        quint32 size = 0;
        if (!in.ReadVarint32(&size) || size > static_cast<quint32>(length - in.CurrentPosition()))
            return refuse(known, MediaKind::Image, at, u"its data is damaged"_s);
        // A tensor's first two strings are the images' width and height; an Image's last string wins.
        if (!tensor)
            images.clear();
        if (!tensor || strings++ >= 2) {
            if (static_cast<qint64>(images.size()) >= kMaxImagesPerTensor)
                return refuse(known, MediaKind::Image, at,
                              u"more than %1 images at one step"_s.arg(kMaxImagesPerTensor));
            images.emplace_back(in.CurrentPosition(), static_cast<int>(size));
        }
        in.Skip(static_cast<int>(size));
    }
    if (!in.ConsumedEntireMessage())
        return refuse(known, MediaKind::Image, at, u"its data is damaged"_s);
    if (dtype != tfdtype::kString)
        return refuse(known, MediaKind::Image, at, u"a tensor of type %1, not of encoded images"_s.arg(dtype));
    int sample = 0;
    for (const auto &[offset, size] : images) {
        const QByteArrayView bytes(data + offset, size);
        auto info = imageInfo(bytes, m_limits.media);
        if (!info) {
            refuse(known, MediaKind::Image, at + offset, info.error().message);
        } else {
            indexItem(MediaItem{MediaKind::Image,
                                known.name,
                                0,
                                sample,
                                0,
                                {},
                                0,
                                size,
                                info->format,
                                info->width,
                                info->height,
                                0},
                      data + offset, at + offset);
        }
        ++sample;
    }
}

void EventFileReader::indexItem(MediaItem item, const char *data, qint64 at)
{
    if (m_recordMedia.size() >= kMaxItemsPerRecord) {
        if (m_recordMedia.size() == kMaxItemsPerRecord && m_recordRefused.isEmpty())
            m_recordRefused.append(Refusal{u"%1 '%2'"_s.arg(mediaKindText(item.kind), item.tag.left(64)), at,
                                           u"more than %1 images, histograms and texts in one event: the rest of "
                                           "them are not shown"_s.arg(kMaxItemsPerRecord)});
        return;
    }
    if (const QString why = metricNameProblem(item.tag); !why.isEmpty()) {
        m_recordRefused.append(Refusal{u"%1 '%2'"_s.arg(mediaKindText(item.kind), item.tag.left(64)), at,
                                       u"its tag is no tag: %1"_s.arg(why)});
        return;
    }
    item.offset = at;
    item.checksum = crc32c(QByteArrayView(data, item.length));
    m_recordMedia.append(std::move(item));
}

void EventFileReader::refuse(const Tag &known, MediaKind kind, qint64 at, const QString &why)
{
    m_recordRefused.append(Refusal{u"%1 '%2'"_s.arg(mediaKindText(kind), known.name.left(256)), at, why});
}

// The record's media, refusals and hyperparameters, kept when the record was (its step and wall
// time known now), else dropped with it.
void EventFileReader::endRecord(bool kept)
{
    const qint64 step = m_recordStep;
    if (kept) {
        for (MediaItem &item : m_recordMedia) {
            item.step = step;
            item.wallMs = m_recordWallMs;
        }
        m_media.append(std::move(m_recordMedia));
        for (const Refusal &r : std::as_const(m_recordRefused)) {
            if (++m_refusedCount > kMaxRefusedKept)
                continue;
            m_refused.append(Error{
                u"TensorBoard event file: %1 at step %2 (byte %3) is refused: %4"_s.arg(r.what).arg(step).arg(r.at).arg(
                    r.why),
                m_path, 0, 0, u"it is not shown; the rest of the file is read"_s});
        }
        if (m_recordHParams)
            m_hparams = std::move(m_recordHParams);
    }
    m_recordMedia.clear();
    m_recordRefused.clear();
    m_recordHParams.reset();
}

// A tag's name and plugin, remembered so that the name is converted once and its points share it,
// and so that a value without metadata has its tag's plugin. Past kMaxTags (a file that makes up
// tags) a new tag is not remembered.
EventFileReader::Plugin EventFileReader::pluginOf(const std::string &name)
{
    if (name.empty() || name == "scalars")
        return Plugin::Scalars;
    if (name == "images")
        return Plugin::Images;
    if (name == "histograms")
        return Plugin::Histograms;
    if (name == "text")
        return Plugin::Text;
    if (name == "hparams")
        return Plugin::HParams;
    return Plugin::Other;
}

EventFileReader::Tag &EventFileReader::tag(const char *bytes, int length)
{
    return tag(std::string(bytes, static_cast<std::size_t>(length)));
}

EventFileReader::Tag &EventFileReader::tag(const std::string &bytes)
{
    if (const auto found = m_tags.find(bytes); found != m_tags.end())
        return found->second;
    Tag fresh{m_prefix + QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size())), Plugin::Scalars};
    if (m_tags.size() < kMaxTags)
        return m_tags.emplace(bytes, std::move(fresh)).first->second;
    m_unremembered = std::move(fresh);
    return m_unremembered;
}

} // namespace ferry::run
