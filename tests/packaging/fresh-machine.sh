#!/usr/bin/env bash
# The README's first command on a machine that has nothing: a clean Debian 12 container (the
# debootstrap base of tests/services/docker.sh) gets this source tree and runs the command's steps
# up to its configure, exactly as README.md writes them (the first sh block under "## Start
# Ferry" is the one place the command lives); then builds one small target, to show the
# compiler it installed works. Fails, with the step's output, when a step fails.
#   fresh-machine.sh         (the docker fixture running: DOCKER_HOST from docker.sh)
# The container uses this machine's apt configuration (its mirror: none is written here) and the
# .debs this machine downloaded (/var/cache/apt/archives, mounted read-only and linked into the
# container's own cache, so two containers never share apt's lock), so what the machine has is
# not downloaded again; installing and configuring every package still happens in the container.
set -euo pipefail
cd "$(dirname "$0")/../.."
services=tests/services
DOCKER_HOST=$("$services/docker.sh" status)
export DOCKER_HOST
IMAGE=${FERRY_BASE_IMAGE:-ferry-base:bookworm}

# The command: the first ```sh block after "## Start Ferry" in README.md, one line.
command=$(awk '/^## Start Ferry/ { section = 1; next }
               section && /^```sh/ { block = 1; next }
               block && /^```/ { exit }
               block { print }' README.md)
if [ -z "$command" ] || [ "$(printf '%s\n' "$command" | wc -l)" -ne 1 ]; then
  echo "fresh-machine.sh: README.md has no one-line sh block under '## Start Ferry'" >&2
  exit 1
fi
echo "README's first command: $command"
# Its steps up to the build: what must work on a machine that has nothing (the build itself is
# what every other test does; the window is not opened here).
steps=()
IFS=$'\n' read -r -d '' -a parts < <(printf '%s' "$command" | sed 's/ && /\n/g' && printf '\0')
for part in "${parts[@]}"; do
  case "$part" in
    "cmake --build"*) break ;;
  esac
  steps+=("$part")
done
case "${steps[*]}" in
  *install-deps.sh*"cmake -S"*) ;;
  *) echo "fresh-machine.sh: the command has no install-deps.sh then 'cmake -S' step: ${steps[*]}" >&2; exit 1 ;;
esac

name="ferry-fresh-machine-$$"
cleanup() { docker rm -f "$name" >/dev/null 2>&1 || true; }
trap cleanup EXIT
docker run -d --name "$name" --network host \
  -v /var/cache/apt/archives:/var/cache/apt/host-archives:ro \
  "$IMAGE" sleep infinity >/dev/null

# This machine's apt configuration: its sources and settings (the mirror is whatever it names).
tar -C /etc/apt -c sources.list.d apt.conf.d $( [ -f /etc/apt/sources.list ] && echo sources.list) 2>/dev/null |
  docker exec -i "$name" sh -c 'rm -f /etc/apt/sources.list && tar -C /etc/apt -x'
docker exec "$name" sh -c 'for f in /var/cache/apt/host-archives/*.deb; do [ -e "$f" ] && ln -s "$f" /var/cache/apt/archives/; done; true'
# dpkg without fsync in this throwaway container (what is installed is the same; a third of the
# install's time went to syncing on the container's file system).
docker exec "$name" sh -c 'echo force-unsafe-io >/etc/dpkg/dpkg.cfg.d/ferry-unsafe-io'
# The source tree as a clone has it (tracked and untracked, not ignored: no build folders).
git ls-files -z --cached --others --exclude-standard |
  xargs -0 sh -c 'for f; do [ -e "$f" ] && printf "%s\0" "$f"; done' sh |
  tar --null -T - -c | docker exec -i "$name" sh -c 'mkdir -p /src/ferry && tar -C /src/ferry -x'

for step in "${steps[@]}"; do
  echo "== in a clean Debian 12: $step"
  started=$(date +%s)
  if ! docker exec -w /src/ferry "$name" bash -c "$step" >"/tmp/$name.log" 2>&1; then
    echo "fresh-machine.sh: FAILED on a clean Debian 12: $step; its output ends:" >&2
    tail -40 "/tmp/$name.log" >&2
    rm -f "/tmp/$name.log"
    exit 1
  fi
  tail -3 "/tmp/$name.log"
  echo "   ($(($(date +%s) - started)) s)"
done
rm -f "/tmp/$name.log"
# One small target: the compiler, Qt's and the libraries' headers as installed (ferry_common).
echo "== in a clean Debian 12: cmake --build build --target ferry_common"
started=$(date +%s)
docker exec -w /src/ferry "$name" cmake --build build --target ferry_common >/dev/null
echo "   ($(($(date +%s) - started)) s)"
echo "fresh-machine.sh: the README's first command configures and builds on a clean Debian 12"
