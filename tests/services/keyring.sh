#!/usr/bin/env bash
# A private Secret Service for the keychain tests: gnome-keyring inside its own D-Bus session,
# with a fresh keyring folder every time, so no test ever sees (or needs) the user's keyring.
#   keyring.sh run CMD ARGS...          CMD inside a session with an unlocked login keyring
#   keyring.sh locked CMD ARGS...       the daemon runs, but there is no unlocked login keyring
#   keyring.sh no-provider CMD ARGS...  a session bus on which nothing provides org.freedesktop.secrets
#   keyring.sh no-bus CMD ARGS...       no session bus at all (DBUS_SESSION_BUS_ADDRESS and DISPLAY unset)
# CMD's exit status is the script's. State: a new folder under ${FERRY_KEYRING_DIR:-${TMPDIR:-/tmp}},
# removed afterwards. Only the daemon started here is stopped (by its pid; it would also exit
# with the bus). Needs dbus-daemon, dbus-bin and gnome-keyring (packaging/install-deps.sh test).
set -euo pipefail
source "$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/private-bus.sh"

mode=${1:-}
shift || true
[ $# -gt 0 ] || { echo "usage: $0 run|locked|no-provider|no-bus CMD ARGS..." >&2; exit 2; }

for tool in dbus-run-session dbus-send gnome-keyring-daemon; do
  command -v "$tool" >/dev/null || {
    echo "keyring.sh: $tool not found: install dbus-bin, dbus-daemon and gnome-keyring (packaging/install-deps.sh test)" >&2
    exit 2
  }
done

base=${FERRY_KEYRING_DIR:-${TMPDIR:-/tmp}}
mkdir -p "$base"
state=$(mktemp -d "$base/ferry-keyring.XXXXXX")
trap 'rm -rf "$state"' EXIT
mkdir -p "$state/data" && mkdir -m 700 "$state/run"
export XDG_DATA_HOME="$state/data" XDG_RUNTIME_DIR="$state/run"
# QtKeychain picks KWallet on a KDE desktop: the test wants the Secret Service.
unset DISPLAY WAYLAND_DISPLAY XDG_CURRENT_DESKTOP DESKTOP_SESSION KDE_FULL_SESSION GNOME_DESKTOP_SESSION_ID

if [ "$mode" = no-bus ]; then
  unset DBUS_SESSION_BUS_ADDRESS
  exec "$@"
fi

# gnome-keyring-daemon returns before it owns its bus name: wait for the owner.
inner='
  mode=$1; shift
  wait_for_secrets() {
    for _ in $(seq 100); do
      dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && return 0
      sleep 0.05
    done
    echo "keyring.sh: gnome-keyring did not take org.freedesktop.secrets within 5 s" >&2
    return 1
  }
  case "$mode" in
    run)
      printf %s "${FERRY_KEYRING_PASSWORD:-ferry-tests}" |
        gnome-keyring-daemon --unlock --components=secrets >/dev/null || exit 90
      wait_for_secrets || exit 91 ;;
    locked)
      gnome-keyring-daemon --start --components=secrets >/dev/null || exit 90
      wait_for_secrets || exit 91 ;;
    no-provider) ;;
    *) echo "keyring.sh: unknown mode $mode" >&2; exit 2 ;;
  esac
  gkd=$(dbus-send --session --print-reply=literal --dest=org.freedesktop.DBus / \
        org.freedesktop.DBus.GetConnectionUnixProcessID string:org.freedesktop.secrets 2>/dev/null | awk "{print \$2}")
  rc=0
  "$@" || rc=$?
  [ -n "$gkd" ] && kill "$gkd" 2>/dev/null
  exit $rc'
config=()
if [ "$mode" = no-provider ]; then
  # The standard session bus would start gnome-keyring on demand from its .service file:
  # this bus knows no service files at all.
  private_bus_config "$state/session.conf" "$state/run"
  config=(--config-file="$state/session.conf")
fi
dbus-run-session "${config[@]}" -- sh -c "$inner" sh "$mode" "$@"
