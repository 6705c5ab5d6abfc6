#include "notify/desktopnotifier.h"

#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusReply>
#include <QEventLoop>
#include <QTimer>
#include <QVariantMap>

#include <algorithm>
#include <utility>

using namespace Qt::StringLiterals;

namespace ferry::notify {

namespace {

constexpr int kNotifyTimeoutMs = 10000;   // a server that does not answer Notify in this long is given up
constexpr qsizetype kMostKeptKeys = 1000; // notifications whose click is still awaited

QString service()
{
    return QString::fromLatin1(DesktopNotifier::kService);
}

} // namespace

DesktopNotifier::DesktopNotifier(QObject *parent) : DesktopNotifier(QDBusConnection::sessionBus(), parent) {}

DesktopNotifier::DesktopNotifier(const QDBusConnection &bus, QObject *parent)
    : QObject(parent), m_bus(bus), m_appName(u"Ferry"_s), m_desktopEntry(u"dev.ferry.Ferry"_s)
{
}

DesktopNotifier::~DesktopNotifier() = default;

void DesktopNotifier::setApplication(const QString &name, const QString &desktopEntry)
{
    m_appName = name;
    m_desktopEntry = desktopEntry;
}

bool DesktopNotifier::available()
{
    if (!m_bus.isConnected())
        return false;
    QDBusConnectionInterface *bus = m_bus.interface();
    if (!bus)
        return false;
    if (const QDBusReply<bool> owned = bus->isServiceRegistered(service()); owned.isValid() && owned.value())
        return true;
    // A server the bus starts on the first call (a .service file: notification-daemon, dunst).
    const QDBusReply<QStringList> activatable = m_bus.call(QDBusMessage::createMethodCall(
        u"org.freedesktop.DBus"_s, u"/org/freedesktop/DBus"_s, u"org.freedesktop.DBus"_s, u"ListActivatableNames"_s));
    return activatable.isValid() && activatable.value().contains(service());
}

void DesktopNotifier::listen()
{
    if (m_listening)
        return;
    m_listening = true;
    // QtDBus connects a bus signal to a slot by its signature only: there is no member-pointer
    // form of QDBusConnection::connect.
    m_bus.connect(service(), QString::fromLatin1(kPath), service(), u"ActionInvoked"_s, this,
                  SLOT(onActionInvoked(uint, QString)));
}

void DesktopNotifier::send(const Notification &notification)
{
    if (!available())
        return;
    listen();
    QDBusMessage call = QDBusMessage::createMethodCall(service(), QString::fromLatin1(kPath), service(), u"Notify"_s);
    QVariantMap hints;
    const auto urgency = static_cast<uchar>(notification.urgency);
    hints.insert(u"urgency"_s, QVariant::fromValue(urgency));
    if (!m_desktopEntry.isEmpty())
        hints.insert(u"desktop-entry"_s, m_desktopEntry);
    if (!notification.category.isEmpty())
        hints.insert(u"category"_s, notification.category);
    // Actions come in pairs, the key and its label; "default" is the click on the notification.
    QStringList actions;
    if (!notification.key.isEmpty())
        actions << u"default"_s << tr("Open in Ferry");
    call.setArguments({m_appName, QVariant::fromValue(uint(0)), m_desktopEntry, notification.title,
                       notification.body.toHtmlEscaped(), actions, hints, QVariant::fromValue(-1)});
    ++m_inFlight;
    auto *watcher = new QDBusPendingCallWatcher(m_bus.asyncCall(call, kNotifyTimeoutMs), this);
    connect(watcher, &QDBusPendingCallWatcher::finished, this,
            [this, key = notification.key](QDBusPendingCallWatcher *answered) {
                answered->deleteLater();
                --m_inFlight;
                const QDBusPendingReply<uint> reply = *answered;
                if (reply.isError()) {
                    if (!std::exchange(m_saidFailure, true))
                        Q_EMIT failed(Error{tr("the desktop's notification service refused a notification: %1")
                                                .arg(reply.error().message()),
                                            {},
                                            0,
                                            0,
                                            {}});
                } else {
                    const uint id = reply.value();
                    if (!key.isEmpty()) {
                        if (m_keys.size() >= kMostKeptKeys) // the oldest (servers count ids up) goes
                            m_keys.remove(*std::min_element(m_keys.keyBegin(), m_keys.keyEnd()));
                        m_keys.insert(id, key);
                    }
                    Q_EMIT sent(id, key);
                }
            });
}

bool DesktopNotifier::waitForAnswers(int timeoutMs)
{
    if (m_inFlight == 0)
        return true;
    QEventLoop loop;
    QTimer timer;
    timer.setSingleShot(true);
    connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
    QTimer check;
    connect(&check, &QTimer::timeout, &loop, [this, &loop] {
        if (m_inFlight == 0)
            loop.quit();
    });
    timer.start(timeoutMs);
    check.start(10);
    loop.exec();
    return m_inFlight == 0;
}

void DesktopNotifier::onActionInvoked(uint id, const QString &action)
{
    if (action != "default"_L1)
        return;
    if (const auto it = m_keys.constFind(id); it != m_keys.cend())
        Q_EMIT activated(*it);
}

} // namespace ferry::notify
