#!/usr/bin/env bash
# Snapshot benchmark, run by hand (not by CI):
#   tests/bench/snapshot.sh [BUILD_DIR] [--megabytes M] [--files N] [--folders F] [--rounds R]
# The time and the bytes a run's snapshot costs after a one-line change in a 200 MB source folder
# of 1,000 files in 50 folders, next to `git stash create` + `git archive` of the same tree in the
# same run (see snapshotbench.cpp).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
cmake --build "$build" --target ferry_snapshotbench >/dev/null
exec "$build/bin/ferry_snapshotbench" "$@"
