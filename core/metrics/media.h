// Images, histograms and text a run writes: where each is, checked before it is indexed, read on demand.
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QByteArrayView>
#include <QList>
#include <QString>

#include <optional>
#include <vector>

// What a run writes besides scalars (docs/metrics.md, "Images, histograms and text"): TensorBoard's
// image, histogram and text summaries (metrics/eventfile.h), images in output/images/<tag>/<step>.png
// and histograms in histograms.jsonl. They stay where the run wrote them: the store keeps an index
// of MediaItems (what, at which tag and step, in which file at which bytes) and a view or the
// command line reads one item's bytes when it shows it. Everything here is untrusted input: an
// item is checked (MediaLimits) before it is indexed and again when it is read, and refused with an
// Error that names its file and what is wrong.

namespace ferry::run {

enum class MediaKind { Image, Histogram, Text };
QString mediaKindText(MediaKind kind); // "image", "histogram", "text"
std::optional<MediaKind> mediaKindFromText(QStringView text);

// How an item's bytes are to be read (MediaItem::format).
namespace mediaformat {
inline constexpr QLatin1StringView kPng{"png"}; // images: the encoded file, as written
inline constexpr QLatin1StringView kJpeg{"jpeg"};
inline constexpr QLatin1StringView kGif{"gif"};
inline constexpr QLatin1StringView kHistogramProto{"histo"};   // a TensorBoard HistogramProto
inline constexpr QLatin1StringView kHistogramTensor{"tensor"}; // the histograms plugin's [k, 3] tensor
inline constexpr QLatin1StringView kHistogramLine{"jsonl"};    // a line of histograms.jsonl
inline constexpr QLatin1StringView kTextTensor{"tensor"};      // the text plugin's string tensor
} // namespace mediaformat

// One image, histogram or text of a run: where it is, never what. What the store keeps per item.
struct MediaItem {
    MediaKind kind = MediaKind::Image;
    QString tag;       // the summary's tag (with its file's prefix, as a scalar's), or the folder's
    qint64 step = 0;   // the event's step, the line's "step", the file's name
    int sample = 0;    // one of several at one tag and step: the images plugin's tensor holds up to max_outputs
    qint64 wallMs = 0; // when it was written: the event's wall time, the line's, the file's modification
    QString file;      // relative to the run folder, '/'-separated
    qint64 offset = 0; // its bytes in `file`: an encoded image, a HistogramProto, a tensor, a line
    qint64 length = 0;
    QString format;            // mediaformat
    int width = 0, height = 0; // an image's, from its own header
    quint32 checksum = 0;      // CRC-32C of the bytes when they were indexed
    bool operator==(const MediaItem &) const = default;
};

// TensorFlow's DataType numbers of the tensors Ferry reads (TensorProto.dtype).
namespace tfdtype {
inline constexpr int kFloat = 1;
inline constexpr int kDouble = 2;
inline constexpr int kString = 7;
} // namespace tfdtype

// What an item may be: larger or more is refused. An image's pixels are what decoding it would
// allocate (four bytes each, as a view's QImage holds them): a decompression bomb (a small PNG whose
// header promises gigabytes) and a 60,000 x 60,000 header are refused by their headers, before
// anything is inflated.
struct MediaLimits {
    qint64 maxImageBytes = 64ll << 20; // an encoded image (an event file's record is at most this)
    qint64 maxImagePixels = 1ll << 26; // 8192 x 8192: 256 MiB decoded
    qint64 maxImageSide = 32768;       // pixels, either side
    qsizetype maxBins = 1 << 16;       // a histogram's buckets
    qint64 maxTextBytes = 1 << 20;     // a text summary's strings together
    qsizetype maxTextStrings = 1 << 14;
    qint64 maxLineBytes = 4 << 20; // a line of histograms.jsonl
};

// What an encoded image's header says.
struct ImageInfo {
    QString format; // mediaformat::kPng, kJpeg or kGif
    int width = 0, height = 0;
};
// The header of a PNG, JPEG or GIF image (`bytes`: the whole file), checked against the limits.
// The Error says what is wrong (no path: the caller knows it).
Expected<ImageInfo> imageInfo(QByteArrayView bytes, const MediaLimits &limits = {});
// Whether an image's bytes end as its format ends (a PNG's IEND chunk, a JPEG's EOI marker, a
// GIF's trailer): an image file still being written is not taken for a whole one.
bool isWholeImage(QByteArrayView bytes);
// Whether an image file name says it is one: .png, .jpg, .jpeg or .gif (any case).
bool isImageFileName(QStringView name);

// A histogram as TensorBoard's HistogramProto has it: bucket i counts bucket[i] values up to
// bucket_limit[i] (from the one before it, the first from min). A form that does not carry min,
// max, num, sum or sum_squares leaves them NaN (num: the buckets' sum).
struct Histogram {
    double min = 0, max = 0, num = 0, sum = 0, sumSquares = 0;
    std::vector<double> bucketLimit;
    std::vector<double> bucket;
    bool operator==(const Histogram &) const = default;
};
// A serialised HistogramProto, its bucket count checked from the wire before anything is allocated.
// Refused: more buckets than the limit, bucket_limit and bucket of different lengths, a NaN or
// decreasing limit, a NaN, infinite or negative count.
Expected<Histogram> histogramFromProto(QByteArrayView bytes, const MediaLimits &limits = {});
// A serialised TensorProto of the histograms plugin (TensorFlow 2): a float or double [k, 3]
// tensor of (left edge, right edge, count), in tensor_content or float_val/double_val; its shape
// checked before its values are read. bucket_limit: the right edges; min: the first left edge,
// max: the last right edge; sum and sum_squares NaN. The same checks as a HistogramProto's.
Expected<Histogram> histogramFromTensor(QByteArrayView bytes, const MediaLimits &limits = {});
// One line of histograms.jsonl: {"tag": T, "step": N, "bucket_limit": [...], "bucket": [...]},
// optionally "min", "max", "num", "sum", "sum_squares", "wall_time" (seconds). The same checks.
struct HistogramLine {
    QString tag;
    qint64 step = 0;
    qint64 wallMs = 0; // 0: the line has no wall_time
    Histogram histogram;
};
Expected<HistogramLine> histogramFromLine(QByteArrayView line, const MediaLimits &limits = {});
// The same checks on a histogram however it was read: the Error says what is wrong.
Expected<void> checkHistogram(const Histogram &histogram, const MediaLimits &limits = {});

// A serialised TensorProto of the text plugin: DT_STRING, its strings in string_val. One string
// is the text; a vector's strings are its lines; a matrix's rows are lines, their cells joined by
// tabs (TensorBoard draws the last two as a table). Text that is not UTF-8 is read with U+FFFD.
Expected<QString> textFromTensor(QByteArrayView bytes, const MediaLimits &limits = {});

// The hparams plugin's session start (metadata content of a "_hparams_/session_start_info" value):
// each hyperparameter's name and its value as text ("0.001", "512", "adam", "true"); values that
// are lists or objects are left out. Error: the content is no HParamsPluginData.
struct HParam {
    QString name;
    QString value;
    bool operator==(const HParam &) const = default;
};
Expected<QList<HParam>> hparamsFromPluginContent(QByteArrayView content);

// histograms.jsonl, read as it grows (appended, like an event file): each call is handed the
// file's bytes from offset() on and consumes the complete lines; a line still being written
// waits. Each line becomes a MediaItem (file and tag set by the caller... the tag is the line's;
// `file` is left empty for the caller) indexing the line's bytes. A line that is no histogram, or
// is over the limits, is refused with an Error naming the file and the line's byte offset and
// skipped: the lines after it are read. A line longer than maxLineBytes is skipped to its end
// without being held.
class HistogramLinesReader {
public:
    explicit HistogramLinesReader(QString path = {}, MediaLimits limits = {});

    struct Read {
        QList<MediaItem> items;
        QList<Error> refused;
    };
    Read read(QByteArrayView bytes);

    qint64 offset() const { return m_offset; }
    void resumeAt(qint64 offset)
    {
        m_offset = offset;
        m_skipping = false;
    }

private:
    QString m_path;
    MediaLimits m_limits;
    qint64 m_offset = 0;
    bool m_skipping = false; // within a line too long to hold, until its end
};

// One item's bytes as the run wrote them, read from `runDir` without following a link
// (common/untrustedtree.h), checked again: its length, its checksum (an event file or a line
// never changes once written) and, for an image, its header. Blocks on the file: call it off the
// GUI thread. The Error names the file.
Expected<QByteArray> readMediaBytes(const QString &runDir, const MediaItem &item, const MediaLimits &limits = {});
// The same, decoded: an image's bytes, a histogram, a text.
Expected<Histogram> readHistogram(const QString &runDir, const MediaItem &item, const MediaLimits &limits = {});
Expected<QString> readText(const QString &runDir, const MediaItem &item, const MediaLimits &limits = {});

} // namespace ferry::run
