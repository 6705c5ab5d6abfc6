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

QList<MediaItem> RunMedia::items(MediaKind kind, const QString &tag, qint64 fromStep, qsizetype limit) const
{
    if (tag.isEmpty())
        return {};
    return m_store.media(m_runId, kind, tag, fromStep, limit);
}

void RunMedia::forEachItem(MediaKind kind, const QString &tag,
                           const std::function<bool(const MediaItem &)> &visit) const
{
    constexpr qsizetype kPage = 4096; // more than the samples of one step (the images plugin's 1,024)
    qint64 from = std::numeric_limits<qint64>::min();
    for (;;) {
        QList<MediaItem> page = items(kind, tag, from, kPage);
        const bool full = page.size() == kPage;
        // A full page may end within a step: that step comes whole with the next page.
        if (full && page.first().step != page.last().step) {
            const qint64 last = page.last().step;
            while (page.last().step == last)
                page.removeLast();
        }
        for (const MediaItem &item : std::as_const(page)) {
            if (!visit(item))
                return;
        }
        if (!full || page.isEmpty() || page.last().step == std::numeric_limits<qint64>::max())
            return;
        from = page.last().step + 1;
    }
}

QList<qint64> RunMedia::steps(MediaKind kind, const QString &tag) const
{
    return m_store.mediaSteps(m_runId, kind, tag);
}

std::optional<MediaItem> RunMedia::item(MediaKind kind, const QString &tag, qint64 step, int sample) const
{
    return m_store.mediaItem(m_runId, kind, tag, step, sample);
}

std::optional<MediaItem> RunMedia::atOrBefore(MediaKind kind, const QString &tag, qint64 step, int sample) const
{
    const QList<qint64> all = steps(kind, tag);
    for (auto it = std::upper_bound(all.begin(), all.end(), step); it != all.begin();) {
        --it;
        if (auto found = item(kind, tag, *it, sample))
            return found;
    }
    return std::nullopt;
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
    const QList<qint64> all = steps(MediaKind::Histogram, tag);
    QList<qint64> chosen;
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
    for (const qint64 step : std::as_const(chosen)) {
        const auto found = item(MediaKind::Histogram, tag, step);
        if (!found)
            continue; // gone meanwhile, or a step of other samples only
        auto h = histogram(*found);
        if (!h) {
            if (problems)
                problems->append(h.error());
            continue;
        }
        out.append(StepHistogram{found->step, found->wallMs, std::move(*h)});
    }
    return out;
}

} // namespace ferry::run
