#include "metrics/eventfile.h"

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
constexpr int kDtFloat = 1;                  // TensorFlow's DataType
constexpr int kDtDouble = 2;

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
    if (tensor.dtype() == kDtFloat) {
        if (content.size() == sizeof(quint32))
            return std::bit_cast<float>(qFromLittleEndian<quint32>(content.data()));
        if (content.empty() && tensor.float_val_size() == 1)
            return tensor.float_val(0);
    } else if (tensor.dtype() == kDtDouble) {
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
        if (!readEvent(data, m_pendingLength, points)) {
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
    if (length > m_limits.maxWholeRecordBytes)
        return readLargeEvent(data, length, out);
    Event *event = google::protobuf::Arena::CreateMessage<Event>(m_arena.get());
    const bool parsed = event->ParseFromArray(data, static_cast<int>(length));
    if (parsed && event->what_case() == Event::kSummary) {
        const double step = static_cast<double>(event->step());
        const qint64 wallMs = wallMsOf(event->wall_time());
        for (const Summary_Value &value : event->summary().value())
            takeValue(value, step, wallMs, out);
    } // else the file's version, a graph, a session log: no scalar
    emptyArenaIfFull();
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
bool EventFileReader::readLargeEvent(const char *data, qint64 length, QList<MetricPoint> &out)
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
            if (!readLargeSummary(data + at, static_cast<int>(size), out) || !in.Skip(static_cast<int>(size)))
                return false;
        } else {
            if ((field == Event::kFileVersionFieldNumber || field == Event::kGraphDefFieldNumber) &&
                type == WireFormat::WIRETYPE_LENGTH_DELIMITED)
                out.resize(first);
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
    return true;
}

// A Summary's values, each parsed alone; one longer than maxValueBytes is an image, audio or a
// large tensor, never a scalar, and is skipped unparsed.
bool EventFileReader::readLargeSummary(const char *data, int length, QList<MetricPoint> &out)
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
        if (size <= m_limits.maxValueBytes) {
            auto *value = google::protobuf::Arena::CreateMessage<Summary_Value>(m_arena.get());
            const bool parsed = value->ParseFromArray(data + at, static_cast<int>(size));
            if (parsed)
                takeValue(*value, 0, 0, out);
            emptyArenaIfFull();
            if (!parsed)
                return false;
        }
        if (!in.Skip(static_cast<int>(size)))
            return false;
    }
    return in.ConsumedEntireMessage();
}

void EventFileReader::takeValue(const Summary_Value &value, double step, qint64 wallMs, QList<MetricPoint> &out)
{
    Tag &known = tag(value.tag());
    if (value.has_metadata()) {
        const std::string &plugin = value.metadata().plugin_data().plugin_name();
        known.scalar = plugin.empty() || plugin == "scalars";
    }
    std::optional<double> number;
    if (value.value_case() == Summary_Value::kSimpleValue)
        number = value.simple_value();
    else if (value.value_case() == Summary_Value::kTensor && known.scalar)
        number = tensorScalar(value.tensor());
    if (number)
        out.append(MetricPoint{known.name, step, *number, wallMs, kNoEpoch});
}

// A tag's name and plugin, remembered so that the name is converted once and its points share it,
// and so that a value without metadata has its tag's plugin. Past kMaxTags (a file that makes up
// tags) a new tag is not remembered.
EventFileReader::Tag &EventFileReader::tag(const std::string &bytes)
{
    if (const auto found = m_tags.find(bytes); found != m_tags.end())
        return found->second;
    Tag fresh{m_prefix + QString::fromUtf8(bytes.data(), static_cast<qsizetype>(bytes.size())), true};
    if (m_tags.size() < kMaxTags)
        return m_tags.emplace(bytes, std::move(fresh)).first->second;
    m_unremembered = std::move(fresh);
    return m_unremembered;
}

} // namespace ferry::run
