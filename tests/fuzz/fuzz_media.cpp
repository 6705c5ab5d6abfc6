// Fuzz target for the readers of a run's images, histograms and texts (metrics/media.h), on whatever a
// script wrote: untrusted. The input is read as an encoded image's header, a HistogramProto, a
// histograms plugin's tensor, a text tensor, the hparams plugin's content and a line of
// histograms.jsonl, each of which must keep its limits when it accepts; and as a histograms.jsonl
// file read whole and in pieces (their size from the input's first byte), which must give the same
// items and refusals (tests/fuzz/run.sh; replayed by fuzz_media_replay).
#include "metrics/media.h"

#include <QByteArray>

#include <cmath>
#include <cstddef>
#include <cstdint>

using ferry::run::HistogramLinesReader;
using ferry::run::MediaItem;
using ferry::run::MediaLimits;

namespace {

void checkHistogram(const ferry::Expected<ferry::run::Histogram> &h, const MediaLimits &limits)
{
    if (!h)
        return;
    if (h->bucket.size() != h->bucketLimit.size() || qsizetype(h->bucket.size()) > limits.maxBins)
        __builtin_trap(); // accepted a histogram past its limits
    for (std::size_t i = 0; i < h->bucketLimit.size(); ++i) {
        if (std::isnan(h->bucketLimit[i]) || !std::isfinite(h->bucket[i]) || h->bucket[i] < 0 ||
            (i > 0 && h->bucketLimit[i] < h->bucketLimit[i - 1]))
            __builtin_trap();
    }
}

struct LinesReading {
    QList<MediaItem> items;
    qsizetype refused = 0;
    qint64 offset = 0;
};

LinesReading readLines(QByteArrayView file, qsizetype piece, const MediaLimits &limits)
{
    HistogramLinesReader reader(QStringLiteral("fuzz"), limits);
    LinesReading r;
    qsizetype available = 0;
    while (available < file.size()) {
        available = piece > 0 ? std::min(file.size(), available + piece) : file.size();
        if (reader.offset() < 0 || reader.offset() > available)
            __builtin_trap(); // consumed what it was not given
        auto read = reader.read(file.sliced(reader.offset(), available - reader.offset()));
        r.items += read.items;
        r.refused += read.refused.size();
    }
    r.offset = reader.offset();
    return r;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const QByteArrayView input(reinterpret_cast<const char *>(data), static_cast<qsizetype>(size));
    MediaLimits limits;
    limits.maxBins = 64;
    limits.maxLineBytes = 256;
    limits.maxTextBytes = 128;
    limits.maxTextStrings = 8;
    limits.maxImagePixels = 4096;
    limits.maxImageSide = 256;
    if (const auto info = ferry::run::imageInfo(input, limits);
        info && (info->width <= 0 || info->height <= 0 || info->width > limits.maxImageSide ||
                 info->height > limits.maxImageSide || qint64(info->width) * info->height > limits.maxImagePixels))
        __builtin_trap(); // accepted an image past its limits
    (void)ferry::run::isWholeImage(input);
    checkHistogram(ferry::run::histogramFromProto(input, limits), limits);
    checkHistogram(ferry::run::histogramFromTensor(input, limits), limits);
    if (const auto line = ferry::run::histogramFromLine(input, limits))
        checkHistogram(line->histogram, limits);
    if (const auto text = ferry::run::textFromTensor(input, limits); text && text->size() > 2 * limits.maxTextBytes + 8)
        __builtin_trap(); // more text than its strings' bytes and their separators
    (void)ferry::run::hparamsFromPluginContent(input);
    const qsizetype piece = size > 0 ? 1 + data[0] % 64 : 1;
    const LinesReading whole = readLines(input, 0, limits), pieces = readLines(input, piece, limits);
    if (whole.items != pieces.items || whole.refused != pieces.refused || whole.offset != pieces.offset)
        __builtin_trap(); // the pieces of a growing file gave other items than the whole
    return 0;
}
