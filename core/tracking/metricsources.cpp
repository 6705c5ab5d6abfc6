#include "tracking/metricsources.h"

#include "common/crc32c.h"
#include "common/untrustedtree.h"
#include "metrics/eventfile.h"
#include "metrics/media.h"
#include "metrics/metricfiles.h"
#include "metrics/systemsamples.h"
#include "run/rundirectory.h"
#include "run/workfolder.h"

#include <QDateTime>
#include <QFileInfo>

#include <algorithm>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// A folder of these names holds one split of a run's metrics (Keras: logs/train, logs/validation).
const QStringList kSplitFolders{u"train"_s, u"validation"_s, u"val"_s, u"eval"_s, u"test"_s};

constexpr qint64 kScanEveryMs = 2000;
constexpr qint64 kEventChunkBytes = 8 << 20;    // read per step of an event file
constexpr qint64 kWholeFileBytes = 64ll << 20;  // a metrics.csv or trainer_state.json larger is not read
constexpr qsizetype kMaxSources = 256;          // files followed per run
constexpr qsizetype kMostFolderImages = 100000; // images of output/images indexed per run
const QString kImageFolder = u"output/images"_s;

// The one source all trainer_state.json files of a run are (see discover()).
const QString kTrainerState = u"trainer_state.json"_s;

QString prefixOf(const QString &path)
{
    const QStringList parts = path.split(u'/');
    const QString folder = parts.size() >= 2 ? parts.at(parts.size() - 2) : QString();
    return kSplitFolders.contains(folder) ? folder + u'/' : QString();
}

} // namespace

struct MetricSources::Source {
    enum class Kind { Events, LightningCsv, TrainerState, SystemSamples, HistogramLines };
    Kind kind = Kind::Events;
    QString key;  // the store's name of the source: the file's path in the run folder
    QString path; // the file read now (for trainer_state.json: the newest of them)
    qint64 position = 0;
    qint64 seenSize = -1, seenModifiedMs = -1;
    bool failed = false;
    std::unique_ptr<EventFileReader> events;
    std::unique_ptr<HistogramLinesReader> lines;
    LightningCsvReader csv;
    TrainerStateReader state;
    SystemSamplesReader system;

    void resumeAt(qint64 at, const QString &runDir)
    {
        position = at;
        switch (kind) {
        case Kind::Events:
            events = std::make_unique<EventFileReader>(prefixOf(path), runDir + u'/' + path);
            events->resumeAt(at);
            break;
        case Kind::LightningCsv:
            csv = LightningCsvReader();
            csv.resumeAt(at);
            break;
        case Kind::TrainerState:
            state = TrainerStateReader();
            state.resumeAt(at);
            break;
        case Kind::SystemSamples:
            system = SystemSamplesReader();
            system.resumeAt(at);
            break;
        case Kind::HistogramLines:
            lines = std::make_unique<HistogramLinesReader>(runDir + u'/' + path);
            lines->resumeAt(at);
            break;
        }
        seenSize = seenModifiedMs = -1;
    }
};

MetricSources::MetricSources(RunStore &store, QString runDir, QString runId)
    : m_store(store), m_runDir(std::move(runDir)), m_runId(std::move(runId))
{
    // The run's own system metrics (metrics/systemsamples.h), beside its log.
    auto system = std::make_unique<Source>();
    system->kind = Source::Kind::SystemSamples;
    system->key = system->path = QString::fromUtf16(RunDirectory::kSystemSamplesName);
    m_sources.push_back(std::move(system));
    reload();
}

MetricSources::~MetricSources() = default;

void MetricSources::reload()
{
    const QStringList claims = m_store.claimedMetrics(m_runId);
    m_claimed = QSet<QString>(claims.begin(), claims.end());
    m_names = MetricNames();
    for (const QString &name : m_store.metricNames(m_runId))
        m_names.know(name);
    const QHash<QString, qint64> positions = m_store.sourcePositions(m_runId);
    for (const auto &source : m_sources)
        source->resumeAt(positions.value(source->key), m_runDir);
    m_mediaBehind = m_store.mediaBehind(m_runId);
}

void MetricSources::discover()
{
    // Read from the store only when a file is new: most scans find none.
    std::optional<QHash<QString, qint64>> stored;
    const auto positionOf = [&](const QString &key) {
        if (!stored)
            stored = m_store.sourcePositions(m_runId);
        return stored->value(key);
    };
    std::optional<TreeFile> newestState;
    for (const QString &root : kMetricFileFolders) {
        for (const TreeFile &file : listRegularFiles(m_runDir + u'/' + root, isMetricFileName)) {
            const QString path = root + u'/' + file.path;
            const MetricFileKind kind = metricFileKind(QFileInfo(path).fileName());
            if (kind == MetricFileKind::TrainerState) {
                if (!newestState || file.modifiedMs > newestState->modifiedMs)
                    newestState = TreeFile{path, file.size, file.modifiedMs};
                continue;
            }
            const auto known =
                std::find_if(m_sources.begin(), m_sources.end(), [&path](const auto &s) { return s->key == path; });
            if (known != m_sources.end() || qsizetype(m_sources.size()) >= kMaxSources)
                continue;
            auto source = std::make_unique<Source>();
            source->kind = kind == MetricFileKind::Events           ? Source::Kind::Events
                           : kind == MetricFileKind::HistogramLines ? Source::Kind::HistogramLines
                                                                    : Source::Kind::LightningCsv;
            source->key = source->path = path;
            source->resumeAt(positionOf(path), m_runDir);
            m_sources.push_back(std::move(source));
        }
    }
    if (!newestState)
        return;
    // Every checkpoint's trainer_state.json holds the whole history so far: one source, the
    // newest file.
    const auto known = std::find_if(m_sources.begin(), m_sources.end(),
                                    [](const auto &s) { return s->kind == Source::Kind::TrainerState; });
    if (known != m_sources.end()) {
        (*known)->path = newestState->path;
        return;
    }
    auto source = std::make_unique<Source>();
    source->kind = Source::Kind::TrainerState;
    source->key = kTrainerState;
    source->path = newestState->path;
    source->resumeAt(positionOf(kTrainerState), m_runDir);
    m_sources.push_back(std::move(source));
}

Expected<MetricSources::Read> MetricSources::poll(bool scan, bool last)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    Read read;
    if (!m_mediaBehind.isEmpty())
        catchUpMedia(read);
    if (scan || now - m_lastScanMs >= kScanEveryMs) {
        m_lastScanMs = now;
        discover();
        indexImageFolder(last, read);
    }
    for (const auto &source : m_sources) {
        if (source->failed)
            continue;
        if (auto done = readSource(*source, read); !done)
            return done.error();
    }
    return read;
}

Expected<void> MetricSources::readSource(Source &source, Read &read)
{
    // Appended files, read from where the last read ended.
    const bool events = source.kind == Source::Kind::Events || source.kind == Source::Kind::SystemSamples ||
                        source.kind == Source::Kind::HistogramLines;
    if (!events) {
        // Rewritten whole: read again only when it changed (a hint; the read itself is safe).
        const QFileInfo info(m_runDir + u'/' + source.path);
        const qint64 modified = info.lastModified().toMSecsSinceEpoch();
        if (info.size() == source.seenSize && modified == source.seenModifiedMs)
            return {};
        source.seenSize = info.size();
        source.seenModifiedMs = modified;
    }
    for (int round = 0; round < 64; ++round) {
        const bool system = source.kind == Source::Kind::SystemSamples;
        const bool lines = source.kind == Source::Kind::HistogramLines;
        const qint64 from = system   ? source.system.bytesRead()
                            : lines  ? source.lines->offset()
                            : events ? source.events->offset()
                                     : 0;
        const qint64 length = system || lines ? kEventChunkBytes
                              : events        ? std::max(kEventChunkBytes, source.events->bytesWanted())
                                              : kWholeFileBytes;
        const auto bytes = readTreeFile(m_runDir, source.path, from, length);
        if (!bytes || !*bytes) {
            if (!bytes) {
                source.failed = true;
                read.problems << bytes.error();
            }
            return {};
        }
        Expected<QList<MetricPoint>> points = QList<MetricPoint>{};
        QList<MediaItem> media;
        qint64 position = source.position;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QString file = m_runDir + u'/' + source.path;
        switch (source.kind) {
        case Source::Kind::Events:
            points = source.events->read(**bytes);
            position = source.events->offset();
            media = source.events->takeMedia();
            read.refused << source.events->takeRefused();
            if (const auto hparams = source.events->takeHParams())
                takeHParams(*hparams);
            break;
        case Source::Kind::HistogramLines: {
            HistogramLinesReader::Read lineRead = source.lines->read(**bytes);
            position = source.lines->offset();
            media = std::move(lineRead.items);
            read.refused << lineRead.refused;
            break;
        }
        case Source::Kind::LightningCsv:
            points = source.csv.read(**bytes, file, now);
            position = source.csv.rowsRead();
            break;
        case Source::Kind::TrainerState:
            points = source.state.read(**bytes, file, now);
            position = source.state.entriesRead();
            break;
        case Source::Kind::SystemSamples:
            points = source.system.feed(**bytes);
            position = source.system.bytesRead();
            break;
        }
        if (!points) {
            source.failed = true;
            read.problems << points.error();
            return {};
        }
        read.notes << m_names.filter(*points);
        if (position == source.position && points->isEmpty() && media.isEmpty())
            return {}; // nothing new (or a record still being written)
        for (MediaItem &item : media) {
            item.file = source.path;
            if (item.wallMs == 0) // a line of histograms.jsonl without its wall_time: when it was read
                item.wallMs = now;
        }
        // The system's samples are no script's metrics: the log never gives them, nothing to claim.
        QStringList claims;
        QSet<QString> claiming;
        for (const MetricPoint &p : std::as_const(*points)) {
            if (!system && !m_claimed.contains(p.name) && !claiming.contains(p.name)) {
                claiming.insert(p.name);
                claims << p.name;
            }
        }
        const qsizetype indexed = media.size();
        const auto stored = m_store.appendSourceMetrics(m_runId, source.key, *points, source.position, position, claims,
                                                        std::move(media));
        if (!stored)
            return stored.error();
        if (!stored->applied) {
            // Another follower stored this file's points meanwhile: carry on after its position.
            reload();
            return {};
        }
        source.position = position;
        for (const QString &name : std::as_const(claims))
            m_claimed.insert(name);
        read.newClaims << claims;
        read.points << *points;
        read.media += indexed;
        if (!events || (*bytes)->size() < length)
            return {}; // a whole file was read, or the event file's end
    }
    return {};
}

// The hparams plugin's values become the run's parameters when it has none (a run attached
// after the fact, a script that takes no arguments); a run's own are never replaced.
void MetricSources::takeHParams(const QList<HParam> &hparams)
{
    if (m_paramsTaken || hparams.isEmpty())
        return;
    m_paramsTaken = true;
    m_store.flush(); // parameters queued before (the run's own) are read too
    if (!m_store.params(m_runId).isEmpty())
        return;
    QList<Hyperparameter> params;
    for (const HParam &p : hparams)
        params.append(Hyperparameter{p.name, p.value});
    m_store.setParams(m_runId, params);
}

// output/images/<tag>/<step>.png (.jpg, .jpeg, .gif): each file indexed once it is whole, again
// when its size or time changes. `final`: the run is over, a file that does not end as its format
// ends is taken as it is (its header checked all the same).
void MetricSources::indexImageFolder(bool final, Read &read)
{
    const QString root = m_runDir + u'/' + kImageFolder;
    const QList<TreeFile> files = listRegularFiles(root, isImageFileName, TreeLimits{8, kMostFolderImages + 1000});
    if (files.isEmpty())
        return;
    if (!m_folderImages) {
        m_folderImages.emplace();
        for (const MediaItem &item : m_store.media(m_runId, MediaKind::Image)) {
            if (item.file.startsWith(kImageFolder + u'/'))
                m_folderImages->insert(item.file, {item.length, item.wallMs});
        }
    }
    const MediaLimits limits;
    QList<MediaItem> items;
    for (const TreeFile &file : files) {
        const QString path = kImageFolder + u'/' + file.path;
        const auto known = m_folderImages->constFind(path);
        if (known != m_folderImages->cend() && known->first == file.size && known->second == file.modifiedMs &&
            !(final && m_partImages.contains(path)))
            continue;
        // <tag>/<step>.<ext>: the tag is the folders below output/images, the step the name.
        const qsizetype slash = file.path.lastIndexOf(u'/');
        const QString name = file.path.mid(slash + 1);
        const QString stem = name.left(name.lastIndexOf(u'.'));
        const bool number = !stem.isEmpty() && stem.size() <= 18 &&
                            std::all_of(stem.begin(), stem.end(), [](QChar c) { return c >= u'0' && c <= u'9'; });
        const QString tag = slash > 0 ? file.path.left(slash) : QString();
        const auto refuse = [&](const QString &why) {
            read.refused << Error{u"image '%1' at step %2 is refused: %3"_s.arg(tag, stem, why), m_runDir + u'/' + path,
                                  0, 0, u"it is not shown"_s};
            m_folderImages->insert(path, {file.size, file.modifiedMs});
        };
        if (!number || tag.isEmpty() || !metricNameProblem(tag).isEmpty()) {
            if (!m_saidImageName) {
                m_saidImageName = true;
                read.notes << u"%1 is not shown: an image there is %2/<tag>/<step>.png, its step a whole number"_s.arg(
                    path, kImageFolder);
            }
            m_folderImages->insert(path, {file.size, file.modifiedMs});
            continue;
        }
        if (known == m_folderImages->cend() && m_folderImages->size() >= kMostFolderImages) {
            if (!m_saidImageCount) {
                m_saidImageCount = true;
                read.notes << u"a run shows at most %1 images of %2; the others are not indexed"_s
                                  .arg(kMostFolderImages)
                                  .arg(kImageFolder);
            }
            continue;
        }
        if (file.size > limits.maxImageBytes) {
            refuse(u"%1 bytes, more than the %2 an image may have"_s.arg(file.size).arg(limits.maxImageBytes));
            continue;
        }
        const auto bytes = readTreeFile(m_runDir, path, 0, limits.maxImageBytes + 1);
        if (!bytes) {
            refuse(bytes.error().message);
            continue;
        }
        if (!*bytes)
            continue; // gone meanwhile
        const auto info = imageInfo(**bytes, limits);
        if (!info) {
            refuse(info.error().message);
            continue;
        }
        m_folderImages->insert(path, {file.size, file.modifiedMs});
        if (!final && !isWholeImage(**bytes)) {
            m_partImages.insert(path); // still being written: read again when it changes, or at the end
            continue;
        }
        m_partImages.remove(path);
        items.append(MediaItem{MediaKind::Image, tag, stem.toLongLong(), 0, file.modifiedMs, path, 0, (*bytes)->size(),
                               info->format, info->width, info->height, crc32c(**bytes)});
    }
    read.media += items.size();
    m_store.addMedia(m_runId, std::move(items));
}

// The event files an older Ferry read (before the media index): read again from their start up to
// where that Ferry stopped, for their media alone (their points are stored), a chunk at a time.
void MetricSources::catchUpMedia(Read &read)
{
    for (auto it = m_mediaBehind.cbegin(); it != m_mediaBehind.cend(); ++it) {
        const QString &path = it.key();
        const qint64 upTo = it.value();
        if (metricFileKind(QFileInfo(path).fileName()) == MetricFileKind::Events) {
            EventFileReader reader(prefixOf(path), m_runDir + u'/' + path);
            while (reader.offset() < upTo && !reader.failed()) {
                const qint64 from = reader.offset();
                const auto bytes = readTreeFile(
                    m_runDir, path, from, std::min(std::max(kEventChunkBytes, reader.bytesWanted()), upTo - from));
                if (!bytes || !*bytes || (*bytes)->isEmpty())
                    break; // gone or refused: its media cannot be indexed
                if (!reader.read(**bytes))
                    break; // damaged: the points before it were all there were
                QList<MediaItem> media = reader.takeMedia();
                for (MediaItem &item : media)
                    item.file = path;
                read.refused << reader.takeRefused();
                if (const auto hparams = reader.takeHParams())
                    takeHParams(*hparams);
                read.media += media.size();
                m_store.addMedia(m_runId, std::move(media));
                if (reader.offset() == from)
                    break;
            }
        }
        m_store.addMedia(m_runId, {}, path); // as far as it goes: not tried again
    }
    m_mediaBehind.clear();
}

} // namespace ferry::run
