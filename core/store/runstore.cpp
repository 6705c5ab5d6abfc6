#include "store/runstore.h"

#include "store/runstoreschema.h"
#include "store/runstorewriter.h"

#include <QDateTime>
#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QJsonDocument>
#include <QMutex>
#include <QSet>
#include <QSqlError>
#include <QSqlQuery>
#include <QVariant>

#include <array>
#include <cmath>
#include <limits>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

std::atomic<quint64> g_nextSerial{1};
std::atomic<quint64> g_nextConnection{1};

// Stores not yet closed. A thread drops its read connections to closed stores on its next read.
struct LiveStores {
    QMutex mutex;
    QSet<quint64> serials;
};
LiveStores &liveStores()
{
    static LiveStores stores;
    return stores;
}

// This thread's read connections, one per open store; closed when the thread ends.
struct ThreadConnections {
    QHash<quint64, QString> names;

    ~ThreadConnections()
    {
        for (const QString &name : std::as_const(names))
            runstoreschema::closeConnection(name);
    }

    void dropClosed()
    {
        if (names.isEmpty())
            return;
        LiveStores &live = liveStores();
        QMutexLocker lock(&live.mutex);
        for (auto it = names.begin(); it != names.end();) {
            if (live.serials.contains(it.key())) {
                ++it;
                continue;
            }
            runstoreschema::closeConnection(it.value());
            it = names.erase(it);
        }
    }
};
thread_local ThreadConnections t_connections;

RunRecord recordFrom(const QSqlQuery &q)
{
    RunRecord r;
    r.id = q.value(0).toString();
    r.experiment = q.value(1).toString();
    r.name = q.value(2).toString();
    r.status = runStatusFromText(q.value(3).toString()).value_or(RunStatus::Lost);
    r.target = q.value(4).toString();
    r.environmentTag = q.value(5).toString();
    r.spec = QJsonDocument::fromJson(q.value(6).toString().toUtf8()).object();
    r.createdMs = q.value(7).toLongLong();
    r.startedMs = q.value(8).toLongLong();
    r.finishedMs = q.value(9).toLongLong();
    if (!q.value(10).isNull())
        r.exitCode = q.value(10).toInt();
    r.error = q.value(11).toString();
    r.logOffset = q.value(12).toLongLong();
    r.note = q.value(13).toString();
    if (const QString tags = q.value(14).toString(); !tags.isEmpty()) {
        r.tags = tags.split(u'\n');
        r.tags.sort();
    }
    return r;
}

const QString kSelectRuns = u"SELECT r.id, e.name, r.name, r.status, r.target, r.environment_tag, r.spec, "
                            "r.created_ms, r.started_ms, r.finished_ms, r.exit_code, r.error, r.log_offset, r.note, "
                            "(SELECT group_concat(t.tag, char(10)) FROM tags t WHERE t.run = r.id) "
                            "FROM runs r LEFT JOIN experiments e ON e.id = r.experiment "_s;

// A write posted after close(): `doing` says what was not stored.
Error closedStore(const QString &doing)
{
    return Error{doing + u": the run store is closed"_s, {}, 0, 0, {}};
}

} // namespace

RunRecord newRunRecord(const RunSpec &spec, const QString &experiment)
{
    RunRecord r;
    r.id = spec.id;
    r.experiment = experiment.isEmpty() ? spec.sweep : experiment;
    r.name = QFileInfo(spec.script).completeBaseName();
    if (!spec.sweep.isEmpty())
        r.name += u" trial %1"_s.arg(spec.trial);
    r.target = spec.target.toString();
    r.environmentTag = spec.environmentTag;
    r.spec = spec.toJson();
    r.createdMs = QDateTime::currentMSecsSinceEpoch();
    return r;
}

RunStore::RunStore(const QString &path, std::unique_ptr<RunStoreWriter> writer)
    : m_path(path), m_serial(g_nextSerial++), m_writer(std::move(writer))
{
    m_writer->setFailureHandler([this](const Error &error) { Q_EMIT writeFailed(error); });
    LiveStores &live = liveStores();
    QMutexLocker lock(&live.mutex);
    live.serials.insert(m_serial);
}

RunStore::~RunStore()
{
    close();
}

QString RunStore::pathInWorkspace(const QString &workspaceDir)
{
    return QDir(workspaceDir).filePath(u".ferry/runs.sqlite"_s);
}

Expected<std::unique_ptr<RunStore>> RunStore::open(const QString &databasePath, const Progress &progress)
{
    const QString path = QFileInfo(databasePath).absoluteFilePath();
    if (const auto usable = runstoreschema::checkLocation(path); !usable)
        return usable.error();
    auto writer = RunStoreWriter::start(path, u"ferry-runstore-writer-%1"_s.arg(g_nextConnection++), progress);
    if (!writer)
        return writer.error();
    return Expected<std::unique_ptr<RunStore>>(std::unique_ptr<RunStore>(new RunStore(path, std::move(*writer))));
}

void RunStore::createRun(const RunRecord &record)
{
    if (!m_writer->post(runstorecommand::CreateRun{record}))
        Q_EMIT writeFailed(closedStore(u"cannot store run %1"_s.arg(record.id)));
}

void RunStore::setStatus(const QString &runId, RunStatus status, std::optional<int> exitCode, const QString &error,
                         qint64 finishedMs)
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    if (finishedMs <= 0 && isFinished(status))
        finishedMs = now;
    const qint64 startedMs = status == RunStatus::Running ? now : 0;
    if (!m_writer->post(runstorecommand::SetStatus{runId, status, exitCode, error, finishedMs, startedMs}))
        Q_EMIT writeFailed(closedStore(u"run %1: cannot store its status"_s.arg(runId)));
}

void RunStore::setParams(const QString &runId, const QList<Hyperparameter> &params)
{
    if (!m_writer->post(runstorecommand::SetParams{runId, params}))
        Q_EMIT writeFailed(closedStore(u"run %1: cannot store its parameters"_s.arg(runId)));
}

void RunStore::addArtifact(const QString &runId, const Artifact &artifact)
{
    if (!m_writer->post(runstorecommand::AddArtifact{runId, artifact}))
        Q_EMIT writeFailed(closedStore(u"run %1: cannot store artifact %2"_s.arg(runId, artifact.path)));
}

void RunStore::appendMetrics(const QString &runId, QList<MetricPoint> points, qint64 newLogOffset)
{
    if (!m_writer->post(runstorecommand::AppendMetrics{runId, std::move(points), newLogOffset}))
        Q_EMIT writeFailed(closedStore(u"run %1: cannot store metrics"_s.arg(runId)));
}

namespace {

// Posts a compare-and-swap append (made with its reply promise); the function waits for its commit.
template <typename Make>
std::function<Expected<RunStore::OffsetSwap>()> commitLater(RunStoreWriter &writer, const QString &path,
                                                            const QString &runId, Make make)
{
    auto reply = std::make_shared<std::promise<Expected<runstorecommand::MetricsCommit>>>();
    auto outcome = std::make_shared<std::future<Expected<runstorecommand::MetricsCommit>>>(reply->get_future());
    if (!writer.post(make(reply))) {
        return [error = Error{u"run %1: cannot store metrics: the run store is closed"_s.arg(runId), path, 0, 0, {}}]()
                   -> Expected<RunStore::OffsetSwap> { return error; };
    }
    return [outcome, path]() -> Expected<RunStore::OffsetSwap> {
        const Expected<runstorecommand::MetricsCommit> done = outcome->get();
        if (!done)
            return Error{done.error().message, path, 0, 0,
                         u"check that the disk has space and the workspace is writable"_s};
        return RunStore::OffsetSwap{done->applied, done->storedOffset};
    };
}

template <typename Make>
Expected<RunStore::OffsetSwap> commitAndWait(RunStoreWriter &writer, const QString &path, const QString &runId,
                                             Make make)
{
    return commitLater(writer, path, runId, make)();
}

} // namespace

Expected<RunStore::OffsetSwap> RunStore::appendMetricsAt(const QString &runId, QList<MetricPoint> points,
                                                         qint64 expectedOffset, qint64 newLogOffset)
{
    return postMetricsAt(runId, std::move(points), expectedOffset, newLogOffset).wait();
}

RunStore::PendingSwap RunStore::postMetricsAt(const QString &runId, QList<MetricPoint> points, qint64 expectedOffset,
                                              qint64 newLogOffset)
{
    PendingSwap pending;
    pending.m_wait = commitLater(*m_writer, m_path, runId, [&](auto reply) {
        return runstorecommand::AppendMetrics{runId, std::move(points), newLogOffset, expectedOffset, reply};
    });
    return pending;
}

Expected<RunStore::OffsetSwap> RunStore::PendingSwap::wait()
{
    if (!m_wait)
        return Error{u"no append to wait for"_s, {}, 0, 0, {}};
    return std::exchange(m_wait, nullptr)();
}

Expected<RunStore::OffsetSwap> RunStore::appendSourceMetrics(const QString &runId, const QString &source,
                                                             QList<MetricPoint> points, qint64 expectedPosition,
                                                             qint64 newPosition, const QStringList &claims,
                                                             QList<MediaItem> media)
{
    return commitAndWait(*m_writer, m_path, runId, [&](auto reply) {
        return runstorecommand::AppendSourceMetrics{runId,  source, std::move(points), expectedPosition, newPosition,
                                                    claims, reply,  std::move(media)};
    });
}

void RunStore::deleteRun(const QString &runId)
{
    if (!m_writer->post(runstorecommand::DeleteRun{runId}))
        Q_EMIT writeFailed(closedStore(u"run %1: cannot delete it"_s.arg(runId)));
}

Expected<RunStore::Compaction> RunStore::compact()
{
    auto reply = std::make_shared<std::promise<Expected<Compaction>>>();
    auto outcome = reply->get_future();
    if (!m_writer->post(runstorecommand::Compact{reply}))
        return closedStore(u"cannot compact the run store"_s);
    return outcome.get();
}

void RunStore::flush()
{
    m_writer->flush();
}

void RunStore::close()
{
    if (!m_open.exchange(false))
        return;
    m_writer->stop();
    {
        LiveStores &live = liveStores();
        QMutexLocker lock(&live.mutex);
        live.serials.remove(m_serial);
    }
    t_connections.dropClosed();
}

QString RunStore::readConnection() const
{
    if (!m_open)
        return {};
    ThreadConnections &connections = t_connections;
    connections.dropClosed();
    if (const auto it = connections.names.constFind(m_serial); it != connections.names.cend())
        return it.value();
    const QString name = u"ferry-runstore-read-%1"_s.arg(g_nextConnection++);
    Expected<void> opened = runstoreschema::openConnection(name, m_path);
    if (opened) {
        QSqlDatabase db = QSqlDatabase::database(name, false);
        if (const auto readOnly = runstoreschema::exec(db, u"PRAGMA query_only = ON"_s); !readOnly)
            opened = Error{readOnly.error().message, m_path, 0, 0, {}};
    }
    if (!opened) {
        qWarning("%s", qUtf8Printable(opened.error().toString()));
        runstoreschema::closeConnection(name);
        return {};
    }
    connections.names.insert(m_serial, name);
    return name;
}

using runstoreschema::select;

QList<RunRecord> RunStore::runs() const
{
    QList<RunRecord> result;
    QSqlQuery q = select(readConnection(), kSelectRuns + u"ORDER BY r.created_ms DESC, r.rowid DESC"_s, {});
    while (q.next())
        result.append(recordFrom(q));
    return result;
}

std::optional<RunRecord> RunStore::run(const QString &runId) const
{
    QSqlQuery q = select(readConnection(), kSelectRuns + u"WHERE r.id = ?"_s, {runId});
    if (!q.next())
        return std::nullopt;
    return recordFrom(q);
}

QHash<QString, qint64> RunStore::sourcePositions(const QString &runId) const
{
    QHash<QString, qint64> result;
    QSqlQuery q = select(readConnection(), u"SELECT source, position FROM metric_sources WHERE run = ?"_s, {runId});
    while (q.next())
        result.insert(q.value(0).toString(), q.value(1).toLongLong());
    return result;
}

QStringList RunStore::claimedMetrics(const QString &runId) const
{
    QStringList result;
    QSqlQuery q = select(readConnection(), u"SELECT name FROM metric_claims WHERE run = ? ORDER BY name"_s, {runId});
    while (q.next())
        result << q.value(0).toString();
    return result;
}

QList<Hyperparameter> RunStore::params(const QString &runId) const
{
    QList<Hyperparameter> result;
    QSqlQuery q = select(readConnection(), u"SELECT name, value FROM params WHERE run = ? ORDER BY rowid"_s, {runId});
    while (q.next())
        result.append(Hyperparameter{q.value(0).toString(), q.value(1).toString()});
    return result;
}

QList<Artifact> RunStore::artifacts(const QString &runId) const
{
    QList<Artifact> result;
    QSqlQuery q =
        select(readConnection(), u"SELECT path, kind, size FROM artifacts WHERE run = ? ORDER BY path"_s, {runId});
    while (q.next())
        result.append(Artifact{q.value(0).toString(), q.value(1).toString(), q.value(2).toLongLong()});
    return result;
}

bool RunStore::integrityCheck() const
{
    QSqlQuery q = select(readConnection(), u"PRAGMA integrity_check"_s, {});
    QStringList lines;
    while (q.next())
        lines.append(q.value(0).toString());
    return lines == QStringList{u"ok"_s};
}

} // namespace ferry::run
