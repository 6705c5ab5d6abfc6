#include "ui/window/singleinstance.h"

#include "common/privatedir.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLocalSocket>

using namespace Qt::StringLiterals;

namespace ferry::ui {

namespace {

// One request per connection: a JSON line {"paths": [...]}, answered with "ok\n".
constexpr qint64 MaxRequest = 1 << 20;

} // namespace

SingleInstance::SingleInstance(const QString &name, QObject *parent) : QObject(parent)
{
    // A full path, never a bare name: Qt would put that in the shared /tmp, where another user
    // could listen first and be handed the paths (L4).
    if (const auto path = socketPath(name))
        m_path = *path;
    else
        m_problem = path.error().toString();
    // Only this user may connect (the socket file is 0600 in the user's private folder).
    m_server.setSocketOptions(QLocalServer::UserAccessOption);
    connect(&m_server, &QLocalServer::newConnection, this, &SingleInstance::accept);
}

QString SingleInstance::defaultName()
{
    const QString override = qEnvironmentVariable("FERRY_INSTANCE_NAME");
    if (!override.isEmpty())
        return override;
    QString user = qEnvironmentVariable("USER");
    if (user.isEmpty())
        user = QString::number(QDir::home().absolutePath().size()); // anything stable per account
    return u"dev.ferry.Ferry-"_s + user;
}

Expected<QString> SingleInstance::socketPath(const QString &name)
{
    if (name.isEmpty() || name.contains(u'/'))
        return Error{u"not a single-instance name: '%1'"_s.arg(name), {}, 0, 0, u"give a name without '/'"_s};
    const auto folder = privateRuntimeDir();
    if (!folder)
        return folder.error();
    return QString(*folder + u'/' + name);
}

QString SingleInstance::errorString() const
{
    return m_problem.isEmpty() ? m_server.errorString() : m_problem;
}

bool SingleInstance::handToRunning(const QStringList &paths, int timeoutMs)
{
    if (m_path.isEmpty())
        return false;
    QLocalSocket socket;
    socket.connectToServer(m_path);
    if (!socket.waitForConnected(timeoutMs))
        return false; // nobody listens (or only a stale socket file is left)
    QJsonArray absolute;
    for (const QString &path : paths)
        absolute.append(QFileInfo(path).absoluteFilePath());
    socket.write(QJsonDocument(QJsonObject{{u"paths"_s, absolute}}).toJson(QJsonDocument::Compact) + '\n');
    if (!socket.waitForBytesWritten(timeoutMs))
        return false;
    while (!socket.canReadLine()) {
        if (!socket.waitForReadyRead(timeoutMs))
            return false;
    }
    return socket.readLine().trimmed() == "ok";
}

bool SingleInstance::listen()
{
    if (m_path.isEmpty())
        return false;
    if (m_server.listen(m_path))
        return true;
    if (m_server.serverError() != QAbstractSocket::AddressInUseError)
        return false;
    // handToRunning() found nobody there: the socket file is a crashed instance's.
    QLocalServer::removeServer(m_path);
    return m_server.listen(m_path);
}

void SingleInstance::accept()
{
    while (QLocalSocket *socket = m_server.nextPendingConnection()) {
        connect(socket, &QLocalSocket::disconnected, socket, &QObject::deleteLater);
        connect(socket, &QLocalSocket::readyRead, socket, [this, socket] {
            if (!socket->canReadLine()) {
                if (socket->bytesAvailable() > MaxRequest)
                    socket->abort();
                return;
            }
            const QJsonObject request = QJsonDocument::fromJson(socket->readLine()).object();
            QStringList paths;
            for (const QJsonValue &path : request.value(u"paths"_s).toArray())
                paths << path.toString();
            socket->write("ok\n");
            socket->flush();
            socket->disconnectFromServer();
            Q_EMIT pathsReceived(paths);
        });
    }
}

} // namespace ferry::ui
