#include "kernelhost/kernellink.h"

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

namespace {

// keeper.json, status.json and kernel-exit.json are small; what a host sends past this is no record.
constexpr qint64 kMaxRecordBytes = 1 << 20;
// stderr of the mirror: a line longer than this is dropped (the records are base64 of 1 MiB at most).
constexpr qsizetype kMaxLineBytes = 2 << 20;
constexpr int kFirstPauseMs = 250;
constexpr int kMaxPauseMs = 5000;
constexpr int kHealthyAfterMs = 5000; // a forward that lived this long was well: its pause starts again
constexpr int kQuickCallMs = 20000;
constexpr int kSyncToEndMs = 120000;        // the journal's rest, once the kernel has ended
constexpr int kSocketPathLimit = 100;       // sun_path is 108 bytes
constexpr int kBridgeLingerMs = 3000;       // a bridge whose connection here has closed gets this long to end by itself
constexpr int kLinkConnectionPersistS = 10; // the bridges' own SSH connection, after their last session

const QStringList kRecordNames{u"keeper.json"_s, u"status.json"_s, u"kernel-exit.json"_s};

// Where a kernel's run is on its SSH host or Slurm cluster, and how to reach it. The shell lands on
// the SSH host, or on the cluster's login host, whose file system the compute nodes share: the
// run's folder (the keeper's, the journal) is read there; the kernel's processes and sockets are on
// its node, reached through a step of its job.
struct HostKernel {
    targets::SshShell shell;
    QString kernelDir;   // the keeper's folder there
    QString socketDir;   // the kernel's sockets on its machine
    QString interpreter; // the run's, which runs the keeper there
    QString jobId;       // the kernel's Slurm job; empty: an SSH host (the kernel runs where the shell lands)

    // The words that run a command on the kernel's machine from where the shell lands: none on an
    // SSH host; a step of the kernel's job on Slurm (`--overlap`: beside the batch step, sharing its
    // resources; the job has one node, which srun picks).
    QStringList onKernelMachine() const
    {
        if (jobId.isEmpty())
            return {};
        return {u"srun"_s, u"--jobid="_s + jobId, u"--overlap"_s, u"--nodes=1"_s, u"--ntasks=1"_s, u"--mpi=none"_s};
    }
    // Where the kernel is, for messages: "host 'gpu1'", "Slurm job 42 (host 'login')".
    QString place() const { return jobId.isEmpty() ? shell.place() : u"Slurm job %1 (%2)"_s.arg(jobId, shell.place()); }
};

Expected<HostKernel> hostKernel(const KernelFolder &folder, const run::RunSpec &spec, const QString &ferryBinary)
{
    if (const auto checked = checkKernelTarget(spec); !checked)
        return checked.error();
    const auto record = targets::RemoteRecord::read(folder.path());
    if (!record)
        return record.error();
    if (!*record)
        return Error{u"the kernel's run has no folder on %1: it did not start there"_s.arg(spec.target.toString()),
                     folder.path(), 0, 0, u"`ferry kernel show` says how it ended"_s};
    if (spec.target.kind == run::TargetKind::Slurm && (*record)->jobId.isEmpty())
        return Error{u"the kernel's job was not submitted to %1"_s.arg(spec.target.toString()), folder.path(), 0, 0,
                     u"`ferry kernel show` says how it ended"_s};
    const auto connection = ConnectionInfo::read(folder.connectionFile());
    if (!connection)
        return connection.error();
    return HostKernel{targets::SshShell(spec.target.host, targets::SshOptions::forHost(
                                                              spec.target.host, spec.target.options, ferryBinary)),
                      (*record)->dir + u'/' + run::kKeeperFolder,
                      connection->transport == u"ipc" ? QFileInfo(connection->ip).path() : QString(),
                      spec.interpreter.isEmpty() ? u"python3"_s : spec.interpreter,
                      spec.target.kind == run::TargetKind::Slurm ? (*record)->jobId : QString()};
}

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

// An ssh of a link ends with the process that started it, however that one ends (a crash, a
// kill): no forward is left running for nobody. (A ControlMaster that ssh forks off does not
// inherit this: it outlives it, serving the runs' commands, as always.)
void endWithThisProcess(QProcess &process)
{
    process.setChildProcessModifier([] { ::prctl(PR_SET_PDEATHSIG, SIGTERM); });
}

// An ssh of a link on its way, fed by the event loop: ends with this process, talks to the host
// as the shell does (the passphrase helper).
std::unique_ptr<QProcess> linkProcess(const HostKernel &host)
{
    auto process = std::make_unique<QProcess>();
    endWithThisProcess(*process);
    process->setProcessEnvironment(host.shell.environment());
    return process;
}

// TERM, a second, KILL: ssh ends its connection (or its session of a shared one) at once.
void endProcess(QProcess &process)
{
    process.disconnect();
    if (process.state() == QProcess::NotRunning)
        return;
    process.terminate();
    if (!process.waitForFinished(1000)) {
        process.kill();
        process.waitForFinished(1000);
    }
}

// The end of what a process said on stderr, kept as it goes (the last 2,000 bytes).
void keepEnd(QByteArray &said, const QByteArray &more)
{
    said += more;
    if (said.size() > 2000)
        said = said.right(2000);
}

// The last lines of what an ssh said, for a message.
QString saidOf(const QByteArray &stderrEnd)
{
    const QString said = QString::fromUtf8(stderrEnd).trimmed();
    return said.isEmpty() ? QString() : u": "_s + said.section(u'\n', -2).trimmed();
}

// A pause that grows while something keeps failing: kFirstPauseMs, twice that ... kMaxPauseMs.
struct Pause {
    int failures = 0;
    qint64 untilMs = 0;
    bool due() const { return run::nowMs() >= untilMs; }
    void failed()
    {
        untilMs = run::nowMs() + std::min(kMaxPauseMs, kFirstPauseMs << std::min(failures, 5));
        ++failures;
    }
    void reset() { failures = 0; }
};

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

// How a link reaches the kernel's shell, stdin, control and heartbeat sockets (iopub comes through
// the journal) from its own folder here, where ZeroMQ connects.
class SocketReach {
public:
    virtual ~SocketReach() = default;
    // Keeps the way open while the kernel lives, trying again (after a pause that grows while it
    // keeps failing) what died; closes it once the kernel has ended. What is wrong now, if anything.
    virtual QString ensure(bool kernelEnded) = 0;
};

// A kernel on an SSH host: one `ssh -N` with a connection of its own (not the shared one: its
// forwards live exactly as long as this process) forwarding the link's sockets to the kernel's.
class ForwardReach final : public SocketReach {
public:
    ForwardReach(HostKernel host, QList<std::pair<QString, QString>> sockets)
        : m_host(std::move(host)), m_sockets(std::move(sockets))
    {
    }
    ~ForwardReach() override { stop(); }

    QString ensure(bool kernelEnded) override
    {
        const bool forwarding = m_forward && m_forward->state() != QProcess::NotRunning;
        if (kernelEnded && forwarding) {
            stop(); // nothing to talk to
        } else if (!kernelEnded && !forwarding) {
            if (m_forward && run::nowMs() - m_startedMs > kHealthyAfterMs)
                m_pause.reset();
            if (m_pause.due()) {
                m_pause.failed();
                start();
            }
        }
        if (!kernelEnded && (!m_forward || m_forward->state() == QProcess::NotRunning))
            return m_error;
        return {};
    }

private:
    void start()
    {
        stop();
        m_forward = linkProcess(m_host);
        m_forward->setStandardInputFile(QProcess::nullDevice());
        m_forward->setStandardOutputFile(QProcess::nullDevice());
        QObject::connect(m_forward.get(), &QProcess::finished, m_forward.get(), [this](int code, QProcess::ExitStatus) {
            m_error = u"the forwards to the kernel's sockets on %1 ended (exit code %2)%3"_s.arg(
                m_host.shell.place(), QString::number(code), saidOf(m_forward->readAllStandardError().right(2000)));
        });
        m_startedMs = run::nowMs();
        m_forward->start(u"ssh"_s,
                         targets::sshForwardArguments(m_host.shell.options(), m_host.shell.host(), m_sockets));
    }

    void stop()
    {
        if (m_forward)
            endProcess(*m_forward);
        m_forward.reset();
    }

    HostKernel m_host;
    QList<std::pair<QString, QString>> m_sockets; // here, there
    std::unique_ptr<QProcess> m_forward;
    qint64 m_startedMs = 0;
    QString m_error;
    Pause m_pause;
};

// A kernel on a Slurm node. ssh forwards a Unix socket only to the machine it logs in to (the
// login host), and the node's sockets are the node's: so the link listens on its folder itself,
// one socket per channel, and joins each connection ZeroMQ makes to the kernel's socket on the
// node through a command, `ssh LOGIN -- srun --jobid=JOB --overlap ... keeper.py bridge --lines
// SOCKET` (the bytes from the node as base64 lines: slurmstepd passes a task's output on by whole
// lines only; the bytes to it as they are). The bridges' sessions share an SSH connection of this
// link's own (sshSessionArguments: a server allows only so many sessions on one connection, and
// the host's shared one serves the runs' commands), which ends shortly after the last of them.
// A bridge that ends closes its connection here, so ZeroMQ connects again: a new bridge. One
// that ends without a byte from the kernel counts as failed: the next waits a pause that grows.
class BridgeReach final : public SocketReach {
public:
    BridgeReach(HostKernel host, QList<std::pair<QString, QString>> sockets, QString controlPath)
        : m_host(std::move(host)), m_sockets(std::move(sockets)), m_controlPath(std::move(controlPath))
    {
        m_retry.setSingleShot(true);
        QObject::connect(&m_retry, &QTimer::timeout, [this] { startDue(); });
    }
    ~BridgeReach() override { close(); }
    BridgeReach(const BridgeReach &) = delete;
    BridgeReach &operator=(const BridgeReach &) = delete;

    // The link's sockets, listening (a name left by a link that died is replaced).
    Expected<void> listen()
    {
        for (const auto &socket : m_sockets) {
            const QString &here = socket.first;
            const QString &there = socket.second;
            QLocalServer::removeServer(here);
            auto server = std::make_unique<QLocalServer>();
            server->setSocketOptions(QLocalServer::UserAccessOption);
            if (!server->listen(here))
                return Error{
                    u"cannot listen for the kernel's connections here: "_s + server->errorString(), here, 0, 0, {}};
            QLocalServer *raw = server.get();
            QObject::connect(raw, &QLocalServer::newConnection, raw, [this, raw, there] { accept(*raw, there); });
            m_servers.push_back(std::move(server));
        }
        return {};
    }

    QString ensure(bool kernelEnded) override
    {
        if (kernelEnded) {
            close();
            return {};
        }
        const qint64 now = run::nowMs();
        for (auto it = m_bridges.begin(); it != m_bridges.end();) {
            Bridge &b = **it;
            const bool running = b.process && b.process->state() != QProcess::NotRunning;
            if (running && b.socketGoneMs > 0 && now - b.socketGoneMs > kBridgeLingerMs)
                b.process->kill(); // its remote end did not notice the close
            if (b.socket->state() == QLocalSocket::UnconnectedState && !running) {
                if (b.process)
                    b.process->disconnect();
                it = m_bridges.erase(it);
            } else {
                ++it;
            }
        }
        startDue();
        const bool anyHeard = std::any_of(m_bridges.begin(), m_bridges.end(), [](const auto &b) {
            return b->heard && b->process && b->process->state() != QProcess::NotRunning;
        });
        return anyHeard ? QString() : m_error;
    }

private:
    struct Bridge {
        std::unique_ptr<QLocalSocket> socket; // ZeroMQ's connection here
        std::unique_ptr<QProcess> process;    // the bridge there; null until started (after a pause)
        QString there;                        // the kernel's socket on the node
        QByteArray line;                      // the bridge's output not yet a whole line
        QByteArray said;                      // the end of what ssh, srun or the bridge said
        qint64 socketGoneMs = 0;
        bool heard = false; // the kernel's socket answered through it
    };

    void accept(QLocalServer &server, const QString &there)
    {
        while (QLocalSocket *raw = server.nextPendingConnection()) {
            raw->setParent(nullptr);
            auto bridge = std::make_unique<Bridge>();
            bridge->socket.reset(raw);
            bridge->there = there;
            Bridge *b = bridge.get();
            QObject::connect(raw, &QLocalSocket::readyRead, raw, [b] {
                if (b->process && b->process->state() != QProcess::NotRunning)
                    b->process->write(b->socket->readAll());
            });
            QObject::connect(raw, &QLocalSocket::disconnected, raw, [b] {
                b->socketGoneMs = run::nowMs();
                if (b->process)
                    b->process->closeWriteChannel(); // the bridge there closes the kernel's side, and ends
            });
            m_bridges.push_back(std::move(bridge));
            if (m_pause.due())
                start(*b);
        }
        startDue();
    }

    // Connections that waited for a pause to pass: their bridges now, or a timer for when it has.
    void startDue()
    {
        const bool waiting = std::any_of(m_bridges.begin(), m_bridges.end(), [](const auto &b) {
            return !b->process && b->socket->state() == QLocalSocket::ConnectedState;
        });
        if (!waiting)
            return;
        if (!m_pause.due()) {
            m_retry.start(int(std::max<qint64>(1, m_pause.untilMs - run::nowMs())));
            return;
        }
        for (const auto &b : m_bridges) {
            if (!b->process && b->socket->state() == QLocalSocket::ConnectedState)
                start(*b);
        }
    }

    void start(Bridge &b)
    {
        const auto line = targets::loginShellCommandLine(
            m_host.onKernelMachine() + QStringList{m_host.interpreter, m_host.kernelDir + u'/' + run::kKeeperFile,
                                                   u"bridge"_s, u"--lines"_s, b.there});
        if (!line) {
            m_error = line.error().message;
            b.socket->abort();
            return;
        }
        b.process = linkProcess(m_host);
        QProcess *process = b.process.get();
        Bridge *bridge = &b;
        QObject::connect(process, &QProcess::readyReadStandardOutput, process, [this, bridge] { relay(*bridge); });
        QObject::connect(process, &QProcess::readyReadStandardError, process,
                         [bridge] { keepEnd(bridge->said, bridge->process->readAllStandardError()); });
        QObject::connect(process, &QProcess::finished, process,
                         [this, bridge](int code, QProcess::ExitStatus status) { ended(*bridge, code, status); });
        QObject::connect(process, &QProcess::errorOccurred, process, [this, bridge](QProcess::ProcessError error) {
            if (error != QProcess::FailedToStart) // no finished() comes after this one
                return;
            keepEnd(bridge->said, u"ssh did not start: "_s.toUtf8() + bridge->process->errorString().toUtf8());
            ended(*bridge, -1, QProcess::CrashExit);
        });
        process->start(u"ssh"_s,
                       targets::sshSessionArguments(m_host.shell.options(), m_controlPath, kLinkConnectionPersistS)
                           << u"--"_s << m_host.shell.host() << *line);
        // What ZeroMQ sent before the bridge started (its greeting) goes first.
        process->write(b.socket->readAll());
    }

    // The kernel's bytes, base64 lines from the bridge, to ZeroMQ's connection.
    void relay(Bridge &b)
    {
        b.line += b.process->readAllStandardOutput();
        qsizetype end;
        qsizetype from = 0;
        while ((end = b.line.indexOf('\n', from)) >= 0) {
            const auto bytes =
                QByteArray::fromBase64Encoding(b.line.mid(from, end - from), QByteArray::AbortOnBase64DecodingErrors);
            from = end + 1;
            if (!bytes) { // not the bridge speaking (a login shell's greeting?): this connection is lost
                b.said = u"the bridge's output is not what keeper.py writes"_s.toUtf8();
                b.process->kill();
                return;
            }
            if (!bytes.decoded.isEmpty() && b.socket->state() == QLocalSocket::ConnectedState) {
                b.socket->write(bytes.decoded);
                b.heard = true;
            }
        }
        b.line.remove(0, from);
        if (b.heard) {
            m_pause.reset();
            m_error.clear();
        }
    }

    void ended(Bridge &b, int code, QProcess::ExitStatus status)
    {
        relay(b);
        keepEnd(b.said, b.process->readAllStandardError());
        if (!b.heard && b.socketGoneMs == 0) {
            m_pause.failed();
            m_error = u"the bridge to the kernel's socket in %1 ended (%2)%3"_s.arg(
                m_host.place(), status == QProcess::NormalExit ? u"exit code %1"_s.arg(code) : u"killed"_s,
                saidOf(b.said));
        }
        // ZeroMQ sees its connection close, and connects again: a new bridge.
        if (b.socket->state() == QLocalSocket::ConnectedState)
            b.socket->disconnectFromServer();
    }

    void close()
    {
        m_retry.stop();
        for (auto &server : m_servers)
            server->close();
        m_servers.clear();
        for (auto &b : m_bridges) {
            b->socket->disconnect();
            if (b->process)
                b->process->terminate();
        }
        for (auto &b : m_bridges) {
            if (b->process)
                endProcess(*b->process);
            b->socket->abort();
        }
        m_bridges.clear();
    }

    HostKernel m_host;
    QList<std::pair<QString, QString>> m_sockets; // here, there
    QString m_controlPath;
    std::vector<std::unique_ptr<QLocalServer>> m_servers;
    std::list<std::unique_ptr<Bridge>> m_bridges;
    QTimer m_retry;
    Pause m_pause;
    QString m_error;
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

QString hostSocketDir(const QString &id)
{
    return u"/tmp/ferry-k-"_s + id;
}

QString kernelSideSocketDir(const run::RunSpec &spec, const QString &ferrySocketDir)
{
    switch (spec.target.kind) {
    case run::TargetKind::Container:
        return QString(run::kContainerSocketsMount); // the host's folder, mounted (targets/containertarget.cpp)
    case run::TargetKind::Ssh:
    case run::TargetKind::Slurm: // on the node, /tmp being the node's own
        return hostSocketDir(spec.id);
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
    if (spec.target.kind == run::TargetKind::Ssh && targets::SshTarget::runsInImage(spec))
        return targets::kernelInImageRefused(spec);
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
        reach = std::make_unique<ForwardReach>(*host, sockets);
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
        auto bridges = std::make_unique<BridgeReach>(*host, sockets, controlPath);
        if (const auto listening = bridges->listen(); !listening) {
            bridges.reset();
            QDir(*dir).removeRecursively();
            return listening.error();
        }
        reach = std::move(bridges);
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
                                 (*keeper)->bootId, signal},
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
