#!/usr/bin/env bash
# A private OpenSSH server on 127.0.0.1 for the SSH and Slurm target tests: key-only login as
# the current user, its own host key, no systemd, state in one folder.
#   sshd.sh start DIR   start it unless it runs; writes DIR/config (Host ferrytest: the port,
#                       user and key, nothing about host keys: Ferry decides those) and
#                       DIR/known_hosts (the host key, for tests that accept it up front)
#   sshd.sh stop DIR    stop the sshd this script started (by its pid), nothing else
#   sshd.sh restart DIR stop and start on the same port and host key (a cut connection)
# Sessions get SLURM_CONF (and DOCKER_HOST) when those are set at start (kept for later starts
# without them), so a Slurm cluster and a Docker engine from the other fixtures are reachable
# through the host.
# Needs openssh-server and rsync (packaging/install-deps.sh test).
set -euo pipefail

D=${2:-}
[ -n "$D" ] || { echo "usage: $0 start|stop|restart DIR" >&2; exit 2; }
mkdir -p "$D"; D=$(cd "$D" && pwd)

our_pid() {
  [ -f "$D/sshd.pid" ] || return 1
  local pid; pid=$(cat "$D/sshd.pid" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = sshd ] || return 1
  echo "$pid"
}

# A port from the folder's name, so two build folders never share one.
port() {
  if [ -f "$D/port" ]; then cat "$D/port"; return; fi
  echo $(( 20000 + $(printf %s "$D" | cksum | cut -d' ' -f1) % 20000 )) | tee "$D/port"
}

start() {
  if our_pid >/dev/null; then return 0; fi
  [ -x /usr/sbin/sshd ] || { echo "sshd.sh: /usr/sbin/sshd missing (packaging/install-deps.sh test)" >&2; return 1; }
  mkdir -p /run/sshd; chmod 700 "$D"   # /run/sshd: the privilege separation folder must exist
  [ -f "$D/host_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$D/host_ed25519"
  [ -f "$D/id_ed25519" ] || ssh-keygen -q -t ed25519 -N '' -f "$D/id_ed25519"
  cp "$D/id_ed25519.pub" "$D/authorized_keys"
  local p user; p=$(port); user=$(id -un)
  {
    echo "ListenAddress 127.0.0.1"
    echo "Port $p"
    echo "HostKey $D/host_ed25519"
    echo "PidFile $D/sshd.pid"
    # The fixture's key for the current user; a test user of its own (tst_loginshell) its home's file.
    echo "AuthorizedKeysFile $D/authorized_keys .ssh/authorized_keys"
    echo "PermitRootLogin prohibit-password"
    echo "PubkeyAuthentication yes"
    echo "PasswordAuthentication no"
    echo "KbdInteractiveAuthentication no"
    echo "UsePAM no"
    echo "StrictModes no"
    echo "MaxSessions 100"
    echo "MaxStartups 100"
    echo "Subsystem sftp /usr/lib/openssh/sftp-server"
    # A restart from a test (a cut connection) keeps what the fixture's start gave sessions:
    # each variable given now replaces its own line of session-env, the others stay.
    local name value env=""
    for name in SLURM_CONF DOCKER_HOST; do
      value=${!name:-}
      if [ -z "$value" ]; then value=$(sed -n "s/^$name=//p" "$D/session-env" 2>/dev/null | head -n 1 || true); fi
      [ -n "$value" ] && env="$env $name=$value"
    done
    printf '%s\n' $env > "$D/session-env"
    [ -n "$env" ] && echo "SetEnv$env"
  } > "$D/sshd_config"
  /usr/sbin/sshd -t -f "$D/sshd_config"
  /usr/sbin/sshd -f "$D/sshd_config" -E "$D/sshd.log"   # daemonizes, writes the pid file
  for _ in $(seq 100); do
    ssh-keyscan -p "$p" -t ed25519 127.0.0.1 > "$D/known_hosts" 2>/dev/null || true
    [ -s "$D/known_hosts" ] && break; sleep 0.1
  done
  [ -s "$D/known_hosts" ] || { echo "sshd.sh: sshd does not answer on port $p" >&2; tail "$D/sshd.log" >&2; return 1; }
  cat > "$D/config" <<CFG
Host ferrytest
  HostName 127.0.0.1
  Port $p
  User $user
  IdentityFile $D/id_ed25519
  IdentitiesOnly yes
CFG
  # The server really answers a login (with the key accepted up front, no master).
  ssh -F "$D/config" -o BatchMode=yes -o StrictHostKeyChecking=yes -o UserKnownHostsFile="$D/known_hosts" \
    -o ControlPath=none ferrytest true
}

stop() {
  local pid
  pid=$(our_pid) || { rm -f "$D/sshd.pid"; return 0; }
  kill "$pid"
  for _ in $(seq 100); do
    kill -0 "$pid" 2>/dev/null || break
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && break
    sleep 0.05
  done
  rm -f "$D/sshd.pid"
}

case "$1" in
  start) start ;;
  stop) stop ;;
  restart) stop; start ;;
  *) echo "usage: $0 start|stop|restart DIR" >&2; exit 2 ;;
esac
