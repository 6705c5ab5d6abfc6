#!/usr/bin/env bash
# The kernel engine beside jupyter_client on the same ipykernel (Debian's), run by hand (not by CI):
#   tests/bench/kernels.sh [BUILD_DIR] [RUNS]          (a RelWithDebInfo or Release build)
# In the same run, alternating (tests/bench/kernelbench.cpp, tests/bench/kernels_reference.py):
#   start      a local kernel started to ready (Ferry: the kernel's run, its keeper, kernel_info
#              answered; jupyter_client: KernelManager.start_kernel to wait_for_ready), RUNS each;
#              and Ferry's in a container (ferry-kernel:bookworm, tests/services/docker.sh
#              kernel-image) when the test Docker engine answers
#   roundtrip  `1+1` sent to its result and idle: p50 and p99 over 200 cells
#   lines      a cell printing 1,000,000 lines: wall time against the kernel's own loop time
#              (goal <= 1.05), every line received in order, the client's peak memory (and with
#              100,000 lines, to show it does not grow with the output)
#   paused     the same cell while the client is stopped (SIGSTOP) for 10 s: lines received
#   replay     a 100 MB journal replayed whole by a fresh client (Ferry only; goal <= 2 s)
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
runs=${2:-3}
cmake --build "$build" --target ferry ferry_kernelbench >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf 'name: debian\nversion: 1\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n' >"$work/env.yml"
export PYDEVD_DISABLE_FILE_VALIDATION=1
ferry=("$build/bin/ferry_kernelbench" "$work" "$work/env.yml")
ref=(/usr/bin/python3 tests/bench/kernels_reference.py)
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
pct() { sort -n | awk -v p="$1" '{a[NR]=$1} END {i=int(NR*p/100+0.999); if(i<1)i=1; print a[i]}'; }
field() { awk -v k="$1" '$1==k {print $2}'; }

: >"$work/start.ferry"; : >"$work/start.ref"
for _ in $(seq "$runs"); do
  "${ferry[@]}" start 1 >>"$work/start.ferry"
  "${ref[@]}" start 1 2>/dev/null >>"$work/start.ref"
done
fs=$(median <"$work/start.ferry"); rs=$(median <"$work/start.ref")
printf 'start to ready (s, median of %d)   ferry %.3f   jupyter_client %.3f   ratio %.2f\n' "$runs" "$fs" "$rs" "$(echo "$fs / $rs" | bc -l)"
if docker_host=$(bash tests/services/docker.sh status 2>/dev/null) && bash tests/services/docker.sh kernel-image 2>/dev/null; then
  export DOCKER_HOST=$docker_host
  printf 'ferry: 1\nname: bench-kernel\nversion: "1"\ndocker:\n  base_image: ferry-kernel:bookworm\n  gpu: "off"\npython:\n  interpreter: python3\n  user_managed: true\n' >"$work/container.yml"
  "$build/bin/ferry_kernelbench" "$work" "$work/container.yml" start 1 container >/dev/null # its image built once
  "$build/bin/ferry_kernelbench" "$work" "$work/container.yml" start "$runs" container >"$work/start.container"
  printf 'start to ready in a container (s, median of %d)   ferry %.3f\n' "$runs" "$(median <"$work/start.container")"
fi

"${ferry[@]}" roundtrip 200 >"$work/rt.ferry"
"${ref[@]}" roundtrip 200 2>/dev/null >"$work/rt.ref"
printf 'round trip of 1+1 (ms)              ferry p50 %.2f p99 %.2f   jupyter_client p50 %.2f p99 %.2f\n' \
  "$(median <"$work/rt.ferry")" "$(pct 99 <"$work/rt.ferry")" "$(median <"$work/rt.ref")" "$(pct 99 <"$work/rt.ref")"

for who in ferry ref; do
  : >"$work/lines.$who"
done
for _ in $(seq "$runs"); do
  "${ferry[@]}" lines 1000000 >"$work/l.ferry"; cat "$work/l.ferry" >>"$work/lines.ferry.all"
  awk '$1=="wall"{w=$2} $1=="loop"{l=$2} END {print w/l}' "$work/l.ferry" >>"$work/lines.ferry"
  "${ref[@]}" lines 1000000 2>/dev/null >"$work/l.ref"; cat "$work/l.ref" >>"$work/lines.ref.all"
  awk '$1=="wall"{w=$2} $1=="loop"{l=$2} END {print w/l}' "$work/l.ref" >>"$work/lines.ref"
done
printf '1,000,000 lines: wall/loop (median) ferry %.3f   jupyter_client %.3f   (goal <= 1.05)\n' \
  "$(median <"$work/lines.ferry")" "$(median <"$work/lines.ref")"
printf '                 lines received     ferry %s   jupyter_client %s   in order: ferry %s\n' \
  "$(field received <"$work/l.ferry")" "$(field received <"$work/l.ref")" "$(field inorder <"$work/l.ferry")"
small=$("${ferry[@]}" lines 100000 | field peakRssKiB)
printf '                 peak memory (MiB)  ferry %d (100,000 lines: %d)   jupyter_client %d\n' \
  "$(( $(field peakRssKiB <"$work/l.ferry") / 1024 ))" "$(( small / 1024 ))" "$(( $(field peakRssKiB <"$work/l.ref") / 1024 ))"

"${ferry[@]}" lines 1000000 10 >"$work/p.ferry"
"${ref[@]}" lines 1000000 10 2>/dev/null >"$work/p.ref"
printf 'paused 10 s: lines received         ferry %s (in order %s)   jupyter_client %s   of 1000000\n' \
  "$(field received <"$work/p.ferry")" "$(field inorder <"$work/p.ferry")" "$(field received <"$work/p.ref")"

"${ferry[@]}" replay 100 >"$work/r.ferry"
printf 'replay of a %d MB journal (s)       ferry %.2f   (goal <= 2; peak memory %d MiB)\n' \
  "$(( $(field journalBytes <"$work/r.ferry") / 1000000 ))" "$(field replaySeconds <"$work/r.ferry")" \
  "$(( $(field peakRssKiB <"$work/r.ferry") / 1024 ))"
