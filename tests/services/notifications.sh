#!/usr/bin/env bash
# A private desktop notification service for the alert tests: a D-Bus session of its own with a
# real notification server (tests/services/notification-server.py) owning
# org.freedesktop.Notifications, so no test ever shows a notification on the user's desktop.
#   notifications.sh run CMD ARGS...         CMD inside a session bus with the server on it
#   notifications.sh no-service CMD ARGS...  a session bus on which nothing provides the service
#   notifications.sh no-bus CMD ARGS...      no session bus at all (DBUS_SESSION_BUS_ADDRESS,
#                                            DISPLAY and XDG_RUNTIME_DIR's bus out of reach)
# CMD's exit status is the script's. The bus knows no service files, so nothing of the machine's
# (a notification daemon, a keyring) is started on demand. Only the server started here is
# stopped (by its pid; it also ends with the bus). Needs dbus-daemon, dbus-bin, python3-dbus and
# python3-gi (packaging/install-deps.sh test).
set -euo pipefail

mode=${1:-}
shift || true
[ $# -gt 0 ] || { echo "usage: $0 run|no-service|no-bus CMD ARGS..." >&2; exit 2; }
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
source "$here/private-bus.sh"

for tool in dbus-run-session dbus-send; do
  command -v "$tool" >/dev/null || {
    echo "notifications.sh: $tool not found: install dbus-bin and dbus-daemon (packaging/install-deps.sh test)" >&2
    exit 2
  }
done
/usr/bin/python3 -c 'import dbus, gi' 2>/dev/null || {
  echo "notifications.sh: /usr/bin/python3 lacks dbus or gi: install python3-dbus and python3-gi (packaging/install-deps.sh test)" >&2
  exit 2
}

base=${TMPDIR:-/tmp}
state=$(mktemp -d "$base/ferry-notifications.XXXXXX")
trap 'rm -rf "$state"' EXIT
mkdir -m 700 "$state/run"
export XDG_RUNTIME_DIR="$state/run"
unset DISPLAY WAYLAND_DISPLAY

if [ "$mode" = no-bus ]; then
  unset DBUS_SESSION_BUS_ADDRESS
  exec "$@"
fi

private_bus_config "$state/session.conf" "$state/run"

# The server takes its name once it answers: wait for the owner.
inner='
  mode=$1; server=$2; shift 2
  pid=
  if [ "$mode" = run ]; then
    /usr/bin/python3 "$server" &
    pid=$!
    for _ in $(seq 200); do
      dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null | grep -q true && break
      sleep 0.025
    done
    dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
      org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Notifications 2>/dev/null | grep -q true || {
      echo "notifications.sh: the notification server did not take org.freedesktop.Notifications within 5 s" >&2
      kill "$pid" 2>/dev/null
      exit 91
    }
  elif [ "$mode" != no-service ]; then
    echo "notifications.sh: unknown mode $mode" >&2
    exit 2
  fi
  rc=0
  "$@" || rc=$?
  [ -n "$pid" ] && kill "$pid" 2>/dev/null
  exit $rc'
dbus-run-session --config-file="$state/session.conf" -- sh -c "$inner" sh "$mode" "$here/notification-server.py" "$@"
