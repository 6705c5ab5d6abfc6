#!/usr/bin/env bash
# A private Docker engine for the integration tests: its own dockerd, socket, data and state
# under one folder, so it never touches (or needs) a system dockerd.
#   docker.sh start [HOLDER]  start it if it is not running; prints the DOCKER_HOST to use
#   docker.sh stop [HOLDER]   stop the dockerd this script started (by its pid), nothing else.
#                             With HOLDER (e.g. a build folder): start records it, stop forgets
#                             it and leaves the engine running while another holder (one that
#                             started less than 6 hours ago) still uses it.
#   docker.sh status      prints the DOCKER_HOST and exits 0 if it answers, exits 1 if not
#   docker.sh base-image  builds ferry-base:bookworm (Debian 12 + python3 + pip) unless present
#   docker.sh kernel-image  builds ferry-kernel:bookworm (the base + Debian's python3-ipykernel, for
#                         the kernel tests) unless present: apt in a container on the host's network
# State: ${FERRY_DOCKER_DIR:-/var/tmp/ferry-docker} (in /var/tmp so the base image survives reboots).
# Storage driver: overlay2 where an overlay mount works in that folder (seconds less per build
# step and per container), vfs otherwise (every layer a full copy); FERRY_DOCKER_STORAGE
# chooses. Each driver has its own data folder.
# Needs root, docker.io and debootstrap (packaging/install-deps.sh test).
#
# The machines we test on have no bridge networking (no iptables) and no image registry:
# containers run with --network none or host, and the only base image is one we debootstrap.
set -euo pipefail

D=${FERRY_DOCKER_DIR:-/var/tmp/ferry-docker}
IMAGE=${FERRY_BASE_IMAGE:-ferry-base:bookworm}
SOCKET="$D/docker.sock"
export DOCKER_HOST="unix://$SOCKET"
PIDFILE="$D/dockerd.pid"

log() { echo "docker.sh: $*" >&2; }

answers() { docker info >/dev/null 2>&1; }

# The pid this script started, if that process is still a dockerd.
our_pid() {
  [ -f "$PIDFILE" ] || return 1
  local pid; pid=$(cat "$PIDFILE" 2>/dev/null) || return 1
  [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null || return 1
  [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ] || return 1
  echo "$pid"
}

# overlay2 when the kernel lets us mount an overlay on the data folder's file system, else vfs.
storage_driver() {
  if [ -n "${FERRY_DOCKER_STORAGE:-}" ]; then echo "$FERRY_DOCKER_STORAGE"; return; fi
  local p="$D/overlay-probe" driver=vfs
  rm -rf "$p"; mkdir -p "$p/lower" "$p/upper" "$p/work" "$p/merged"
  echo probe >"$p/lower/file"
  if mount -t overlay overlay -o "lowerdir=$p/lower,upperdir=$p/upper,workdir=$p/work" "$p/merged" 2>/dev/null; then
    [ "$(cat "$p/merged/file" 2>/dev/null)" = probe ] && driver=overlay2
    umount "$p/merged" 2>/dev/null || true
  fi
  rm -rf "$p"
  echo "$driver"
}

data_root() { # the data folder of a storage driver (vfs keeps the historical name)
  if [ "$1" = vfs ]; then echo "$D/data"; else echo "$D/data-$1"; fi
}

holder_file() { echo "$D/holders/$(printf %s "$1" | md5sum | cut -c1-16)"; }

start() {
  mkdir -p "$D"
  exec 9>"$D/start.lock"; flock 9     # test runs starting at once share one engine
  if [ -n "${1:-}" ]; then
    mkdir -p "$D/holders"; printf '%s\n' "$1" >"$(holder_file "$1")"
  fi
  if answers; then echo "$DOCKER_HOST"; return 0; fi
  if pid=$(our_pid); then
    log "dockerd $pid runs but does not answer yet; waiting"
  else
    command -v dockerd >/dev/null || { log "dockerd not found: install docker.io (packaging/install-deps.sh test)"; return 1; }
    [ "$(id -u)" -eq 0 ] || { log "starting dockerd needs root"; return 1; }
    rm -f "$SOCKET" "$PIDFILE"
    local driver; driver=$(storage_driver)
    log "starting dockerd (storage driver $driver)"
    # --bridge=none/--iptables=false: no iptables here. Its own containerd lives in exec-root.
    setsid dockerd --host "$DOCKER_HOST" --iptables=false --ip-forward=false --ip-masq=false \
      --bridge=none --storage-driver="$driver" \
      --data-root "$(data_root "$driver")" --exec-root "$D/exec" --pidfile "$PIDFILE" \
      >>"$D/dockerd.log" 2>&1 </dev/null 9>&- &
  fi
  for _ in $(seq 300); do
    if answers; then echo "$DOCKER_HOST"; return 0; fi
    sleep 0.2
  done
  log "dockerd did not answer on $SOCKET within 60 s; the end of $D/dockerd.log:"
  tail -20 "$D/dockerd.log" >&2
  return 1
}

stop() {
  local pid others
  mkdir -p "$D"
  exec 9>"$D/start.lock"; flock 9
  if [ -n "${1:-}" ]; then
    rm -f "$(holder_file "$1")"
    others=$(find "$D/holders" -type f -mmin -360 2>/dev/null | wc -l)
    if [ "$others" -gt 0 ]; then
      log "left running: $others other holder(s) in $D/holders"
      return 0
    fi
  fi
  pid=$(our_pid) || { rm -f "$PIDFILE"; return 0; }
  kill "$pid"
  for _ in $(seq 150); do
    kill -0 "$pid" 2>/dev/null || { rm -f "$PIDFILE"; return 0; }
    # PID 1 may be no real init: a dead, unreaped dockerd is a zombie, which counts as gone.
    [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" = Z ] && { rm -f "$PIDFILE"; return 0; }
    sleep 0.2
  done
  log "dockerd $pid did not stop within 30 s"
  return 1
}

status() {
  if answers; then echo "$DOCKER_HOST"; return 0; fi
  log "no engine answers on $SOCKET"
  return 1
}

# The Debian mirror this machine's apt uses (deb822 or one-line format), so the base image
# comes from the same place as the host's packages.
debian_mirror() {
  [ -n "${FERRY_DEBIAN_MIRROR:-}" ] && { echo "$FERRY_DEBIAN_MIRROR"; return; }
  local f url=""
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] || continue
    # The first stanza with a plain "bookworm" suite (not -security/-updates).
    url=$(awk '
      /^[[:space:]]*$/ { if (uris != "" && suite) { print uris; exit } uris = ""; suite = 0; next }
      /^URIs:/ { uris = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == "bookworm") suite = 1 }
      END { if (uris != "" && suite) print uris }' "$f" | head -1)
    [ -n "$url" ] && { echo "$url"; return; }
  done
  if [ -f /etc/apt/sources.list ]; then
    # deb [options] URI SUITE COMPONENTS...
    url=$(awk '$1 == "deb" { i = 2; if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                             if ($(i + 1) == "bookworm") { print $i; exit } }' /etc/apt/sources.list)
    [ -n "$url" ] && { echo "$url"; return; }
  fi
  # No mirror host is written in the repository (issue 14): apt's configuration is the only source.
  log "no bookworm mirror in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list;"
  log "set FERRY_DEBIAN_MIRROR to the Debian mirror to build the base image from"
  return 1
}

base_image() {
  answers || { log "no engine answers on $SOCKET: run 'docker.sh start' first"; return 1; }
  mkdir -p "$D"
  exec 8>"$D/base-image.lock"; flock 8
  if docker image inspect "$IMAGE" >/dev/null 2>&1; then return 0; fi
  command -v debootstrap >/dev/null || { log "debootstrap not found (packaging/install-deps.sh test)"; return 1; }
  local root="$D/rootfs" mirror; mirror=$(debian_mirror) || return 1
  rm -rf "$root"
  log "building $IMAGE from $mirror (about a minute)"
  if ! debootstrap --variant=minbase --include=python3,python3-pip bookworm "$root" "$mirror" \
      >"$D/debootstrap.log" 2>&1; then
    log "debootstrap failed; the end of $D/debootstrap.log:"; tail -20 "$D/debootstrap.log" >&2
    rm -rf "$root"; return 1
  fi
  # Smaller is faster (with vfs every layer is a full copy): drop the downloaded .debs and docs.
  rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* \
         "$root"/usr/share/doc/* "$root"/usr/share/man/* "$root"/usr/share/locale/*
  tar --numeric-owner -C "$root" -c . | docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' --change 'CMD ["/bin/bash"]' - "$IMAGE" >/dev/null
  rm -rf "$root"
}

# The base image with Debian's ipykernel, for kernels in containers (tests/kernelhost): apt-get in a
# container of the base image on the host's network (the base's sources are the mirror it came from).
kernel_image() {
  base_image || return 1
  local image=${FERRY_KERNEL_IMAGE:-ferry-kernel:bookworm} name="ferry-kernel-image-$$"
  exec 9>"$D/kernel-image.lock"; flock 9
  if docker image inspect "$image" >/dev/null 2>&1; then return 0; fi
  log "building $image (apt-get install python3-ipykernel)"
  if ! docker run --name "$name" --network host "$IMAGE" sh -c \
      'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends python3-ipykernel && rm -rf /var/lib/apt/lists/* /var/cache/apt/archives/*.deb /usr/share/doc/*' \
      >"$D/kernel-image.log" 2>&1; then
    log "apt-get failed; the end of $D/kernel-image.log:"; tail -20 "$D/kernel-image.log" >&2
    docker rm -f "$name" >/dev/null 2>&1 || true; return 1
  fi
  docker commit --change 'CMD ["/bin/bash"]' "$name" "$image" >/dev/null
  docker rm -f "$name" >/dev/null
}

case "${1:-}" in
  start) start "${2:-}" ;;
  kernel-image) kernel_image ;;
  stop) stop "${2:-}" ;;
  status) status ;;
  base-image) base_image ;;
  *) echo "usage: $0 start|stop|status|base-image|kernel-image" >&2; exit 2 ;;
esac
