#!/usr/bin/env bash
# A notebook's outputs without a widget, run by hand (not by CI):
#   tests/bench/notebookoutputs.sh [BUILD_DIR] [LINES] [ROUNDS]   (a RelWithDebInfo or Release build)
# LINES (default 1,000,000) printed lines in chunks of 100 (short, coloured, tqdm redraws) drawn by
# TerminalText next to appending them to one QString, and a DataFrame of LINES/200 rows made safe
# next to QString::toHtmlEscaped of it (see notebookoutputsbench.cpp). Goal (issue 36): a million
# lines well under a second of CPU, memory flat (the terminal keeps its head and tail only).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
cmake --build "$build" --target ferry_notebookoutputsbench >/dev/null
exec "$build/bin/ferry_notebookoutputsbench" "${2:-1000000}" "${3:-3}"
