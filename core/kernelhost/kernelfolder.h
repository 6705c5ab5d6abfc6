// KernelFolder: a kernel's folder, `<workspace>/.ferry/kernels/<id>/`, and the keeper's records in
// it (docs/kernels.md), read in one place.
#pragma once

#include "common/error.h"

#include <QString>
#include <QStringList>

#include <optional>

namespace ferry::kernels {

struct ConnectionInfo;

// keeper.json: who runs (the keeper's and the kernel's pids with their start ticks, the boot).
struct KeeperRecord {
    qint64 keeperPid = 0;
    quint64 keeperStartTicks = 0;
    qint64 kernelPid = 0;
    quint64 kernelStartTicks = 0;
    QString bootId;
    QString host;
    qint64 startedMs = 0;
    int restarts = 0;
    QString socketDir;
};

// status.json: the kernel's execution state and what it holds, kept by the keeper.
struct KernelStatus {
    QString state; // starting, idle, busy
    qint64 lastActivityMs = 0;
    qint64 updatedMs = 0;
    qint64 memoryBytes = 0;
    qint64 peakMemoryBytes = 0;
    qint64 journalBytes = 0;
    qint64 journalRecords = 0;
    qint64 droppedMessages = 0;
};

// kernel-exit.json: how the kernel ended.
struct KernelEnd {
    QString reason; // exited, signal, out-of-memory, stopped, idle, terminated, failed-to-start, keeper-failed, ...
    int exitCode = -1;
    int signal = 0;
    qint64 finishedMs = 0;
    qint64 peakMemoryBytes = 0;
    QString detail;
    QStringList lastLines;   // the log's, then the output's
    QStringList logLines;    // the last lines of the kernel's own log (kernel.log)
    QStringList streamLines; // the last lines the kernel's cells printed
};

// A kernel's folder is a run's folder (spec.json, supervisor.json, log, exit.json: the keeper's
// run), with the keeper's own folder in it, `kernel/` (kKeeperFolder), which is what the keeper
// sees and writes (mounted into a container, on the host for SSH and Slurm) and the file
// `sockets`: the folder where Ferry reaches the kernel's sockets (the kernel's own on this
// machine, a container's mounted, or SSH's forwards of a host's).
class KernelFolder {
public:
    static constexpr const char16_t *kKeeperFolder = u"kernel";

    explicit KernelFolder(QString path) : m_path(std::move(path)) {}
    static QString pathFor(const QString &kernelsDir, const QString &id) { return kernelsDir + u'/' + id; }

    const QString &path() const { return m_path; }
    QString id() const;
    QString keeperDir() const { return m_path + u'/' + QString::fromUtf16(kKeeperFolder); }
    QString socketsFile() const { return m_path + QStringLiteral("/sockets"); } // run::kSocketsFile
    // Where Ferry reaches the sockets (the `sockets` file); empty when it cannot be read.
    QString ferrySocketDir() const;
    // connection.json as Ferry uses it: the socket prefix moved to ferrySocketDir(), or to
    // `socketDir` when given (a link's own folder of forwards, kernellink.h).
    Expected<ConnectionInfo> connectionForFerry(const QString &socketDir = {}) const;
    QString connectionFile() const { return file(u"connection.json"); }
    QString journalFile() const { return file(u"journal"); }
    QString keeperRecordFile() const { return file(u"keeper.json"); }
    QString statusFile() const { return file(u"status.json"); }
    QString endFile() const { return file(u"kernel-exit.json"); }
    QString kernelLogFile() const { return file(u"kernel.log"); }
    QString stopRequestFile() const { return file(u"stop-request"); }
    QString redactFile() const { return file(u"redact"); }

    // Empty while the file is not there; an Error when it is there but unreadable or not JSON.
    Expected<std::optional<KeeperRecord>> readKeeper() const;
    Expected<std::optional<KernelStatus>> readStatus() const;
    Expected<std::optional<KernelEnd>> readEnd() const;

private:
    QString file(const char16_t *name) const { return keeperDir() + u'/' + QString::fromUtf16(name); }
    QString m_path;
};

// "out of memory", "stopped", "exited with code 1", "killed by signal 9 (SIGKILL)": a kernel's
// end in words, never just "dead".
QString endText(const KernelEnd &end);
// "the kernel ended: out of memory (peak 302 MB)": what a command says when a kernel it used ended.
QString endSentence(const KernelEnd &end);

} // namespace ferry::kernels
