// A run's images, histograms and texts as a view or the command line reads them: the store's index,
// the bytes read on demand from where the run wrote them.
#pragma once

#include "metrics/media.h"
#include "store/runstore.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <functional>
#include <limits>
#include <optional>

namespace ferry::run {

// One run's media (metrics/media.h, docs/metrics.md "Images, histograms and text"). The store
// holds only their index (RunStore::media): what each is and where its bytes are in the run
// folder. This reads one item's bytes when it is shown, so memory holds what is on screen, never
// what the run wrote. The index calls are cheap reads of the store; the reads of bytes block on
// the file system (call them off the GUI thread; the object may be used from any thread, one
// call at a time per thread, as RunStore's reads).
//
// For a view: tags(kind) for its list; steps(kind, tag) for a slider; image(tag, step) for the
// picture at a step (its bytes as written: QImage::fromData decodes them); histograms(tag) for
// the distribution's curves. The index grows while a run is followed (RunFollower::Step::media
// says how many came), so a view reads tags and steps again after a step that brought some.
class RunMedia {
public:
    RunMedia(const RunStore &store, QString runDir, QString runId);

    const QString &runDir() const { return m_runDir; }

    // The index: a kind's tags (sorted); a tag's items (by step, then sample; from `fromStep` on,
    // at most `limit`: a page); every item of a tag a page at a time (`visit` returns false to
    // stop; memory holds one page however many there are); its steps (sorted, each once); the item
    // at a step, or the nearest one at or before it (a slider between steps).
    QStringList tags(MediaKind kind) const;
    QList<MediaItem> items(MediaKind kind, const QString &tag, qint64 fromStep = std::numeric_limits<qint64>::min(),
                           qsizetype limit = -1) const;
    void forEachItem(MediaKind kind, const QString &tag, const std::function<bool(const MediaItem &)> &visit) const;
    QList<qint64> steps(MediaKind kind, const QString &tag) const;
    std::optional<MediaItem> item(MediaKind kind, const QString &tag, qint64 step, int sample = 0) const;
    std::optional<MediaItem> atOrBefore(MediaKind kind, const QString &tag, qint64 step, int sample = 0) const;

    // One item read (checked again: its length, its checksum, an image's header). An Error names
    // the file and says what is wrong (gone, changed since it was indexed, refused).
    Expected<QByteArray> imageBytes(const MediaItem &item) const; // encoded as written, never re-encoded
    Expected<Histogram> histogram(const MediaItem &item) const;
    Expected<QString> text(const MediaItem &item) const;

    // A tag's histograms, at most `most` of them spread evenly over its steps (the first and the
    // last always among them; 0: all), each with its step (the first sample of a step); an item
    // that cannot be read is left out and its Error added to `problems` when given.
    struct StepHistogram {
        qint64 step = 0;
        qint64 wallMs = 0;
        Histogram histogram;
    };
    QList<StepHistogram> histograms(const QString &tag, qsizetype most = 0, QList<Error> *problems = nullptr) const;

private:
    const RunStore &m_store;
    QString m_runDir;
    QString m_runId;
};

} // namespace ferry::run
