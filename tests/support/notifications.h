// Alert tests inside a private D-Bus session with a real notification server, and what that
// server received.
#pragma once

// The alert tests run inside tests/services/notifications.sh: a D-Bus session of their own with
// tests/services/notification-server.py owning org.freedesktop.Notifications. A test started on
// its own runs itself again inside one (FERRY_NOTIFICATIONS_TEST_MAIN); NotificationServer reads
// the Notify calls the server recorded and clicks a notification as a person would.
#include "support/session.h"
#include "support/wait.h"

#include <QDBusConnection>
#include <QDBusMessage>
#include <QDBusReply>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QStringList>

#define FERRY_NOTIFICATIONS_SCRIPT FERRY_SOURCE_DIR "/tests/services/notifications.sh"

namespace ferry::test {

// `notifications.sh MODE PROGRAM ARGS...` (run, no-service, no-bus), its output forwarded; its
// exit code.
inline int runInNotificationSession(const QString &mode, const QString &program, const QStringList &arguments)
{
    return runInSession(QStringLiteral(FERRY_NOTIFICATIONS_SCRIPT), "FERRY_NOTIFICATIONS_SESSION", mode, program,
                        arguments);
}

// The test notification server on this session bus, through its test interface.
class NotificationServer {
public:
    // Every Notify call so far, in order: {id, app_name, summary, body, actions, hints, ...}.
    QList<QJsonObject> calls() const
    {
        const QDBusReply<QString> reply = QDBusConnection::sessionBus().call(method(QStringLiteral("Calls")));
        QList<QJsonObject> list;
        if (!reply.isValid())
            return list;
        for (const QJsonValue &call : QJsonDocument::fromJson(reply.value().toUtf8()).array())
            list << call.toObject();
        return list;
    }
    // The calls whose summary contains `text`.
    QList<QJsonObject> callsSaying(const QString &text) const
    {
        QList<QJsonObject> found;
        for (const QJsonObject &call : calls()) {
            if (call.value(QStringLiteral("summary")).toString().contains(text))
                found << call;
        }
        return found;
    }
    // Waits until a notification's summary contains `text`; that notification, or an empty object.
    QJsonObject waitForCall(const QString &text, int timeoutMs = 20000) const
    {
        QJsonObject found;
        waitFor(
            [&] {
                const auto saying = callsSaying(text);
                if (!saying.isEmpty())
                    found = saying.first();
                return !saying.isEmpty();
            },
            timeoutMs);
        return found;
    }
    // The server emits ActionInvoked(id, key), as a click on the notification does ("default").
    bool invoke(uint id, const QString &key = QStringLiteral("default")) const
    {
        QDBusMessage call = method(QStringLiteral("Invoke"));
        call << id << key;
        return QDBusConnection::sessionBus().call(call).type() == QDBusMessage::ReplyMessage;
    }
    // Every summary so far, for a failure's message.
    QString summaries() const
    {
        QStringList all;
        for (const QJsonObject &call : calls())
            all << call.value(QStringLiteral("summary")).toString();
        return all.join(QStringLiteral(" | "));
    }

private:
    static QDBusMessage method(const QString &name)
    {
        return QDBusMessage::createMethodCall(QStringLiteral("org.freedesktop.Notifications"),
                                              QStringLiteral("/org/freedesktop/Notifications"),
                                              QStringLiteral("dev.ferry.TestNotifications"), name);
    }
};

} // namespace ferry::test

// FERRY_TEST_MAIN with application class App, inside a session with the test notification server.
#define FERRY_NOTIFICATIONS_TEST_MAIN_APP(App, TestObject)                                                             \
    FERRY_SESSION_TEST_MAIN_APP(App, TestObject, FERRY_NOTIFICATIONS_SCRIPT, "FERRY_NOTIFICATIONS_SESSION", "run")
#define FERRY_NOTIFICATIONS_TEST_MAIN(TestObject) FERRY_NOTIFICATIONS_TEST_MAIN_APP(QCoreApplication, TestObject)
