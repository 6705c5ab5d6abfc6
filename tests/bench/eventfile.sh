#!/usr/bin/env bash
# TensorBoard event file throughput, run by hand (not by CI):
#   tests/bench/eventfile.sh [BUILD_DIR] [MB] [RUNS]     (a RelWithDebInfo or Release build)
# Generates an event file of scalars (MB megabytes, default 100: SummaryWriter-style simple values
# and Keras-style float tensors, one value per event, tests/bench/make_event_file.py) and reads its
# points RUNS times each (default 3), alternating:
#   ferry   - EventFileReader in 4 MiB blocks (tests/bench/eventfilebench.cpp), as a follower reads;
#   python  - /usr/bin/python3, struct framing, a pure-Python table CRC-32C of both CRCs and
#             python3-protobuf's Event parsing (tests/bench/eventfile_reference.py), timed inside Python.
# Prints the medians in MB/s (MB = 10^6 bytes) and the ratio Ferry/Python (goal >= 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
megabytes=${2:-100}
runs=${3:-3}
cmake --build "$build" --target ferry_eventfilebench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 tests/bench/make_event_file.py "$megabytes" "$work/events.out.tfevents.1733220000.bench"
. tests/bench/throughput.sh
compare_throughput "$work/events.out.tfevents.1733220000.bench" "$runs" "$build/bin/ferry_eventfilebench" -- /usr/bin/python3 tests/bench/eventfile_reference.py
