#!/usr/bin/env bash
# Start-up benchmark, run by hand (not by CI):
#   tests/bench/startup.sh [BUILD_DIR] [RUNS]
# Compares, in one run on one machine:
#   - ferry --exit-after-first-frame: process start to first painted frame (Ferry's own clock,
#     10 ms resolution) and the whole command's wall time, offscreen and under Xvfb;
#   - the peer: /usr/bin/python3 -c "import torch" (Debian's python3-torch, the same libtorch;
#     /usr/bin because a pyenv python earlier on PATH has no torch);
#   - ferry doctor --json: loading the trainer plugin + libtorch and a tiny fit, on demand.
# Prints medians and the ratio of each Ferry figure to the peer.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-15}
ferry="$build/bin/ferry"
[ -x "$ferry" ] || { echo "no $ferry: build first (see README)" >&2; exit 1; }
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "python3-torch missing: packaging/install-deps.sh bench" >&2; exit 1; }

ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
export XDG_CONFIG_HOME="$ws/config" XDG_RUNTIME_DIR="$ws/run"
mkdir -p "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
wall() { local t0; t0=$(now_ms); "$@" >/dev/null 2>&1; echo $(( $(now_ms) - t0 )); }

first_frame() { "$@" 2>/dev/null | sed -n 's/^first frame: \([0-9]*\) ms.*/\1/p'; }

declare -A result
measure() { # name command...
  local name=$1; shift
  local values=()
  "$@" >/dev/null 2>&1 || true # warm the page cache
  for _ in $(seq "$runs"); do values+=("$(wall "$@")"); done
  result[$name]=$(printf '%s\n' "${values[@]}" | median)
}

ff_offscreen=()
for _ in $(seq "$runs"); do
  ff_offscreen+=("$(first_frame env QT_QPA_PLATFORM=offscreen "$ferry" --exit-after-first-frame "$ws")")
done
result[ff_offscreen]=$(printf '%s\n' "${ff_offscreen[@]}" | median)
measure wall_offscreen env QT_QPA_PLATFORM=offscreen "$ferry" --exit-after-first-frame "$ws"
measure import_torch /usr/bin/python3 -c 'import torch'
measure doctor "$ferry" doctor --json
measure version "$ferry" --version

if command -v xvfb-run >/dev/null; then
  result[ff_xcb]=$(xvfb-run -a -s '-screen 0 1600x1000x24 -nolisten tcp' bash -c '
    for i in $(seq '"$runs"'); do QT_QPA_PLATFORM=xcb '"$ferry"' --exit-after-first-frame '"$ws"' 2>/dev/null; done' |
    sed -n 's/^first frame: \([0-9]*\) ms.*/\1/p' | median)
fi

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
peer=${result[import_torch]}
echo "runs: $runs each, medians in ms; peer = python3 -c 'import torch' (${peer} ms)"
printf '%-52s %8s %10s\n' "measure" "ms" "vs peer"
printf '%-52s %8s %10s\n' "ferry --version (wall)" "${result[version]}" "$(ratio "${result[version]}" "$peer")"
printf '%-52s %8s %10s\n' "first frame, offscreen (process start -> paint)" "${result[ff_offscreen]}" "$(ratio "${result[ff_offscreen]}" "$peer")"
[ -n "${result[ff_xcb]:-}" ] &&
  printf '%-52s %8s %10s\n' "first frame, Xvfb (process start -> paint)" "${result[ff_xcb]}" "$(ratio "${result[ff_xcb]}" "$peer")"
printf '%-52s %8s %10s\n' "window to first frame and exit, offscreen (wall)" "${result[wall_offscreen]}" "$(ratio "${result[wall_offscreen]}" "$peer")"
printf '%-52s %8s %10s\n' "ferry doctor: load libtorch + tiny fit (wall)" "${result[doctor]}" "$(ratio "${result[doctor]}" "$peer")"
printf '%-52s %8s %10s\n' "python3 -c 'import torch' (wall, the peer)" "$peer" "1.00"
