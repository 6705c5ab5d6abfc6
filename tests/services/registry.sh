#!/usr/bin/env bash
# A private image registry with a password, for the registry-credential tests: Debian's
# docker-registry (the CNCF distribution registry) on 127.0.0.1, htpasswd auth, its own
# config, data and pid under one folder. The engine treats 127.0.0.0/8 registries as insecure
# (plain HTTP) without configuration.
#   registry.sh start   start it unless it runs; prints ADDRESS USER PASSWORD
#   registry.sh stop    stop the registry this script started (by its pid), nothing else
# State: ${FERRY_REGISTRY_DIR:-/var/tmp/ferry-registry}; port ${FERRY_REGISTRY_PORT:-15000}.
# Needs docker-registry and apache2-utils (packaging/install-deps.sh test).
set -euo pipefail

D=${FERRY_REGISTRY_DIR:-/var/tmp/ferry-registry}
PORT=${FERRY_REGISTRY_PORT:-15000}
USER_NAME=ferry-test
PASSWORD=registry-pa55-word
PIDFILE="$D/registry.pid"

running() {
  [ -f "$PIDFILE" ] || return 1
  local pid; pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = docker-registry ]
}

case "${1:-}" in
start)
  mkdir -p "$D/data"
  if ! running; then
    htpasswd -Bbn "$USER_NAME" "$PASSWORD" > "$D/htpasswd"
    cat > "$D/config.yml" <<CONF
version: 0.1
storage:
  filesystem:
    rootdirectory: $D/data
  delete:
    enabled: true
http:
  addr: 127.0.0.1:$PORT
auth:
  htpasswd:
    realm: ferry-test
    path: $D/htpasswd
CONF
    docker-registry serve "$D/config.yml" > "$D/registry.log" 2>&1 &
    echo $! > "$PIDFILE"
    for _ in $(seq 100); do
      code=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/v2/" || true)
      [ "$code" = 401 ] && break # up, and asking for the password
      sleep 0.1
    done
    [ "$code" = 401 ] || { echo "registry.sh: the registry did not start (see $D/registry.log)" >&2; exit 1; }
  fi
  echo "127.0.0.1:$PORT $USER_NAME $PASSWORD"
  ;;
stop)
  if running; then
    kill "$(cat "$PIDFILE")"
    rm -f "$PIDFILE"
  fi
  ;;
*)
  echo "usage: registry.sh start|stop" >&2
  exit 2
  ;;
esac
