#include "kernels/connectionfile.h"

#include "common/safefile.h"
#include "kernels/jupytermessage.h"

#include <QJsonDocument>
#include <QJsonObject>

using namespace Qt::StringLiterals;

namespace ferry::kernels {

QString channelName(Channel channel)
{
    switch (channel) {
    case Channel::Shell:
        return u"shell"_s;
    case Channel::IOPub:
        return u"iopub"_s;
    case Channel::Stdin:
        return u"stdin"_s;
    case Channel::Control:
        return u"control"_s;
    case Channel::Heartbeat:
        return u"hb"_s;
    }
    return {};
}

int ConnectionInfo::port(Channel channel) const
{
    switch (channel) {
    case Channel::Shell:
        return shellPort;
    case Channel::IOPub:
        return iopubPort;
    case Channel::Stdin:
        return stdinPort;
    case Channel::Control:
        return controlPort;
    case Channel::Heartbeat:
        return hbPort;
    }
    return 0;
}

QString ConnectionInfo::endpoint(Channel channel) const
{
    if (transport == u"ipc")
        return u"ipc://"_s + ip + u'-' + QString::number(port(channel));
    return u"tcp://"_s + ip + u':' + QString::number(port(channel));
}

QByteArray ConnectionInfo::toJson() const
{
    QJsonObject o{{u"transport"_s, transport},
                  {u"ip"_s, ip},
                  {u"shell_port"_s, shellPort},
                  {u"iopub_port"_s, iopubPort},
                  {u"stdin_port"_s, stdinPort},
                  {u"control_port"_s, controlPort},
                  {u"hb_port"_s, hbPort},
                  {u"key"_s, QString::fromLatin1(key)},
                  {u"signature_scheme"_s, signatureScheme}};
    if (!kernelName.isEmpty())
        o.insert(u"kernel_name"_s, kernelName);
    return QJsonDocument(o).toJson(QJsonDocument::Indented);
}

Expected<ConnectionInfo> ConnectionInfo::fromJson(const QByteArray &json, const QString &path)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (!doc.isObject())
        return Error{u"not a connection file: "_s + (doc.isNull() ? parseError.errorString() : u"not a JSON object"_s),
                     path, 0, 0, u"a Jupyter connection file is one JSON object"_s};
    const QJsonObject o = doc.object();
    ConnectionInfo info;
    info.transport = o.value(u"transport"_s).toString(u"tcp"_s);
    info.ip = o.value(u"ip"_s).toString();
    info.key = o.value(u"key"_s).toString().toUtf8();
    info.signatureScheme = o.value(u"signature_scheme"_s).toString(u"hmac-sha256"_s);
    info.kernelName = o.value(u"kernel_name"_s).toString();
    if (info.transport != u"ipc" && info.transport != u"tcp")
        return Error{u"transport \"%1\" is not ipc or tcp"_s.arg(info.transport), path, 0, 0, {}};
    if (info.transport == u"tcp" && info.ip != u"127.0.0.1" && info.ip != u"localhost")
        return Error{u"the kernel listens on %1, not on 127.0.0.1"_s.arg(info.ip), path, 0, 0,
                     u"Ferry connects only to kernels on 127.0.0.1 or Unix sockets; reach a remote one "
                     "through SSH forwarding"_s};
    if (info.ip.isEmpty())
        return Error{u"no \"ip\" (the address or the socket path)"_s, path, 0, 0, {}};
    if (info.signatureScheme != u"hmac-sha256")
        return Error{u"signature scheme \"%1\" is not hmac-sha256"_s.arg(info.signatureScheme), path, 0, 0, {}};
    if (info.key.isEmpty())
        return Error{u"no signing key"_s, path, 0, 0, u"Ferry never talks to a kernel whose messages are unsigned"_s};
    const struct {
        const char16_t *name;
        int *port;
    } ports[] = {{u"shell_port", &info.shellPort},
                 {u"iopub_port", &info.iopubPort},
                 {u"stdin_port", &info.stdinPort},
                 {u"control_port", &info.controlPort},
                 {u"hb_port", &info.hbPort}};
    for (const auto &p : ports) {
        const int value = o.value(QString::fromUtf16(p.name)).toInt(0);
        if (value < 1 || value > 65535)
            return Error{u"\"%1\" is not a port (1 to 65535)"_s.arg(QString::fromUtf16(p.name)), path, 0, 0, {}};
        *p.port = value;
    }
    return info;
}

Expected<ConnectionInfo> ConnectionInfo::read(const QString &path)
{
    const auto bytes = readRegularFile(path, 64 * 1024);
    if (!bytes)
        return bytes.error();
    if (!*bytes)
        return Error{u"no connection file"_s, path, 0, 0, {}};
    return fromJson(**bytes, path);
}

Expected<void> ConnectionInfo::write(const QString &path) const
{
    return replaceFileSafely(path, toJson(), 0600);
}

ConnectionInfo ConnectionInfo::ipc(const QString &socketPrefix, const QString &kernelName)
{
    ConnectionInfo info;
    info.transport = u"ipc"_s;
    info.ip = socketPrefix;
    info.key = freshKey();
    info.kernelName = kernelName;
    return info;
}

} // namespace ferry::kernels
