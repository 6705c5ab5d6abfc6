#!/usr/bin/env bash
# Log throughput of a chatty script, run by hand (not by CI):
#   tests/bench/logredaction.sh [BUILD_DIR] [LINES] [RUNS]
# Runs a script that prints LINES lines (default 2 M, ~60 bytes each, flushed in the interpreter's
# 8 KiB blocks) through `ferry run` twice per round: without secrets (its output goes straight to
# the log file) and with one --secret-env (through a pipe and the supervisor's redaction). Prints
# the median lines/s of each, from the script's own start and end marks in the log. Needs a
# keychain: run it inside tests/services/keyring.sh, e.g.
#   bash tests/services/keyring.sh run bash tests/bench/logredaction.sh build
# TARGET=container runs both in a container (the Docker engine of tests/services/docker.sh and
# its ferry-base:bookworm image): with secrets, the container's entry redacts.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
lines=${2:-2000000}
runs=${3:-3}
ferry="$(realpath "$build")/bin/ferry"
[ -x "$ferry" ] || ferry="$(realpath "$build")/app/ferry"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export XDG_CONFIG_HOME="$work/config"
printf %s 'bench-secret-value-0123456789' | "$ferry" secret set BENCH_TOKEN >/dev/null
cat > "$work/chatty.py" <<PY
import os, sys, time
n = int(sys.argv[sys.argv.index('--lines') + 1])
out = sys.stdout
out.write('start %.6f\n' % time.time())
for i in range(n):
    out.write('step=%d loss=%.6f acc=%.4f lr=0.001000 note=nothing-secret-here\n' % (i, 1.0 / (i + 1), i / n))
out.write('end %.6f\n' % time.time())
PY
rate() { # run dir -> lines/s, from the script's marks
  awk -v n="$lines" '/^start /{s=$2} /^end /{e=$2} END {printf "%.0f\n", n / (e - s)}' "$1/log"
}
whole() { # run dir -> lines/s until the log was complete (exit.json's finishedMs)
  local end; end=$(grep -o '"finishedMs": *[0-9]*' "$1/exit.json" | grep -o '[0-9]*$')
  awk -v n="$lines" -v f="$end" '/^start /{s=$2} END {printf "%.0f\n", n / (f / 1000 - s)}' "$1/log"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
cd "$work"
target=${TARGET:-local}
envargs=()
if [ "$target" = container ]; then
  mkdir -p environments
  printf 'ferry: 1\nname: bench-redaction\ndocker:\n  base_image: ferry-base:bookworm\n  gpu: "off"\npython:\n  interpreter: python3\n  user_managed: true\n' > environments/bench.yml
  envargs=(--env environments/bench.yml --target container)
fi
plain=() redacted=()
for _ in $(seq "$runs"); do
  for mode in plain redacted; do
    extra=()
    [ "$mode" = redacted ] && extra=(--secret-env BENCH_TOKEN)
    id=$("$ferry" run chatty.py --hp lines="$lines" "${envargs[@]}" "${extra[@]}") || exit 1
    until "$ferry" runs show "$id" --json | grep -q '"status": *"\(succeeded\|failed\|cancelled\|lost\)"'; do sleep 0.5; done
    r=$(rate ".ferry/runs/$id")
    if [ "$mode" = plain ]; then plain+=("$r"); else redacted+=("$r"); fi
    echo "$mode: $r lines/s in the script, $(whole ".ferry/runs/$id") lines/s until the log was complete" \
      "($(stat -c %s ".ferry/runs/$id/log") bytes)"
  done
done
echo "median without secrets: $(printf '%s\n' "${plain[@]}" | median) lines/s"
echo "median with redaction:  $(printf '%s\n' "${redacted[@]}" | median) lines/s"
"$ferry" secret delete BENCH_TOKEN >/dev/null
