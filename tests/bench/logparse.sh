#!/usr/bin/env bash
# Log parsing throughput, run by hand (not by CI):
#   tests/bench/logparse.sh [BUILD_DIR] [LINES] [RUNS]     (a RelWithDebInfo or Release build)
# Generates a Hugging Face Trainer-style log (LINES lines, default 1 M: tqdm redraws with the
# Trainer's dict after the bar, tests/bench/make_hf_log.py) and reads its metrics RUNS times
# each (default 3), alternating:
#   ferry   - metricRecords + MetricParser (tests/bench/logparsebench.cpp), as a follower reads;
#   python  - /usr/bin/python3, the last '\r' part of each line and ast.literal_eval on its dict
#             (tests/bench/logparse_reference.py), timed inside Python.
# Prints the medians in MB/s (MB = 10^6 bytes) and the ratio Ferry/Python (goal >= 10).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
lines=${2:-1000000}
runs=${3:-3}
cmake --build "$build" --target ferry_logparsebench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 tests/bench/make_hf_log.py "$lines" "$work/train.log"
. tests/bench/throughput.sh
compare_throughput "$work/train.log" "$runs" "$build/bin/ferry_logparsebench" -- /usr/bin/python3 tests/bench/logparse_reference.py
