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

namespace ferry::kernels::hostlink {

namespace {

constexpr int kHealthyAfterMs = 5000;       // a forward that lived this long was well: its pause starts again
constexpr int kBridgeLingerMs = 3000;       // a bridge whose connection here has closed gets this long to end by itself
constexpr int kLinkConnectionPersistS = 10; // the bridges' own SSH connection, after their last session

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

} // namespace

std::unique_ptr<SocketReach> forwardReach(const HostKernel &host, const SocketPairs &sockets)
{
    return std::make_unique<ForwardReach>(host, sockets);
}

Expected<std::unique_ptr<SocketReach>> bridgeReach(const HostKernel &host, const SocketPairs &sockets,
                                                   const QString &controlPath)
{
    auto bridges = std::make_unique<BridgeReach>(host, sockets, controlPath);
    if (const auto listening = bridges->listen(); !listening)
        return listening.error();
    return std::unique_ptr<SocketReach>(std::move(bridges));
}

} // namespace ferry::kernels::hostlink
