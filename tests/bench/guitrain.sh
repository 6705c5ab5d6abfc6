#!/usr/bin/env bash
# Embedded training with the window open and the chart live, next to `ferry train` headless on
# the same data and settings (run by hand; needs Xvfb): the trainer's own samples/s metric,
# median over the run, each side ROUNDS times alternated, medians of those.
#   tests/bench/guitrain.sh [BUILD_DIR] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-3}
cmake --build "$build" --target ferry_guitrainbench ferry ferry_trainer >/dev/null
ferry="$PWD/$build/bin/ferry"
ws=$(mktemp -d)
trap 'rm -rf "$ws"' EXIT
/usr/bin/python3 - "$ws/data.csv" <<'PY'
import random, sys
random.seed(3)
with open(sys.argv[1], "w") as f:
    f.write(",".join(f"f{i}" for i in range(20)) + ",label\n")
    for _ in range(50000):
        x = [random.gauss(0, 1) for _ in range(20)]
        f.write(",".join(f"{v:.4f}" for v in x) + ("," + ("a" if sum(x[:5]) > 0 else "b")) + "\n")
PY
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
rate() { # run id: the median of its samples_per_s points
  (cd "$ws" && "$ferry" runs metrics "$1" --csv) | awk -F, '$1 == "samples_per_s" { print $4 }' | median
}
epochs=8
: >"$ws/headless"; : >"$ws/window"
for round in $(seq "$rounds"); do
  id=$(cd "$ws" && "$ferry" train --data data.csv --epochs $epochs --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["run"])')
  rate "$id" >>"$ws/headless"
  id=$(XDG_CONFIG_HOME="$ws/config" xvfb-run -a -s "-screen 0 1920x1080x24" "$build/tests/bench/ferry_guitrainbench" "$ws" "$ws/data.csv" $epochs 2>/dev/null | tail -n 1)
  rate "$id" >>"$ws/window"
done
h=$(median <"$ws/headless"); w=$(median <"$ws/window")
printf 'samples/s, 50000 rows x 20 features, MLP 128-64, %d epochs, median of %d runs each\n' $epochs "$rounds"
printf '  ferry train (headless)            %10.0f\n' "$h"
printf '  window open, chart live           %10.0f\n' "$w"
printf '  ratio                             %10.3f  (goal >= 0.95)\n' "$(awk -v a="$w" -v b="$h" 'BEGIN { print a / b }')"
