#include "tracking/runmedia.h"

#include <algorithm>

namespace ferry::run {

RunMedia::RunMedia(const RunStore &store, QString runDir, QString runId)
    : m_store(store), m_runDir(std::move(runDir)), m_runId(std::move(runId))
{
}

QStringList RunMedia::tags(MediaKind kind) const
{
    return m_store.mediaTags(m_runId, kind);
}

QList<MediaItem> RunMedia::items(MediaKind kind, const QString &tag) const
{
    if (tag.isEmpty())
        return {};
    return m_store.media(m_runId, kind, tag);
}

QList<qint64> RunMedia::steps(MediaKind kind, const QString &tag) const
{
    QList<qint64> steps;
    for (const MediaItem &item : items(kind, tag)) {
        if (steps.isEmpty() || steps.last() != item.step)
            steps.append(item.step);
    }
    return steps;
}

std::optional<MediaItem> RunMedia::item(MediaKind kind, const QString &tag, qint64 step, int sample) const
{
    return m_store.mediaItem(m_runId, kind, tag, step, sample);
}

std::optional<MediaItem> RunMedia::atOrBefore(MediaKind kind, const QString &tag, qint64 step, int sample) const
{
    std::optional<MediaItem> best;
    for (const MediaItem &item : items(kind, tag)) {
        if (item.step > step)
            break;
        if (item.sample == sample)
            best = item;
    }
    return best;
}

Expected<QByteArray> RunMedia::imageBytes(const MediaItem &item) const
{
    return readMediaBytes(m_runDir, item);
}

Expected<Histogram> RunMedia::histogram(const MediaItem &item) const
{
    return readHistogram(m_runDir, item);
}

Expected<QString> RunMedia::text(const MediaItem &item) const
{
    return readText(m_runDir, item);
}

QList<RunMedia::StepHistogram> RunMedia::histograms(const QString &tag, qsizetype most, QList<Error> *problems) const
{
    const QList<MediaItem> all = items(MediaKind::Histogram, tag);
    QList<MediaItem> chosen;
    if (most <= 0 || all.size() <= most) {
        chosen = all;
    } else if (most == 1) {
        chosen = {all.last()};
    } else {
        // Evenly spread, the first and the last among them.
        for (qsizetype i = 0; i < most; ++i)
            chosen.append(all.at(i * (all.size() - 1) / (most - 1)));
    }
    QList<StepHistogram> out;
    out.reserve(chosen.size());
    for (const MediaItem &item : std::as_const(chosen)) {
        auto h = histogram(item);
        if (!h) {
            if (problems)
                problems->append(h.error());
            continue;
        }
        out.append(StepHistogram{item.step, item.wallMs, std::move(*h)});
    }
    return out;
}

} // namespace ferry::run
