#include "ui/media/mediareads.h"

#include "store/runstore.h"

#include <QBuffer>
#include <QDir>
#include <QImageReader>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::ui {

QString mediaRunDir(const QString &runsDir, const QString &runId)
{
    return QDir(runsDir).filePath(runId);
}

ImageIndex readImageIndex(const run::RunStore &store, const QStringList &runIds, const QString &tag)
{
    ImageIndex index;
    for (const QString &id : runIds)
        index.tags << store.mediaTags(id, run::MediaKind::Image);
    index.tags.sort();
    index.tags.removeDuplicates();
    index.tag = index.tags.contains(tag) ? tag : index.tags.value(0);
    if (index.tag.isEmpty())
        return index;
    for (const QString &id : runIds) {
        const QList<qint64> steps = store.mediaSteps(id, run::MediaKind::Image, index.tag);
        if (!steps.isEmpty()) {
            index.runSteps.insert(id, steps);
            // The samples at its last step (a page of them: the images plugin holds a few).
            for (const run::MediaItem &item : store.media(id, run::MediaKind::Image, index.tag, steps.last(), 64))
                if (item.step == steps.last())
                    index.samples = std::max(index.samples, item.sample + 1);
        }
        index.steps << steps;
    }
    std::sort(index.steps.begin(), index.steps.end());
    index.steps.erase(std::unique(index.steps.begin(), index.steps.end()), index.steps.end());
    return index;
}

QImage decodeMediaImage(const QByteArray &bytes, QSize fit, QString *error)
{
    QBuffer buffer;
    buffer.setData(bytes);
    buffer.open(QIODevice::ReadOnly);
    QImageReader reader(&buffer);
    // What the media limits let a header promise (metrics/media.h), and not a byte more.
    const run::MediaLimits limits;
    reader.setAllocationLimit(int((limits.maxImagePixels * 4) >> 20) + 1);
    const QSize size = reader.size();
    if (size.isValid() && fit.isValid() && (size.width() > fit.width() || size.height() > fit.height()))
        reader.setScaledSize(size.scaled(fit, Qt::KeepAspectRatio).expandedTo(QSize(1, 1)));
    QImage image = reader.read();
    if (image.isNull() && error)
        *error = QObject::tr("cannot be decoded: %1").arg(reader.errorString());
    return image;
}

namespace {

ShownImage decodedItem(const run::RunMedia &media, const QString &runId, const run::MediaItem &item, QSize fit)
{
    ShownImage shown;
    shown.runId = runId;
    shown.item = item;
    const auto bytes = media.imageBytes(item);
    if (!bytes) {
        // What is wrong, and the file relative to the run folder (the path is long, the run known).
        shown.error = u"%1 (%2)"_s.arg(bytes.error().message, item.file);
        return shown;
    }
    QString why;
    shown.image = decodeMediaImage(*bytes, fit, &why);
    if (shown.image.isNull())
        shown.error = QObject::tr("the image %1 (%2)").arg(why, item.file);
    return shown;
}

} // namespace

ShownImage readShownImage(const run::RunStore &store, const QString &runsDir, const QString &runId, const QString &tag,
                          qint64 step, QSize fit, int sample)
{
    const run::RunMedia media(store, mediaRunDir(runsDir, runId), runId);
    const auto item = media.atOrBefore(run::MediaKind::Image, tag, step, sample);
    if (!item) {
        ShownImage none;
        none.runId = runId;
        return none;
    }
    return decodedItem(media, runId, *item, fit);
}

ShownImage readFullImage(const run::RunStore &store, const QString &runsDir, const QString &runId,
                         const run::MediaItem &item)
{
    const run::RunMedia media(store, mediaRunDir(runsDir, runId), runId);
    return decodedItem(media, runId, item, {});
}

QStringList readHistogramTags(const run::RunStore &store, const QStringList &runIds)
{
    QStringList tags;
    for (const QString &id : runIds)
        tags << store.mediaTags(id, run::MediaKind::Histogram);
    tags.sort();
    tags.removeDuplicates();
    return tags;
}

HistogramSeries readHistogramSeries(const run::RunStore &store, const QString &runsDir, const QString &runId,
                                    const QString &tag, qsizetype most)
{
    HistogramSeries series;
    series.runId = runId;
    series.tag = tag;
    const run::RunMedia media(store, mediaRunDir(runsDir, runId), runId);
    QList<Error> problems;
    series.steps = media.histograms(tag, most, &problems);
    for (const Error &e : std::as_const(problems))
        series.problems << e.toString();
    return series;
}

} // namespace ferry::ui
