// The Media tab's reads of runs' images and histograms, made off the GUI thread: values only.
#pragma once

// What the Images and Distributions views (ui/media/) show, read from the store's media index and
// the run folders (tracking/runmedia.h) by plain functions a QtConcurrent job calls: each blocks on
// the store or the files and returns a value (never a pointer into the worker). An image is decoded
// here too, already scaled to the size it is drawn at, so the window holds only what it shows.
#include "metrics/media.h"
#include "tracking/runmedia.h"

#include <QHash>
#include <QImage>
#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::run {
class RunStore;
}

namespace ferry::ui {

// The folder of run `runId` under the workspace's runs folder.
QString mediaRunDir(const QString &runsDir, const QString &runId);

// The runs' image tags, and the steps of one tag in each run.
struct ImageIndex {
    QStringList tags;                       // every run's, sorted, each once
    QString tag;                            // the tag the steps are of (the one asked, else the first)
    QHash<QString, QList<qint64>> runSteps; // run id -> its steps of `tag`, sorted
    QList<qint64> steps;                    // the union, sorted
    int samples = 1; // images at one step (TensorFlow 2's max_outputs): the most any run has at its last step
    bool operator==(const ImageIndex &) const = default;
};
ImageIndex readImageIndex(const run::RunStore &store, const QStringList &runIds, const QString &tag);

// One run's image at a step as a view shows it: the item at or before the step (TensorBoard's
// rule), decoded and scaled to fit `fit` (keeping its aspect; never enlarged), or why there is none.
struct ShownImage {
    QString runId;
    std::optional<run::MediaItem> item; // none: the run has no image at or before the step
    QImage image;                       // null with an error
    QString error;                      // the image was refused or cannot be decoded: what to say
};
ShownImage readShownImage(const run::RunStore &store, const QString &runsDir, const QString &runId, const QString &tag,
                          qint64 step, QSize fit, int sample = 0);
// An item's image at full size (the view's "open at full size").
ShownImage readFullImage(const run::RunStore &store, const QString &runsDir, const QString &runId,
                         const run::MediaItem &item);
// Encoded bytes decoded, scaled to fit `fit` when it is valid; the decoder's allocation is capped
// at the media limits' pixels (a header that lies is refused by Qt, not obeyed). Null and `error`
// set when it cannot be.
QImage decodeMediaImage(const QByteArray &bytes, QSize fit, QString *error);

// The runs' histogram tags.
QStringList readHistogramTags(const run::RunStore &store, const QStringList &runIds);

// A run's histograms of one tag, at most `most` steps spread over them (the first and the last
// always), with what could not be read.
struct HistogramSeries {
    QString runId;
    QString tag;
    QList<run::RunMedia::StepHistogram> steps;
    QStringList problems;
};
inline constexpr qsizetype kMostHistogramSteps = 1000;
HistogramSeries readHistogramSeries(const run::RunStore &store, const QString &runsDir, const QString &runId,
                                    const QString &tag, qsizetype most = kMostHistogramSteps);

} // namespace ferry::ui
