#include "kernelhost/kernelfolder.h"

#include "common/safefile.h"
#include "kernels/connectionfile.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <csignal>
#include <cstring>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

namespace {

Expected<std::optional<QJsonObject>> readObject(const QString &path)
{
    const auto bytes = readRegularFile(path, 4 << 20);
    if (!bytes)
        return bytes.error();
    if (!*bytes)
        return std::optional<QJsonObject>();
    QJsonParseError error;
    const QJsonDocument doc = QJsonDocument::fromJson(**bytes, &error);
    if (!doc.isObject())
        return Error{u"not a JSON object: "_s + error.errorString(), path, 0, 0, {}};
    return std::optional<QJsonObject>(doc.object());
}

qint64 number(const QJsonObject &o, const char16_t *key)
{
    return qint64(o.value(QString::fromUtf16(key)).toDouble());
}

} // namespace

QString KernelFolder::id() const
{
    return QFileInfo(m_path).fileName();
}

QString KernelFolder::ferrySocketDir() const
{
    const auto bytes = readRegularFile(socketsFile(), 4096);
    return bytes && *bytes ? QString::fromUtf8(**bytes).trimmed() : QString();
}

Expected<ConnectionInfo> KernelFolder::connectionForFerry(const QString &socketDir) const
{
    auto connection = ConnectionInfo::read(connectionFile());
    if (!connection)
        return connection.error();
    if (connection->transport == u"ipc") {
        const QString dir = socketDir.isEmpty() ? ferrySocketDir() : socketDir;
        if (dir.isEmpty())
            return Error{u"the kernel's folder does not say where its sockets are"_s, socketsFile(), 0, 0, {}};
        connection->ip = dir + u'/' + QFileInfo(connection->ip).fileName();
    }
    return connection;
}

Expected<std::optional<KeeperRecord>> KernelFolder::readKeeper() const
{
    const auto o = readObject(keeperRecordFile());
    if (!o)
        return o.error();
    if (!*o)
        return std::optional<KeeperRecord>();
    KeeperRecord r;
    r.keeperPid = number(**o, u"keeperPid");
    r.keeperStartTicks = quint64(number(**o, u"keeperStartTicks"));
    r.kernelPid = number(**o, u"kernelPid");
    r.kernelStartTicks = quint64(number(**o, u"kernelStartTicks"));
    r.bootId = (*o)->value(u"bootId"_s).toString();
    r.host = (*o)->value(u"host"_s).toString();
    r.startedMs = number(**o, u"startedMs");
    r.restarts = int(number(**o, u"restarts"));
    r.socketDir = (*o)->value(u"socketDir"_s).toString();
    return std::optional<KeeperRecord>(r);
}

Expected<std::optional<KernelStatus>> KernelFolder::readStatus() const
{
    const auto o = readObject(statusFile());
    if (!o)
        return o.error();
    if (!*o)
        return std::optional<KernelStatus>();
    KernelStatus s;
    s.state = (*o)->value(u"state"_s).toString();
    s.lastActivityMs = number(**o, u"lastActivityMs");
    s.updatedMs = number(**o, u"updatedMs");
    s.memoryBytes = number(**o, u"memoryBytes");
    s.peakMemoryBytes = number(**o, u"peakMemoryBytes");
    s.journalBytes = number(**o, u"journalBytes");
    s.journalRecords = number(**o, u"journalRecords");
    s.droppedMessages = number(**o, u"droppedMessages");
    return std::optional<KernelStatus>(s);
}

Expected<std::optional<KernelEnd>> KernelFolder::readEnd() const
{
    const auto o = readObject(endFile());
    if (!o)
        return o.error();
    if (!*o)
        return std::optional<KernelEnd>();
    KernelEnd e;
    e.reason = (*o)->value(u"reason"_s).toString();
    e.exitCode = int((*o)->value(u"exitCode"_s).toDouble(-1));
    e.signal = int(number(**o, u"signal"));
    e.finishedMs = number(**o, u"finishedMs");
    e.peakMemoryBytes = number(**o, u"peakMemoryBytes");
    e.detail = (*o)->value(u"detail"_s).toString();
    const auto lines = [&](const QString &key) {
        QStringList list;
        for (const QJsonValue &line : (*o)->value(key).toArray())
            list << line.toString();
        return list;
    };
    e.lastLines = lines(u"lastLines"_s);
    e.logLines = lines(u"logLines"_s);
    e.streamLines = lines(u"streamLines"_s);
    return std::optional<KernelEnd>(e);
}

QString endSentence(const KernelEnd &end)
{
    QString text = u"the kernel ended: "_s + endText(end);
    if (end.peakMemoryBytes > 0)
        text += u" (peak memory %1 MB)"_s.arg(end.peakMemoryBytes >> 20);
    if (!end.detail.isEmpty() && end.reason != u"stopped")
        text += u"; "_s + end.detail;
    return text;
}

QString endText(const KernelEnd &end)
{
    const QString signal =
        end.signal > 0 ? u"signal %1 (SIG%2)"_s.arg(end.signal).arg(QString::fromLatin1(sigabbrev_np(end.signal)))
                       : QString();
    if (end.reason == u"out-of-memory")
        return u"out of memory"_s;
    if (end.reason == u"stopped")
        return u"stopped"_s;
    if (end.reason == u"idle")
        return u"stopped after being idle"_s;
    if (end.reason == u"time-limit")
        return u"time limit reached"_s;
    if (end.reason == u"node-failure")
        return u"its node failed"_s;
    if (end.reason == u"terminated")
        return u"terminated from outside (%1)"_s.arg(signal.isEmpty() ? u"SIGTERM"_s : signal);
    if (end.reason == u"failed-to-start")
        return u"failed to start"_s;
    if (end.reason == u"keeper-failed")
        return u"its keeper failed"_s;
    if (end.signal > 0)
        return u"killed by "_s + signal;
    if (end.reason == u"exited")
        return u"exited with code %1"_s.arg(end.exitCode);
    return end.reason.isEmpty() ? u"ended"_s : end.reason;
}

} // namespace ferry::kernels
