#!/usr/bin/env bash
# Issue 14 item 11: no Debian mirror's host name is written in the repository; the fixtures take
# the mirror from apt's own configuration (tests/services/docker.sh debian_mirror). Fails, naming
# each file and line, when a Debian mirror host (the deb. host of debian.org, an ftp.XX. one, a
# mirror.*/mirrors.* host in a deb line or a URL) appears in a tracked source file.
set -euo pipefail
cd "$(dirname "$0")/../.."
# The patterns are split so that this file does not match itself.
debian='deb''\.debian\.org|ftp[.][a-z]{2}[.]debian[.]org|(http|https)://[^ /]*mirror[^ /]*/debian'
found=$(grep -rnIE "$debian" --exclude-dir=.git --exclude-dir='build*' --exclude-dir=.cache . || true)
if [ -n "$found" ]; then
  echo "a Debian mirror host is written in the repository (take it from apt's configuration):"
  echo "$found"
  exit 1
fi
echo "no mirror host written in the repository"
