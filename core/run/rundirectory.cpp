#include "run/rundirectory.h"

#include "common/safefile.h"
#include "run/contract.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::run {

namespace {

// Run-folder files are read without following a link at their name (common/safefile.h): a
// run that can write its folder must not make Ferry read another file (review H1).
Expected<std::optional<QJsonObject>> readJsonObject(const QString &path)
{
    const auto bytes = readRegularFile(path, 1024 * 1024);
    if (!bytes) {
        Error e = bytes.error();
        e.hint = u"the run folder's files are Ferry's own: remove the damaged one to let Ferry treat the run as lost"_s;
        return e;
    }
    if (!bytes->has_value())
        return std::optional<QJsonObject>();
    QJsonParseError parseError{};
    const QJsonDocument doc = QJsonDocument::fromJson(**bytes, &parseError);
    if (parseError.error != QJsonParseError::NoError || !doc.isObject())
        return Error{u"not a JSON object: "_s + parseError.errorString(), path, 0, 0,
                     u"the file was damaged; remove it to let Ferry treat the run as lost"_s};
    return std::optional<QJsonObject>(doc.object());
}

QByteArray readSmallFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.read(64 * 1024) : QByteArray();
}

QByteArray jsonBytes(const QJsonObject &json)
{
    return QJsonDocument(json).toJson();
}

QString absolutePath(const QString &path)
{
    return path.isEmpty() ? path : QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

// The spec's paths on this machine, made absolute. The interpreter only for a local run, and
// only when it is a path: elsewhere it names a program in the image or on the host.
RunSpec withAbsolutePaths(RunSpec spec)
{
    spec.sourceDir = absolutePath(spec.sourceDir);
    spec.environmentFile = absolutePath(spec.environmentFile);
    for (DataChannel &channel : spec.channels)
        channel.path = absolutePath(channel.path);
    if (spec.target.kind == TargetKind::Local && spec.interpreter.contains(u'/'))
        spec.interpreter = absolutePath(spec.interpreter);
    return spec;
}

} // namespace

RunDirectory::RunDirectory(const QString &path) : m_path(QDir::cleanPath(QFileInfo(path).absoluteFilePath())) {}

QString RunDirectory::pathFor(const QString &workspace, const QString &runId)
{
    return QDir::cleanPath(QDir(workspace).absoluteFilePath(u".ferry/runs/"_s + runId));
}

QString RunDirectory::file(const char16_t *name) const
{
    return m_path + u'/' + QString::fromUtf16(name);
}

QStringList RunDirectory::markerFiles() const
{
    return {specFile(), supervisorFile(), launchFile(),    heartbeatFile(),       exitFile(),
            logFile(),  modelArchive(),   outputArchive(), containerRecordFile(), remoteRecordFile()};
}

Expected<RunSpec> RunDirectory::claim(const RunSpec &spec) const
{
    const RunSpec absolute = withAbsolutePaths(spec);
    if (!QDir().mkpath(m_path))
        return Error{u"cannot create the run folder"_s, m_path, 0, 0, u"check free disk space and permissions"_s};
    // By lstat: a link planted at a marker's name counts, whatever it points to.
    for (const QString &marker : markerFiles()) {
        if (entryKind(marker) != EntryKind::Missing)
            return Error{u"the folder holds a run already (%1)"_s.arg(QFileInfo(marker).fileName()), m_path, 0, 0,
                         u"start each run in a new folder"_s};
    }
    if (const auto written = writeSpec(absolute); !written)
        return written.error();
    return absolute;
}

Expected<void> RunDirectory::writeSpec(const RunSpec &spec) const
{
    return replaceFileSafely(specFile(), jsonBytes(spec.toJson()));
}

Expected<RunSpec> RunDirectory::readSpec() const
{
    const auto json = readJsonObject(specFile());
    if (!json)
        return json.error();
    if (!json->has_value())
        return Error{u"not a run folder: spec.json is missing"_s, m_path, 0, 0, u"name a folder under .ferry/runs"_s};
    auto spec = RunSpec::fromJson(**json);
    if (!spec) {
        Error e = spec.error();
        e.path = specFile();
        return e;
    }
    return spec;
}

Expected<void> RunDirectory::writeSupervisor(const SupervisorRecord &r) const
{
    const QJsonObject json{
        {u"supervisorPid"_s, r.supervisorPid},
        {u"supervisorStartTicks"_s, QString::number(r.supervisorStartTicks)},
        {u"childPid"_s, r.childPid},
        {u"processGroup"_s, r.processGroup},
        {u"childStartTicks"_s, QString::number(r.childStartTicks)},
        {u"bootId"_s, r.bootId},
    };
    return replaceFileSafely(supervisorFile(), jsonBytes(json));
}

Expected<std::optional<SupervisorRecord>> RunDirectory::readSupervisor() const
{
    const auto json = readJsonObject(supervisorFile());
    if (!json)
        return json.error();
    if (!json->has_value())
        return std::optional<SupervisorRecord>();
    const QJsonObject &o = **json;
    SupervisorRecord r;
    r.supervisorPid = o[u"supervisorPid"_s].toInteger();
    r.supervisorStartTicks = o[u"supervisorStartTicks"_s].toString().toULongLong();
    r.childPid = o[u"childPid"_s].toInteger();
    r.processGroup = o[u"processGroup"_s].toInteger();
    r.childStartTicks = o[u"childStartTicks"_s].toString().toULongLong();
    r.bootId = o[u"bootId"_s].toString();
    if (r.supervisorPid <= 0 || r.processGroup <= 0)
        return Error{u"supervisor.json names no process"_s, supervisorFile(), 0, 0, {}};
    return std::optional<SupervisorRecord>(r);
}

Expected<void> RunDirectory::writeLaunch(const LaunchRecord &r) const
{
    const QJsonObject json{
        {u"pid"_s, r.pid}, {u"startTicks"_s, QString::number(r.startTicks)}, {u"bootId"_s, r.bootId}};
    return replaceFileSafely(launchFile(), jsonBytes(json));
}

Expected<std::optional<LaunchRecord>> RunDirectory::readLaunch() const
{
    const auto json = readJsonObject(launchFile());
    if (!json)
        return json.error();
    if (!json->has_value())
        return std::optional<LaunchRecord>();
    LaunchRecord r;
    r.pid = (**json)[u"pid"_s].toInteger();
    r.startTicks = (**json)[u"startTicks"_s].toString().toULongLong();
    r.bootId = (**json)[u"bootId"_s].toString();
    if (r.pid <= 0)
        return Error{u"launch.json names no process"_s, launchFile(), 0, 0, {}};
    return std::optional<LaunchRecord>(r);
}

Expected<void> RunDirectory::writeExit(const ExitRecord &r) const
{
    QJsonObject json{
        {u"exitCode"_s, r.exitCode},   {u"signal"_s, r.signal}, {u"finishedMs"_s, r.finishedMs},
        {u"cancelled"_s, r.cancelled}, {u"error"_s, r.error},
    };
    if (!r.cause.isEmpty())
        json.insert(u"cause"_s, r.cause);
    // Written beside, then linked into place: link() refuses an existing name, so of two
    // writers (the supervisor, a cancel that found it gone) exactly one wins, atomically.
    // The temp name is unpredictable and created new (O_EXCL | O_NOFOLLOW): no link planted
    // beside exit.json can redirect the write.
    const QString temp = unpredictableTempName(exitFile());
    const auto written = createNewFile(temp, jsonBytes(json), 0644);
    if (!written)
        return written.error();
    const QByteArray from = QFile::encodeName(temp);
    const QByteArray to = QFile::encodeName(exitFile());
    const int linked = ::link(from.constData(), to.constData());
    const int linkErrno = errno;
    if (::unlink(from.constData()) != 0 && errno != ENOENT)
        qWarning("cannot remove %s: %s", from.constData(), std::strerror(errno));
    if (linked != 0) {
        if (linkErrno == EEXIST)
            return Error{u"the run has ended already"_s, exitFile(), 0, 0, {}};
        return Error{u"cannot write: "_s + errnoText(linkErrno), exitFile(), 0, 0, u"check free disk space"_s};
    }
    return {};
}

void RunDirectory::recordEnd(ExitRecord exit) const
{
    exit.finishedMs = nowMs();
    if (const auto written = writeExit(exit); !written)
        qWarning("%s", qPrintable(written.error().toString()));
}

Expected<std::optional<ExitRecord>> RunDirectory::readExit() const
{
    const auto json = readJsonObject(exitFile());
    if (!json)
        return json.error();
    if (!json->has_value())
        return std::optional<ExitRecord>();
    const QJsonObject &o = **json;
    ExitRecord r;
    r.exitCode = o[u"exitCode"_s].toInt(-1);
    r.signal = o[u"signal"_s].toInt();
    r.finishedMs = o[u"finishedMs"_s].toInteger();
    r.cancelled = o[u"cancelled"_s].toBool();
    r.error = o[u"error"_s].toString();
    r.cause = o[u"cause"_s].toString();
    return std::optional<ExitRecord>(r);
}

Expected<void> RunDirectory::touchHeartbeat(qint64 now) const
{
    // A new file renamed over the name: a link planted at `heartbeat` is replaced, its target
    // never written (QSaveFile would write through it).
    return replaceFileSafely(heartbeatFile(), QByteArray::number(now) + '\n');
}

std::optional<qint64> RunDirectory::heartbeatMs() const
{
    const auto bytes = readRegularFile(heartbeatFile(), 64);
    if (!bytes || !bytes->has_value())
        return std::nullopt;
    bool ok = false;
    const qint64 value = (*bytes)->trimmed().toLongLong(&ok);
    return ok ? std::optional<qint64>(value) : std::nullopt;
}

Expected<void> RunDirectory::appendToLog(const QByteArray &bytes) const
{
    return appendToFileSafely(logFile(), bytes);
}

QString RunDirectory::failureText() const
{
    const QString failure = localContractPaths(m_path, RunSpec{}).failureFile();
    const auto bytes = readRegularFile(failure, 16 * kMaxFailureBytes);
    if (!bytes) // a link, a fifo, a huge file: said so, never followed or read
        return u"the run's failure file was not read: "_s + bytes.error().toString();
    return bytes->has_value() ? QString::fromUtf8((*bytes)->left(kMaxFailureBytes)).trimmed() : QString();
}

Expected<void> RunDirectory::writeStopReason(const QString &reason) const
{
    return replaceFileSafely(stopReasonFile(), reason.toUtf8(), 0600);
}

QString RunDirectory::stopReason() const
{
    const auto bytes = readRegularFile(stopReasonFile(), kMaxFailureBytes);
    return bytes && bytes->has_value() ? QString::fromUtf8(**bytes).trimmed() : QString();
}

QString currentBootId()
{
    return QString::fromLatin1(readSmallFile(u"/proc/sys/kernel/random/boot_id"_s).trimmed());
}

bool isSameLiveProcess(qint64 pid, quint64 startTicks)
{
    const auto state = processState(pid);
    return state && !state->zombie && state->startTicks == startTicks;
}

bool supervisorAlive(const SupervisorRecord &record)
{
    // After a reboot pids and ticks start again; a record from another boot is never alive.
    if (!record.bootId.isEmpty() && record.bootId != currentBootId())
        return false;
    return isSameLiveProcess(record.supervisorPid, record.supervisorStartTicks);
}

bool launchedAlive(const LaunchRecord &record)
{
    if (!record.bootId.isEmpty() && record.bootId != currentBootId())
        return false;
    return isSameLiveProcess(record.pid, record.startTicks);
}

QList<qint64> liveSessionMembers(const LaunchRecord &record)
{
    QList<qint64> members;
    if (record.pid <= 0 || (!record.bootId.isEmpty() && record.bootId != currentBootId()))
        return members;
    const bool leaderIsOurs = launchedAlive(record);
    if (leaderIsOurs)
        members << record.pid; // before it leaves the starter's session it is in none of its own
    // The pid another process took is no session of ours (a session id stays reserved while
    // any member lives, so with members left the pid cannot have been taken).
    if (const auto leader = processState(record.pid); leader && leader->startTicks != record.startTicks)
        return members;
    const QStringList entries = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid || pid == record.pid)
            continue;
        const auto state = processState(pid);
        if (state && !state->zombie && state->session == record.pid && state->startTicks >= record.startTicks)
            members << pid;
    }
    return members;
}

QList<qint64> liveGroupMembers(qint64 processGroup, qint64 session)
{
    QList<qint64> members;
    if (processGroup <= 0)
        return members;
    const QStringList entries = QDir(u"/proc"_s).entryList(QDir::Dirs | QDir::NoDotAndDotDot);
    for (const QString &entry : entries) {
        bool isPid = false;
        const qint64 pid = entry.toLongLong(&isPid);
        if (!isPid)
            continue;
        const auto state = processState(pid);
        // A group id and a session id both stay reserved while any member lives, so the pair
        // cannot name a stranger's processes.
        if (state && !state->zombie && state->processGroup == processGroup && state->session == session)
            members << pid;
    }
    return members;
}

qint64 nowMs()
{
    return QDateTime::currentMSecsSinceEpoch();
}

} // namespace ferry::run
