// DesktopNotifier: a notification on the desktop through the freedesktop notification service
// (org.freedesktop.Notifications on the session D-Bus), and the clicks on it.
#pragma once

// The standard way on Linux desktops (GNOME, KDE, XFCE, notification-daemon, dunst, mako): the
// Desktop Notifications Specification over the session bus. Only this folder of core sees Qt
// DBus (docs/architecture.md): the window and `ferry runs watch` both send through it.
// Where there is no session bus or nothing on it provides the service (a headless machine, an
// SSH session), available() is false and send() does nothing: no message, no wait.
#include "common/error.h"

#include <QDBusConnection>
#include <QHash>
#include <QObject>
#include <QString>

namespace ferry::notify {

struct Notification {
    enum class Urgency { Low, Normal, Critical }; // the spec's urgency hint (0, 1, 2)
    QString title;                                // the spec's summary: one line
    QString body;                                 // plain text (markup is escaped)
    Urgency urgency = Urgency::Normal;
    QString category; // the spec's category hint ("transfer.complete", "transfer.error"); empty: none
    // What activated() hands back when the person clicks the notification (its "default"
    // action); empty: the notification offers no action.
    QString key;
};

class DesktopNotifier : public QObject {
    Q_OBJECT
public:
    static constexpr auto kService = "org.freedesktop.Notifications";
    static constexpr auto kPath = "/org/freedesktop/Notifications";

    // On the session bus (DBUS_SESSION_BUS_ADDRESS, else the user's bus), or on `bus`.
    explicit DesktopNotifier(QObject *parent = nullptr);
    explicit DesktopNotifier(const QDBusConnection &bus, QObject *parent = nullptr);
    ~DesktopNotifier() override;

    // A session bus with a notification service on it, running or one the bus starts on demand.
    // Asked at each call (the bus itself answers, at once): a server started later is found.
    bool available();

    // Shows the notification: asynchronous (an answer comes as sent() or failed()); nothing when
    // no service is available.
    void send(const Notification &notification);
    // Waits (running the event loop) until every notification sent is answered, at most
    // `timeoutMs`: a command that ends sends its last one before it goes. False on time-out.
    bool waitForAnswers(int timeoutMs);

    // The application's name and icon the server shows, and its desktop entry (the spec's
    // desktop-entry hint). "Ferry", "dev.ferry.Ferry".
    void setApplication(const QString &name, const QString &desktopEntry);

Q_SIGNALS:
    // The person clicked a notification whose key this is (the server's ActionInvoked with
    // "default").
    void activated(const QString &key);
    void sent(uint id, const QString &key);
    // The server refused (or never answered) a notification; said once per notifier.
    void failed(const ferry::Error &error);

private Q_SLOTS:
    // ActionInvoked from the server (QtDBus connects it by its signature). A notification's key
    // is kept after it closes: a desktop that keeps closed ones in a list may still click them.
    void onActionInvoked(uint id, const QString &action);

private:
    void listen();

    QDBusConnection m_bus;
    QString m_appName;
    QString m_desktopEntry;
    bool m_listening = false;
    bool m_saidFailure = false;
    int m_inFlight = 0;
    QHash<uint, QString> m_keys; // the notifications shown with an action, by the server's id (at most 1,000)
};

} // namespace ferry::notify
