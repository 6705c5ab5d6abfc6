#!/usr/bin/env bash
# The requirement parsers on pathological input, run by hand (not by CI):
#   tests/bench/parsers.sh [BUILD_DIR] [ROUNDS]
# Prints, for each input that once blew up (tests/env/tst_requirement.cpp, tst_requirementsfile
# check their results), the median time against ordinary input of the same size and the ratio.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-5}
cmake --build "$build" --target ferry_parserbench >/dev/null
"$build/bin/ferry_parserbench" "$rounds"
