#include "kernelhost/kernellink.h"

#include "kernelhost/hostkernel.h"
#include "kernelhost/socketreach.h"

#include "common/privatedir.h"
#include "common/safefile.h"
#include "common/uniquefd.h"
#include "kernels/connectionfile.h"
#include "run/contract.h"
#include "run/distribution.h"
#include "run/rundirectory.h"
#include "targets/remoterun.h"
#include "targets/remotescripts.h"
#include "targets/shellquote.h"
#include "targets/sshshell.h"
#include "targets/sshtarget.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QLocalServer>
#include <QLocalSocket>
#include <QProcess>
#include <QTimer>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <fcntl.h>
#include <list>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

using namespace hostlink;

namespace {

// keeper.json, status.json and kernel-exit.json are small; what a host sends past this is no record.
constexpr qint64 kMaxRecordBytes = 1 << 20;
// stderr of the mirror: a line longer than this is dropped (the records are base64 of 1 MiB at most).
constexpr qsizetype kMaxLineBytes = 2 << 20;
constexpr int kQuickCallMs = 20000;
constexpr int kSyncToEndMs = 120000;  // the journal's rest, once the kernel has ended
constexpr int kSocketPathLimit = 100; // sun_path is 108 bytes

const QStringList kRecordNames{u"keeper.json"_s, u"status.json"_s, u"kernel-exit.json"_s};

// A record the host sent, kept here when it changed: JSON, bounded, written with the safe-file
// helpers (a link at the name is replaced, never followed). kernel-exit.json is written once,
// never over one (Ferry's own, for a keeper that is gone, included).
void keepRecord(const KernelFolder &folder, const QString &name, const QByteArray &bytes)
{
    if (!kRecordNames.contains(name) || bytes.size() > kMaxRecordBytes || !QJsonDocument::fromJson(bytes).isObject())
        return;
    const QString path = folder.keeperDir() + u'/' + name;
    if (name == u"kernel-exit.json") {
        if (entryKind(path) == EntryKind::Missing)
            (void)createNewFile(path, bytes, 0600);
        return;
    }
    if (const auto now = readRegularFile(path, kMaxRecordBytes); now && *now && **now == bytes)
        return;
    (void)replaceFileSafely(path, bytes, 0600);
}

// A "ferry-record NAME BASE64" line of scripts::kernelMirror.
std::optional<std::pair<QString, QByteArray>> recordOf(const QByteArray &line)
{
    const QList<QByteArray> parts = line.trimmed().split(' ');
    if (parts.size() != 3 || parts.at(0) != "ferry-record")
        return std::nullopt;
    const auto decoded = QByteArray::fromBase64Encoding(parts.at(2), QByteArray::AbortOnBase64DecodingErrors);
    if (!decoded)
        return std::nullopt;
    return std::pair{QString::fromUtf8(parts.at(1)), *decoded};
}

qint64 localJournalSize(const KernelFolder &folder)
{
    return entryKind(folder.journalFile()) == EntryKind::RegularFile ? QFileInfo(folder.journalFile()).size() : 0;
}

// The copy of the journal on the host into the local one: `keeper.py follow` from the local
// copy's size, through scripts::kernelMirror, which brings the records along. Each byte is
// written where it was read from (pwrite at its offset), so two Ferry processes copying the same
// journal write the same bytes at the same places and the copy stays an exact prefix of the
// host's. kernel-exit.json is held until `follow` has ended well (the journal is whole here).
//
// A process that lives as long as the link does, fed by the event loop: not a program run to
// its end, so QProcess and not runProgram (core/common/process.h).
class JournalMirror {
public:
    JournalMirror(KernelFolder folder, HostKernel host) : m_folder(std::move(folder)), m_host(std::move(host)) {}
    ~JournalMirror() { stop(); }
    JournalMirror(const JournalMirror &) = delete;
    JournalMirror &operator=(const JournalMirror &) = delete;

    bool running() const { return m_process && m_process->state() != QProcess::NotRunning; }
    // The kernel has ended and its journal is whole here, or its keeper has gone (follow's 0 and 3).
    bool done() const { return m_done; }
    // Whether it brought anything since it was started.
    bool heard() const { return m_heard; }
    const QString &lastError() const { return m_error; }

    Expected<void> start()
    {
        stop();
        m_heard = false;
        const QByteArray path = QFile::encodeName(m_folder.journalFile());
        m_fd = UniqueFd(::open(path.constData(), O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
        struct stat st {};
        if (!m_fd.valid() || ::fstat(m_fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
            m_error = u"cannot write the kernel's journal here: "_s + QString::fromLocal8Bit(strerror(errno));
            closeJournal();
            return Error{m_error, m_folder.journalFile(), 0, 0, {}};
        }
        m_offset = st.st_size;
        // The script on stdin, as RemoteShell::runScript sends one.
        const auto args = m_host.shell.commandArguments(
            {u"bash"_s, u"-s"_s, u"--"_s, m_host.kernelDir, QString::number(m_offset), m_host.interpreter});
        if (!args) {
            m_error = args.error().message;
            closeJournal();
            return args.error();
        }
        m_process = linkProcess(m_host);
        QObject::connect(m_process.get(), &QProcess::readyReadStandardOutput, m_process.get(),
                         [this] { takeJournal(); });
        QObject::connect(m_process.get(), &QProcess::readyReadStandardError, m_process.get(),
                         [this] { takeRecords(); });
        QObject::connect(m_process.get(), &QProcess::finished, m_process.get(),
                         [this](int code, QProcess::ExitStatus status) { ended(code, status); });
        m_process->start(u"ssh"_s, *args);
        // stdin stays open: its end tells the host that this copy has gone (scripts::kernelMirror).
        m_process->write(targets::scripts::kernelMirror);
        return {};
    }

    void stop()
    {
        if (m_process) {
            m_process->disconnect();
            if (m_process->state() != QProcess::NotRunning) {
                m_process->kill();
                m_process->waitForFinished(2000);
            }
            m_process.reset();
        }
        closeJournal();
    }

    // Runs until follow has ended (the kernel has ended there), at most `timeoutMs`: for a copy
    // made without an event loop. True when the journal is whole here.
    bool waitDone(int timeoutMs)
    {
        if (!m_process)
            return m_done;
        m_process->waitForFinished(timeoutMs);
        return m_done;
    }

private:
    void closeJournal() { m_fd = UniqueFd(); }

    void takeJournal()
    {
        const QByteArray bytes = m_process->readAllStandardOutput();
        qsizetype at = 0;
        while (at < bytes.size() && m_fd.valid()) {
            const ssize_t n = ::pwrite(m_fd.get(), bytes.constData() + at, size_t(bytes.size() - at), m_offset);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0) { // a full disk: stop here; the next start goes on from the local size
                m_error = u"cannot write the kernel's journal here: "_s + QString::fromLocal8Bit(strerror(errno));
                m_process->kill();
                return;
            }
            at += n;
            m_offset += n;
        }
        m_heard = m_heard || !bytes.isEmpty();
    }

    void takeRecords()
    {
        m_line += m_process->readAllStandardError();
        qsizetype end;
        while ((end = m_line.indexOf('\n')) >= 0) {
            const QByteArray line = m_line.left(end);
            m_line.remove(0, end + 1);
            if (const auto record = recordOf(line)) {
                m_heard = true;
                if (record->first == u"kernel-exit.json")
                    m_end = record->second; // once the journal is whole
                else
                    keepRecord(m_folder, record->first, record->second);
            } else if (!line.trimmed().isEmpty()) {
                m_said = QString::fromUtf8(line.left(500)).trimmed();
            }
        }
        if (m_line.size() > kMaxLineBytes)
            m_line.clear();
    }

    void ended(int code, QProcess::ExitStatus status)
    {
        takeJournal();
        takeRecords();
        closeJournal();
        // follow: 0 once kernel-exit.json exists there and the journal is copied; 3 when the
        // keeper has gone without it. Either way nothing more will come.
        if (status == QProcess::NormalExit && (code == 0 || code == 3)) {
            m_done = true;
            m_error.clear();
            if (m_end)
                keepRecord(m_folder, u"kernel-exit.json"_s, *m_end);
            return;
        }
        m_error = u"the copy of the kernel's journal from %1 ended (%2)%3"_s.arg(
            m_host.shell.place(), status == QProcess::NormalExit ? u"exit code %1"_s.arg(code) : u"killed"_s,
            m_said.isEmpty() ? QString() : u": "_s + m_said);
    }

    KernelFolder m_folder;
    HostKernel m_host;
    std::unique_ptr<QProcess> m_process;
    UniqueFd m_fd; // the local journal
    qint64 m_offset = 0;
    QByteArray m_line; // stderr not yet a whole line
    std::optional<QByteArray> m_end;
    QString m_said; // the last line that was no record (ssh's or follow's complaint)
    QString m_error;
    bool m_done = false;
    bool m_heard = false;
};

// A kernel on an SSH host or a Slurm node: the way to its sockets (SocketReach) and the journal
// mirror through the host's shared connection (ControlMaster).
class HostKernelLink final : public KernelLink {
public:
    HostKernelLink(const KernelFolder &folder, const HostKernel &host, QString linkDir,
                   std::unique_ptr<SocketReach> reach)
        : m_folder(folder), m_linkDir(std::move(linkDir)), m_mirror(folder, host), m_reach(std::move(reach))
    {
    }

    ~HostKernelLink() override
    {
        m_reach.reset();
        m_mirror.stop();
        QDir(m_linkDir).removeRecursively(); // the link's sockets: its own folder
    }

    QString ferrySocketDir() const override { return m_linkDir; }

    Expected<void> ensure() override
    {
        if (!m_mirror.done() && !m_mirror.running()) {
            if (m_mirror.heard())
                m_mirrorPause.reset();
            if (m_mirrorPause.due()) {
                m_mirrorPause.failed(); // until it is heard from
                (void)m_mirror.start();
            }
        }
        const QString unreachable = m_reach->ensure(m_mirror.done());
        if (!m_mirror.done() && !m_mirror.running() && !m_mirror.lastError().isEmpty())
            return Error{m_mirror.lastError(), m_folder.path(), 0, 0, u"Ferry tries again by itself"_s};
        if (!unreachable.isEmpty())
            return Error{unreachable, m_folder.path(), 0, 0, u"Ferry tries again by itself"_s};
        return {};
    }

private:
    KernelFolder m_folder;
    QString m_linkDir;
    JournalMirror m_mirror;
    std::unique_ptr<SocketReach> m_reach;
    Pause m_mirrorPause;
};

// One of the kernel's scripts (targets/remotescripts.h) where the shell lands (the SSH host, the
// cluster's login host: the run's folder is there) or, `onKernelMachine`, where the kernel runs
// (its node: its processes): what it printed, or an Error saying what could not be done there
// (`what`: "signal the kernel's keeper").
Expected<QByteArray> runOnHost(HostKernel &host, const KernelFolder &folder, const char *script,
                               const QStringList &args, const QString &what, bool onKernelMachine = false)
{
    const QStringList where = onKernelMachine ? host.onKernelMachine() : QStringList();
    const targets::ShellResult r =
        host.shell.run(where + QStringList{u"bash"_s, u"-s"_s, u"--"_s} + args, script, kQuickCallMs);
    if (!r.ok())
        return Error{
            u"cannot %1 in %2: %3"_s.arg(what, onKernelMachine ? host.place() : host.shell.place(), r.errorText()),
            folder.path(), 0, 0, u"try again once the host answers"_s};
    return r.out;
}

// This link's own folder in the kernel's local socket folder: `l<pid>-<n>`, 0700.
Expected<QString> makeLinkDir(const KernelFolder &folder)
{
    static std::atomic<int> links{0};
    const QString base = folder.ferrySocketDir();
    if (base.isEmpty())
        return Error{u"the kernel's folder does not say where its sockets are"_s, folder.socketsFile(), 0, 0, {}};
    if (const auto own = checkPrivateDir(base); !own)
        return own.error();
    // What links of processes that died left (their forwards' sockets).
    for (const QString &name : QDir(base).entryList({u"l*-*"_s}, QDir::Dirs | QDir::NoSymLinks)) {
        const qint64 pid = name.mid(1).section(u'-', 0, 0).toLongLong();
        if (pid > 0 && pid != ::getpid() && ::kill(pid_t(pid), 0) != 0 && errno == ESRCH)
            QDir(base + u'/' + name).removeRecursively();
    }
    const QString dir = u"%1/l%2-%3"_s.arg(base).arg(::getpid()).arg(++links);
    if (const auto made = ensurePrivateDir(dir); !made)
        return made.error();
    return dir;
}

} // namespace

QString kernelSideSocketDir(const run::RunSpec &spec, const QString &ferrySocketDir)
{
    switch (spec.target.kind) {
    case run::TargetKind::Container:
        return QString(run::kContainerSocketsMount); // the host's folder, mounted (targets/containertarget.cpp)
    case run::TargetKind::Ssh:
        if (targets::SshTarget::runsInImage(spec)) // the host's folder, mounted (targets/remoteimage.cpp)
            return QString(run::kContainerSocketsMount);
        return run::hostKernelSocketDir(spec.id);
    case run::TargetKind::Slurm: // on the node, /tmp being the node's own
        return run::hostKernelSocketDir(spec.id);
    default:
        return ferrySocketDir;
    }
}

Expected<void> checkKernelTarget(const run::RunSpec &spec)
{
    if (spec.target.kind == run::TargetKind::Slurm) {
        if (spec.target.host == u"local"_s)
            return Error{u"a kernel on this machine's Slurm (slurm:local) comes in a later version"_s,
                         {},
                         0,
                         0,
                         u"name the cluster's login host (--target slurm:HOST, reached through SSH), even when it "
                         "is this machine"_s};
        if (run::Distribution::orSingle(spec.target).isDistributed() ||
            spec.target.options.contains(run::kGpusPerNodeOption))
            return Error{u"a kernel runs on one node: --nodes, --tasks-per-node and --gpus-per-node are for runs"_s,
                         {},
                         0,
                         0,
                         u"ask for its GPUs with --gpus N"_s};
        if (spec.target.options.value(u"requeue"_s).toBool())
            return Error{u"a kernel cannot be requeued: what it holds in memory would be lost"_s,
                         {},
                         0,
                         0,
                         u"leave out --requeue"_s};
    }
    return {};
}

Expected<std::unique_ptr<KernelLink>> openKernelLink(const KernelFolder &folder, const run::RunSpec &spec,
                                                     const QString &ferryBinary)
{
    if (!spec.target.onHost())
        return std::unique_ptr<KernelLink>();
    if (const auto end = folder.readEnd(); end && *end) // the whole journal is here
        return std::unique_ptr<KernelLink>();
    const auto host = hostKernel(folder, spec, ferryBinary);
    if (!host)
        return host.error();
    const auto connection = ConnectionInfo::read(folder.connectionFile());
    if (!connection)
        return connection.error();
    if (connection->transport != u"ipc")
        return Error{u"a kernel on a host is reached through its ipc sockets; this one has none"_s,
                     folder.connectionFile(),
                     0,
                     0,
                     {}};
    // The local copy of the journal, which the client follows: the host's bytes from offset 0,
    // its header included.
    if (entryKind(folder.journalFile()) == EntryKind::Missing) {
        if (const auto made = createNewFile(folder.journalFile(), {}, 0600); !made)
            return made.error();
    }
    const auto dir = makeLinkDir(folder);
    if (!dir)
        return dir.error();
    const QString longest = *dir + u'/' + QFileInfo(connection->ip).fileName() + u"-65535"_s;
    if (QFile::encodeName(longest).size() > kSocketPathLimit) {
        QDir(*dir).removeRecursively();
        return Error{u"the kernel's local socket folder is too deep for a socket's path (%1)"_s.arg(*dir),
                     {},
                     0,
                     0,
                     u"set XDG_RUNTIME_DIR to a shorter folder"_s};
    }
    // The channels but iopub (the journal carries it): the link's socket here, the kernel's there.
    QList<std::pair<QString, QString>> sockets;
    const QString name = QFileInfo(connection->ip).fileName();
    for (const Channel channel : {Channel::Shell, Channel::Stdin, Channel::Control, Channel::Heartbeat}) {
        const QString socket = u"%1-%2"_s.arg(name).arg(connection->port(channel));
        sockets.append({*dir + u'/' + socket, host->socketDir + u'/' + socket});
    }
    std::unique_ptr<SocketReach> reach;
    if (host->jobId.isEmpty()) {
        reach = forwardReach(*host, sockets);
    } else {
        // The bridges' own connection: a control socket beside the shared ones (its folder is
        // short enough for ssh's names, and private), named after this link.
        QString controlPath;
        if (const QString controlDir = host->shell.options().controlDir; !controlDir.isEmpty()) {
            if (const auto own = ensurePrivateDir(controlDir); !own) {
                QDir(*dir).removeRecursively();
                return Error{u"the SSH control folder is unsafe: "_s + own.error().toString(), {}, 0, 0, {}};
            }
            controlPath = controlDir + u"/k"_s + QFileInfo(*dir).fileName();
        }
        auto bridges = bridgeReach(*host, sockets, controlPath);
        if (!bridges) {
            QDir(*dir).removeRecursively();
            return bridges.error();
        }
        reach = std::move(*bridges);
    }
    auto link = std::make_unique<HostKernelLink>(folder, *host, *dir, std::move(reach));
    // The processes start: what fails now is this machine's (a connection's failure comes later,
    // and the next calls try again).
    if (const auto started = link->ensure(); !started)
        return started.error();
    return std::unique_ptr<KernelLink>(std::move(link));
}

void refreshKernelRecords(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary)
{
    if (!spec.target.onHost())
        return;
    if (const auto end = folder.readEnd(); end && *end)
        return;
    auto host = hostKernel(folder, spec, ferryBinary);
    if (!host)
        return;
    const auto said =
        runOnHost(*host, folder, targets::scripts::kernelMirror, {host->kernelDir, u"0"_s}, u"read the records"_s);
    if (!said) // unreachable: the copies stay as they are (a probe says why)
        return;
    std::optional<QByteArray> end;
    qint64 journalThere = 0;
    for (const QByteArray &line : said->split('\n')) {
        if (line.startsWith("ferry-journal "))
            journalThere = line.mid(14).trimmed().toLongLong();
        else if (const auto record = recordOf(line); record && record->first == u"kernel-exit.json")
            end = record->second;
        else if (record)
            keepRecord(folder, record->first, record->second);
    }
    if (!end)
        return;
    // Ended there: the journal's rest first (kernel-exit.json comes with its end), then the record.
    if (localJournalSize(folder) < journalThere) {
        JournalMirror mirror(folder, *host);
        if (mirror.start() && mirror.waitDone(kSyncToEndMs))
            return;
        if (localJournalSize(folder) < journalThere)
            return; // not whole yet: the next refresh goes on
    }
    keepRecord(folder, u"kernel-exit.json"_s, *end);
}

Expected<void> signalHostKeeper(const KernelFolder &folder, const run::RunSpec &spec, const QString &signal,
                                const QString &ferryBinary)
{
    auto host = hostKernel(folder, spec, ferryBinary);
    if (!host)
        return host.error();
    refreshKernelRecords(folder, spec, ferryBinary);
    const auto keeper = folder.readKeeper();
    if (!keeper)
        return keeper.error();
    if (!*keeper)
        return Error{u"the kernel's keeper has not reported yet (no keeper.json)"_s, folder.path(), 0, 0, {}};
    const auto said = runOnHost(*host, folder, targets::scripts::kernelSignal,
                                {QString::number((*keeper)->keeperPid), QString::number((*keeper)->keeperStartTicks),
                                 (*keeper)->bootId, signal, host->runId},
                                u"signal the kernel's keeper"_s, true);
    if (!said)
        return said.error();
    if (said->trimmed() != "sent")
        return Error{u"the kernel's keeper is not running in %1"_s.arg(host->place()), folder.path(), 0, 0,
                     u"`ferry kernel show` says how it ended"_s};
    return {};
}

Expected<void> requestStopOnHost(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary)
{
    if (!spec.target.onHost())
        return {};
    auto host = hostKernel(folder, spec, ferryBinary);
    if (!host)
        return host.error();
    const auto said = runOnHost(*host, folder, targets::scripts::kernelStopRequest,
                                {host->kernelDir, QString::number(run::nowMs())}, u"ask the kernel's keeper to stop"_s);
    return said ? Expected<void>() : Expected<void>(said.error());
}

Expected<void> releaseKernelHost(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary)
{
    if (!spec.target.onHost())
        return {};
    auto host = hostKernel(folder, spec, ferryBinary);
    if (!host)
        return host.error();
    // On a Slurm node its keeper removes it as it ends (Slurm's KillWait gives it the time); once
    // the job has ended, nothing reaches the node.
    if (!host->socketDir.isEmpty() && host->jobId.isEmpty()) {
        const auto said = runOnHost(*host, folder, targets::scripts::kernelSocketsRemove, {host->socketDir},
                                    u"remove the kernel's socket folder %1"_s.arg(host->socketDir));
        if (!said)
            return said.error();
    }
    refreshKernelRecords(folder, spec, ferryBinary);
    return {};
}

} // namespace ferry::kernels
