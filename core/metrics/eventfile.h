// TensorBoard's event files (events.out.tfevents.*) read as they grow into metric points.
#pragma once

#include "common/crc32c.h"
#include "common/error.h"
#include "metrics/media.h"
#include "metrics/metricparser.h"

#include <QByteArrayView>
#include <QList>
#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>

namespace google::protobuf {
class Arena;
} // namespace google::protobuf

namespace ferry::tensorboard {
class Summary_Value;
} // namespace ferry::tensorboard

namespace ferry::run {

// What one event file may make its reader allocate. A record's length is checked against its CRC
// and capped before anything is read or allocated for it. Parsing a message allocates an object
// for each message embedded in it, whatever their size (a 60 MB record of empty summary values
// makes 2 GB of them), so a record longer than maxWholeRecordBytes (an image, a graph, a merged
// TensorFlow 1 summary) is not parsed whole: it is walked field by field and its summary values
// are parsed one at a time, those longer than maxValueBytes (images, audio, large tensors: never
// a scalar) skipped unparsed.
struct EventFileLimits {
    qint64 maxRecordBytes = 64ll << 20;     // a longer record is an error (at most 1 GiB)
    qint64 maxWholeRecordBytes = 1ll << 20; // a scalar's event is tens of bytes
    qint64 maxValueBytes = 1ll << 20;
    MediaLimits media; // what an image, a histogram or a text may be (metrics/media.h)
};

// TensorBoard's event files (events.out.tfevents.*, written by torch's SummaryWriter, tensorboardX,
// Keras' TensorBoard callback, Lightning's TensorBoardLogger): TFRecord framing, each record
//   u64 length, u32 masked CRC-32C of those 8 bytes, `length` bytes of data, u32 masked CRC-32C of the data
// (all little-endian), the data an Event message (metrics/tensorboard_event.proto). Read as the file
// grows: each call is handed the bytes from offset() on and consumes only complete records. The
// file is untrusted (EventFileLimits).
//
// The points are the scalars: a value's simple_value, or its tensor when that is one DT_FLOAT or
// DT_DOUBLE element (Keras and TensorFlow 2 write scalars so) of the "scalars" plugin or of none.
// A value without metadata has its tag's plugin: TensorFlow 1 writes the metadata only with a
// tag's first value. Audio, the graph and the file's version record give nothing. A point is named
// prefix + tag, at the event's step (0 when it has none), at the event's wall time; it has no epoch.
//
// Images, histograms and text are indexed, not read (metrics/media.h): each becomes a MediaItem
// naming its bytes' offset and length in the file, after its header or its buckets were checked
// (MediaLimits). Read: a value's Image (SummaryWriter.add_image, TF1), a tensor of the "images"
// plugin (TF2: its width, its height, then up to max_outputs encoded images), a HistogramProto
// (SummaryWriter.add_histogram, TF1), a [k, 3] tensor of the "histograms" plugin (TF2), a string
// tensor of the "text" plugin. One that fails its checks (a decompression bomb, a NaN bucket limit,
// 10^9 buckets) is refused: no item, an Error naming the file, the tag and what is wrong
// (takeRefused), and the reading goes on. The "hparams" plugin's session start gives the run's
// hyperparameters (takeHParams). Named and placed as a point is; an item's `file` is left empty.
class EventFileReader {
public:
    using Limits = EventFileLimits; // outside the class, complete where it is a default argument

    // `prefix` goes before every tag ("train/" for a file under a train/ folder); `path` names the
    // file in errors.
    explicit EventFileReader(QString prefix = {}, QString path = {}, Limits limits = {});
    ~EventFileReader();
    EventFileReader(EventFileReader &&) noexcept;
    EventFileReader &operator=(EventFileReader &&) noexcept;

    // `bytes`: the file's bytes from offset() on, as many as there are now. Reads every complete
    // record and returns the points of their scalars; a partial record at the end waits, offset()
    // before it, for a later call with more bytes.
    // A damaged record (a CRC that does not match, a length over the limit, data that is no Event)
    // ends the reading: its Error names the file and the record's byte offset. The points of the
    // good records before it are never lost: a call that read some first returns their points
    // (failed() is then true) and the next call the Error. Every call after that returns the same
    // Error; offset() stays at the damaged record.
    Expected<QList<MetricPoint>> read(QByteArrayView bytes);

    // What the records read so far held besides scalars, each handed out once: the media items,
    // the media refused (at most a few dozen are kept, the rest counted in refusedCount()), the
    // last hyperparameters of an hparams session start (nullopt: none since the last call).
    QList<MediaItem> takeMedia() { return std::exchange(m_media, {}); }
    QList<Error> takeRefused() { return std::exchange(m_refused, {}); }
    qint64 refusedCount() const { return m_refusedCount; }
    std::optional<QList<HParam>> takeHParams() { return std::exchange(m_hparams, std::nullopt); }

    qint64 offset() const { return m_offset; } // the bytes of the file consumed: whole records
    // Carries on from where an earlier reader of the same file stopped, its offset() (a follower
    // re-attached after a restart): the next call is handed the bytes from `offset` on. What the
    // earlier reader learned of the tags' plugins is not known: a tag of a plugin other than the
    // scalars' whose values after `offset` lack metadata (TensorFlow 1) reads as the scalars'.
    void resumeAt(qint64 offset);
    // How many bytes from offset() the next call needs to read a record: 12 (a header) while the
    // next record's length is unknown, its whole size once its header has been read; 0 after an error.
    qint64 bytesWanted() const;
    bool failed() const { return m_error.has_value(); } // the file is not read further

private:
    enum class Plugin { Scalars, Images, Histograms, Text, HParams, Other }; // "scalars" or none: Scalars
    struct Tag {
        QString name; // prefix + tag
        Plugin plugin = Plugin::Scalars;
    };
    // A refused item, said once the record's step is known.
    struct Refusal {
        QString what; // "image 'samples'"
        qint64 at = 0;
        QString why;
    };

    // Reads one record's data (its CRC checked) into `out`; false: it is no Event.
    bool readEvent(const char *data, qint64 length, QList<MetricPoint> &out);
    // The record walked field by field: its scalars into `out` when `scalars`, its media indexed.
    bool readLargeEvent(const char *data, qint64 length, QList<MetricPoint> &out, bool scalars);
    bool readLargeSummary(const char *data, int length, qint64 at, QList<MetricPoint> &out, bool scalars);
    void takeValue(const tensorboard::Summary_Value &value, double step, qint64 wallMs, QList<MetricPoint> &out);
    // One summary value's media (`at`: its offset in the file), walked without parsing its payload.
    bool indexValue(const char *data, int length, qint64 at);
    void indexImages(Tag &tag, const char *data, int length, qint64 at, bool tensor);
    void indexItem(MediaItem item, const char *data, qint64 at);
    void refuse(const Tag &tag, MediaKind kind, qint64 at, const QString &why);
    void endRecord(bool kept);
    static Plugin pluginOf(const std::string &name);
    Tag &tag(const std::string &bytes);
    Tag &tag(const char *bytes, int length);
    Error damaged(const QString &what) const;
    void emptyArenaIfFull();

    QString m_prefix;
    QString m_path;
    Limits m_limits;
    qint64 m_offset = 0;
    qint64 m_pendingLength = -1; // the data length of the record at m_offset, once its header is checked
    std::optional<Error> m_error;
    // Messages are parsed on an arena, a record's or a value's at a time, and nothing of them is
    // kept: they cost no malloc and free each, and what a hostile record made the parser allocate
    // is given back as soon as the arena holds more than a megabyte (eventfile.cpp).
    std::unique_ptr<google::protobuf::Arena> m_arena;
    std::unordered_map<std::string, Tag> m_tags; // by the tag's bytes, up to a cap
    Tag m_unremembered;                          // a tag past the cap, for one value
    // The record being read: what it holds besides scalars, kept once the whole record is read.
    bool m_recordHasMedia = false;
    qint64 m_recordStep = 0; // the record's step and wall time, once walked
    qint64 m_recordWallMs = 0;
    QList<MediaItem> m_recordMedia;
    QList<Refusal> m_recordRefused;
    std::optional<QList<HParam>> m_recordHParams;
    // What the records read hold, until taken.
    QList<MediaItem> m_media;
    QList<Error> m_refused;
    qint64 m_refusedCount = 0;
    std::optional<QList<HParam>> m_hparams;
};

// The masked form TFRecord stores, ((crc >> 15) | (crc << 17)) + 0xa282ead8: a CRC of data that
// holds CRCs is no weaker than one of other data.
quint32 maskedCrc32c(QByteArrayView bytes);

} // namespace ferry::run
