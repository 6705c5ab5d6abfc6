#!/usr/bin/env bash
# The Dev Containers CLI (the reference implementation of devcontainer.json), for the tests.
#   devcontainer-cli.sh   installs it unless present; prints the path of the `devcontainer` binary
# Folder: ${FERRY_DEVCONTAINER_CLI_DIR:-/var/tmp/ferry-devcontainer-cli}. Needs node and npm
# (packaging/install-deps.sh test) and the npm registry the first time.
set -euo pipefail

VERSION=0.89.0
D=${FERRY_DEVCONTAINER_CLI_DIR:-/var/tmp/ferry-devcontainer-cli}
BIN="$D/node_modules/.bin/devcontainer"

log() { echo "devcontainer-cli.sh: $*" >&2; }

command -v node >/dev/null || { log "node not found: install nodejs (packaging/install-deps.sh test)"; exit 1; }
# Its package.json asks for Node.js >= 20, but npm only warns, and this version was checked to
# read configurations and build images with Debian 12's own nodejs 18.20.4. Older is refused.
major=$(node -p 'process.versions.node.split(".")[0]')
if [ "$major" -lt 18 ]; then
  log "@devcontainers/cli@$VERSION needs Node.js >= 18 (20 upstream); this node is $(node --version)"
  exit 1
fi

installed() {
  [ -x "$BIN" ] && [ "$(node -p "require('$D/node_modules/@devcontainers/cli/package.json').version" 2>/dev/null)" = "$VERSION" ]
}

mkdir -p "$D"
exec 9>"$D/install.lock"; flock 9
if ! installed; then
  command -v npm >/dev/null || { log "npm not found: install npm (packaging/install-deps.sh test)"; exit 1; }
  log "installing @devcontainers/cli@$VERSION into $D"
  [ -f "$D/package.json" ] || echo '{"private": true}' >"$D/package.json"
  if ! npm install --prefix "$D" --no-audit --no-fund --no-save --loglevel=error \
      "@devcontainers/cli@$VERSION" >"$D/npm.log" 2>&1; then
    log "npm install failed; the end of $D/npm.log:"; tail -20 "$D/npm.log" >&2
    exit 1
  fi
  installed || { log "npm finished but $BIN is not version $VERSION"; exit 1; }
fi
# Prove it runs with this node before handing it out.
if ! out=$("$BIN" --version 2>&1); then
  log "$BIN does not run: $out"
  exit 1
fi
echo "$BIN"
