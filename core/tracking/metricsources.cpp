#include "tracking/metricsources.h"

#include "common/untrustedtree.h"
#include "metrics/eventfile.h"
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
constexpr qint64 kEventChunkBytes = 8 << 20;   // read per step of an event file
constexpr qint64 kWholeFileBytes = 64ll << 20; // a metrics.csv or trainer_state.json larger is not read
constexpr qsizetype kMaxSources = 256;         // files followed per run

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
    enum class Kind { Events, LightningCsv, TrainerState, SystemSamples };
    Kind kind = Kind::Events;
    QString key;  // the store's name of the source: the file's path in the run folder
    QString path; // the file read now (for trainer_state.json: the newest of them)
    qint64 position = 0;
    qint64 seenSize = -1, seenModifiedMs = -1;
    bool failed = false;
    std::unique_ptr<EventFileReader> events;
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
            source->kind = kind == MetricFileKind::Events ? Source::Kind::Events : Source::Kind::LightningCsv;
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

Expected<MetricSources::Read> MetricSources::poll(bool scan)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (scan || now - m_lastScanMs >= kScanEveryMs) {
        m_lastScanMs = now;
        discover();
    }
    Read read;
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
    const bool events = source.kind == Source::Kind::Events || source.kind == Source::Kind::SystemSamples;
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
        const qint64 from = system ? source.system.bytesRead() : events ? source.events->offset() : 0;
        const qint64 length = system   ? kEventChunkBytes
                              : events ? std::max(kEventChunkBytes, source.events->bytesWanted())
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
        qint64 position = source.position;
        const qint64 now = QDateTime::currentMSecsSinceEpoch();
        const QString file = m_runDir + u'/' + source.path;
        switch (source.kind) {
        case Source::Kind::Events:
            points = source.events->read(**bytes);
            position = source.events->offset();
            break;
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
        if (position == source.position && points->isEmpty())
            return {}; // nothing new (or a record still being written)
        // The system's samples are no script's metrics: the log never gives them, nothing to claim.
        QStringList claims;
        QSet<QString> claiming;
        for (const MetricPoint &p : std::as_const(*points)) {
            if (!system && !m_claimed.contains(p.name) && !claiming.contains(p.name)) {
                claiming.insert(p.name);
                claims << p.name;
            }
        }
        const auto stored =
            m_store.appendSourceMetrics(m_runId, source.key, *points, source.position, position, claims);
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
        if (!events || (*bytes)->size() < length)
            return {}; // a whole file was read, or the event file's end
    }
    return {};
}

} // namespace ferry::run
