#!/usr/bin/python3
# A real notification server for the tests: owns org.freedesktop.Notifications on the session bus
# it is started on (tests/services/notifications.sh starts a private one), implements the
# Desktop Notifications Specification's methods as a server must, and records every Notify call.
# A test reads the calls and clicks a notification through the server's own test interface,
# dev.ferry.TestNotifications on the same object:
#   Calls() -> s        every Notify so far, a JSON array of {id, app_name, replaces_id, app_icon,
#                       summary, body, actions, hints, expire_timeout}
#   Invoke(u id, s key) emits ActionInvoked(id, key), as a click on the notification (or on one of
#                       its actions) does; then NotificationClosed(id, 2) as servers do
# Needs python3-dbus and python3-gi (packaging/install-deps.sh test).
import json
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

NAME = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
TEST = "dev.ferry.TestNotifications"


def plain(value):
    """A D-Bus value as JSON holds it."""
    if isinstance(value, (dbus.Array, list)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.Int32, dbus.Int64, dbus.UInt16, dbus.UInt32, dbus.UInt64)):
        return int(value)
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, dbus.Double):
        return float(value)
    return str(value)


class Server(dbus.service.Object):
    def __init__(self, bus):
        super().__init__(bus, PATH)
        self.calls = []
        self.next_id = 1

    @dbus.service.method(NAME, in_signature="susssasa{sv}i", out_signature="u")
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout):
        nid = int(replaces_id) if replaces_id else self.next_id
        if not replaces_id:
            self.next_id += 1
        self.calls.append({"id": nid, "app_name": str(app_name), "replaces_id": int(replaces_id),
                           "app_icon": str(app_icon), "summary": str(summary), "body": str(body),
                           "actions": plain(actions), "hints": plain(hints),
                           "expire_timeout": int(expire_timeout)})
        return dbus.UInt32(nid)

    @dbus.service.method(NAME, in_signature="", out_signature="as")
    def GetCapabilities(self):
        return ["actions", "body", "body-markup"]

    @dbus.service.method(NAME, in_signature="", out_signature="ssss")
    def GetServerInformation(self):
        return ("ferry-test-notifications", "Ferry", "1.0", "1.2")

    @dbus.service.method(NAME, in_signature="u", out_signature="")
    def CloseNotification(self, nid):
        self.NotificationClosed(nid, 3)

    @dbus.service.signal(NAME, signature="us")
    def ActionInvoked(self, nid, action_key):
        pass

    @dbus.service.signal(NAME, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass

    @dbus.service.method(TEST, in_signature="", out_signature="s")
    def Calls(self):
        return json.dumps(self.calls)

    @dbus.service.method(TEST, in_signature="us", out_signature="")
    def Invoke(self, nid, key):
        self.ActionInvoked(nid, key)
        self.NotificationClosed(nid, 2)


def main():
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.SessionBus()
    server = Server(bus)
    # Own the name only once the object answers: whoever sees the name taken may call it at once.
    owned = bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    if owned != dbus.bus.REQUEST_NAME_REPLY_PRIMARY_OWNER:
        print("notification-server.py: org.freedesktop.Notifications is taken on this bus", file=sys.stderr)
        return 1
    loop = GLib.MainLoop()
    # The bus going away (the session ends) ends the server.
    bus.call_on_disconnection(lambda _connection: loop.quit())
    loop.run()
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
