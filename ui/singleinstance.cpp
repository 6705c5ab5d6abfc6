#include "ui/singleinstance.h"

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

SingleInstance::SingleInstance(QString name, QObject *parent) : QObject(parent), m_name(std::move(name))
{
    // Only this user may connect (the socket file is 0600 in the user's runtime folder).
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

bool SingleInstance::handToRunning(const QStringList &paths, int timeoutMs)
{
    QLocalSocket socket;
    socket.connectToServer(m_name);
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
    if (m_server.listen(m_name))
        return true;
    if (m_server.serverError() != QAbstractSocket::AddressInUseError)
        return false;
    // handToRunning() found nobody there: the socket file is a crashed instance's.
    QLocalServer::removeServer(m_name);
    return m_server.listen(m_name);
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
