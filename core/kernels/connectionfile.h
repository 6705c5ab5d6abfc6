// ConnectionInfo: a Jupyter connection file (where a kernel's five sockets are, and its key).
#pragma once

#include "common/error.h"

#include <QByteArray>
#include <QString>

namespace ferry::kernels {

// The five channels of a kernel (https://jupyter-client.readthedocs.io/en/stable/messaging.html).
enum class Channel { Shell, IOPub, Stdin, Control, Heartbeat };
QString channelName(Channel channel); // "shell", "iopub", ...

// A connection file: the transport (`ipc`, Unix sockets at "<ip>-<port>"; or `tcp`), the ports,
// the signing key. Ferry writes ipc files in a private socket folder; it reads tcp ones only
// on 127.0.0.1 (a kernel listening elsewhere would be reachable from the network).
struct ConnectionInfo {
    QString transport = QStringLiteral("ipc");
    QString ip;
    int shellPort = 1;
    int iopubPort = 2;
    int stdinPort = 3;
    int controlPort = 4;
    int hbPort = 5;
    QByteArray key;
    QString signatureScheme = QStringLiteral("hmac-sha256");
    QString kernelName;

    int port(Channel channel) const;
    // "ipc:///tmp/ferry-1000-x/k-1/k-1", "tcp://127.0.0.1:5555".
    QString endpoint(Channel channel) const;

    // The file's JSON, as jupyter_client writes it.
    QByteArray toJson() const;
    // A connection file read back: transport ipc or tcp on 127.0.0.1 (else refused, with the
    // reason), ports 1..65535, hmac-sha256 with a key (a file without one is refused: Ferry never
    // talks to an unsigned kernel).
    static Expected<ConnectionInfo> fromJson(const QByteArray &json, const QString &path);
    static Expected<ConnectionInfo> read(const QString &path);
    // Written 0600 (a new file replaces the old atomically); the key must never be readable by others.
    Expected<void> write(const QString &path) const;

    // An ipc connection: the sockets at `socketPrefix`-1..5, a fresh key.
    static ConnectionInfo ipc(const QString &socketPrefix, const QString &kernelName);
};

} // namespace ferry::kernels
