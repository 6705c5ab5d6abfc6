#!/usr/bin/env bash
# Distributions benchmark, run by hand (not by CI); groups.sh runs it after its own:
#   tests/bench/histograms.sh [BUILD_DIR] [--steps N] [--bins B] [--frames F]
# 1,000 histogram steps x 30 bins drawn by the Media tab's plot (offscreen): the pointer frame's p50
# and p99 (goal p99 <= 16 ms) against a peer measured in the same run, a naive widget drawing every
# step with QPainter::drawPolyline each frame; and the picture drawn anew. See histogramsbench.cpp.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
shift || true
cmake --build "$build" --target ferry_histogramsbench >/dev/null
QT_QPA_PLATFORM=offscreen exec "$build/bin/ferry_histogramsbench" "$@"
