// KernelClient: talks to one Jupyter kernel over ZeroMQ (its shell, control, stdin and heartbeat
// sockets), its iopub messages read from the keeper's journal or from the kernel's own socket.
#pragma once

#include "common/error.h"
#include "kernels/connectionfile.h"
#include "kernels/jupytermessage.h"

#include <QJsonObject>
#include <QObject>
#include <QString>

#include <memory>

namespace ferry::kernels {

class KernelClientIo;

// One client of one kernel. Its sockets live in an I/O thread of its own, which reads every
// socket as soon as a message arrives (so the kernel never waits on Ferry) and hands messages
// to the client's thread as queued calls: no call here blocks on a socket, and the GUI can own
// one. Messages whose signature does not hold are dropped and counted, never delivered.
//
// Where iopub comes from: `Journal` follows the keeper's journal file (docs/kernels.md) from an
// offset, so a client that attaches late, or was stopped for a while, misses nothing and sees
// each message once, in order; `Socket` subscribes to the kernel's iopub socket itself (for a
// kernel without a keeper: what ZeroMQ drops for a slow subscriber is lost).
class KernelClient : public QObject {
    Q_OBJECT
public:
    enum class IopubSource { Journal, Socket };
    struct Options {
        IopubSource iopub = IopubSource::Journal;
        QString journalPath;      // with Journal
        qint64 journalOffset = 0; // 0: from the start; else a record's start (a previous endOffset)
        int heartbeatIntervalMs = 1000;
        int heartbeatTimeoutMs = 3000; // a missed beat after this: heartbeatChanged(false), a fresh socket
        QString username = QStringLiteral("ferry");
    };

    KernelClient(ConnectionInfo connection, Options options, QObject *parent = nullptr);
    ~KernelClient() override; // stops the I/O thread, closes the sockets at once (no linger)

    // Connects the sockets and starts the I/O thread. An Error when a socket cannot be made or
    // the journal cannot be opened.
    Expected<void> start();

    // Sends a request on `channel` (Shell, Control or Stdin); returns its msg_id. The reply and
    // the iopub messages it causes carry it as their parent's msg_id.
    QString send(Channel channel, const QString &type, const QJsonObject &content, const QJsonObject &metadata = {},
                 const QList<QByteArray> &buffers = {});
    QString execute(const QString &code, bool silent = false, bool storeHistory = true, bool allowStdin = false,
                    bool stopOnError = true, const QJsonObject &userExpressions = {});
    QString complete(const QString &code, int cursorPos);
    QString inspect(const QString &code, int cursorPos, int detailLevel = 0);
    QString isComplete(const QString &code);
    QString kernelInfo();
    QString interrupt(); // interrupt_request on control
    QString shutdown(bool restart = false);
    // An answer to an input_request (stdin), `parent` being the request's header.
    QString inputReply(const QString &value, const QJsonObject &parent);
    // comm messages (comm_open, comm_msg, comm_close, comm_info_request) as the caller made them.
    QString sendComm(const QString &type, const QJsonObject &content, const QList<QByteArray> &buffers = {});

    const ConnectionInfo &connection() const { return m_connection; }
    QString session() const { return m_session; }
    // Messages dropped for a signature that did not hold (any channel, the journal included).
    quint64 droppedMessages() const;
    // With Journal: the offset after the last record delivered (where a later client goes on).
    qint64 journalOffset() const { return m_journalOffset; }
    bool heartbeating() const { return m_beating; }

Q_SIGNALS:
    // A message from the kernel, in the order it came on its channel; iopub in journal order.
    void messageReceived(ferry::kernels::Channel channel, const ferry::kernels::JupyterMessage &message);
    // The heartbeat answered again (true) or missed its timeout (false).
    void heartbeatChanged(bool beating);
    // The journal could not be read on (damaged, removed): following stops; the sockets stay.
    void journalFailed(const ferry::Error &error);
    // The sockets failed (an error ZeroMQ raised, which no retry mends): the I/O thread has
    // stopped, nothing more comes or goes. An error to report, never a crash.
    void socketsFailed(const ferry::Error &error);

private:
    friend class KernelClientIo;
    void deliver();

    ConnectionInfo m_connection;
    Options m_options;
    QString m_session;
    std::unique_ptr<KernelClientIo> m_io;
    qint64 m_journalOffset = 0;
    bool m_beating = true;
};

} // namespace ferry::kernels
