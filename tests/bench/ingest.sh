#!/usr/bin/env bash
# Ingestion benchmark, run by hand (not by CI):
#   tests/bench/ingest.sh [BUILD_DIR] [LINES] [RUNS]     (a RelWithDebInfo or Release build)
# Generates a training log (LINES lines, default 1,111,112: 2,000,001 metric points; key=value
# lines, JSON lines, noise) and stores its metric points, in one run on one machine:
#   attach  - issue 37's figure: a run that printed the log while nobody followed it (`ferry run`
#             of a script that copies it to stdout), collected after the fact by
#             `ferry runs attach ID`, the whole process timed (log read, parsed, stored, committed);
#   ferry   - the same in process: MetricParser + RunStore::appendMetrics in batches
#             (tests/bench/ingestbench.cpp), and below it the log parsed only and stored only;
#   python  - the reference: /usr/bin/python3, a regex per line + sqlite3.executemany, WAL, batched;
#   import  - the sqlite3 shell's .import of the same points as CSV (no log to parse).
# then `ferry runs metrics ID --csv > /dev/null` of the attached run, the whole process timed.
# Ferry stores series blocks (docs/metric-store.md); the two peers a row per point, in the schema of
# the previous release (tests/data/stores/runs-v2.sqlite). Each runs RUNS times (default 5),
# interleaved; the medians give points/s, the ratios to the peers and the goals (attach >= 3 M
# points/s and >= 5x .import; metrics --csv >= 5 M points/s), and the stores' bytes per point.
# The machine's load (uptime) is printed before and after: on a busy machine the times are not
# the figures (the CPU seconds of attach and metrics --csv, user + system, are printed beside them).
# BENCH_BASELINE=path/to/another/ferry times that build's attach and metrics --csv too, in the
# same runs, interleaved: a change measured against what it changed. BENCH_RT=1 runs every timed
# command (Ferry's and the peers') at real-time priority (chrt -f 10, root): on a machine busy with
# others' builds they get the cores as on a quiet machine (caches and memory stay shared).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
lines=${2:-1111112}
runs=${3:-5}
command -v sqlite3 >/dev/null || { echo "sqlite3 missing: packaging/install-deps.sh bench" >&2; exit 1; }
cmake --build "$build" --target ferry ferry_ingestbench >/dev/null
bench="$build/bin/ferry_ingestbench"
ferry="$PWD/$build/bin/ferry"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# `ferry run` writes nothing of the user's.
export XDG_CONFIG_HOME="$work/config" XDG_DATA_HOME="$work/data" XDG_CACHE_HOME="$work/cache"
log="$work/train.log"
/usr/bin/python3 tests/bench/make_training_log.py "$lines" "$log"
echo "log: $lines lines, $(( $(stat -c %s "$log") / 1024 / 1024 )) MiB; $runs runs each, medians"
echo "load before: $(uptime)${BENCH_RT:+; timed commands at real-time priority (BENCH_RT)}"

rt=()
if [ -n "${BENCH_RT:-}" ]; then
  rt=(chrt -f 10)
  "${rt[@]}" true || { echo "BENCH_RT: chrt -f needs root" >&2; exit 1; }
fi

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now_ns() { date +%s%N; }
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }'; }

# The finished run, made once: a workspace whose run printed the log and ended, never followed.
# Each timed attach works on a fresh copy of it. No `ferry runs` command may touch it before:
# each would collect the log first.
template="$work/template"
mkdir -p "$template"
printf 'import shutil, sys\nwith open(%s, "rb") as f:\n    shutil.copyfileobj(f, sys.stdout.buffer, 1 << 20)\n' \
  "'$log'" > "$template/print_log.py"
id=$(cd "$template" && "$ferry" run print_log.py 2>/dev/null)
rundir="$template/.ferry/runs/$id"
for _ in $(seq 1200); do # its exit record and archives: the run is over
  [ -e "$rundir/exit.json" ] && [ -e "$rundir/model.tar.gz" ] && [ -e "$rundir/output.tar.gz" ] && break
  sleep 0.1
done
[ -e "$rundir/output.tar.gz" ] || { echo "the run did not end: $rundir" >&2; exit 1; }
sleep 1
cmp -s "$log" "$rundir/log" || { echo "the run's log is not the generated log" >&2; exit 1; }

# timed NAME COMMAND...: runs it, its wall seconds to $work/NAME.s, its CPU seconds to $work/NAME.cpu.
timed() {
  local name=$1 t0 t1
  shift
  t0=$(now_ns)
  if [ -x /usr/bin/time ]; then
    "${rt[@]}" /usr/bin/time -f '%U %S' -o "$work/time" "$@" || return 1
    awk '{ printf "%.2f\n", $1 + $2 }' "$work/time" >> "$work/$name.cpu"
  else
    "${rt[@]}" "$@" || return 1
    echo 0 >> "$work/$name.cpu"
  fi
  t1=$(now_ns)
  seconds "$t0" "$t1" >> "$work/$name.s"
}
# attach_and_export PREFIX FERRY: `ferry runs attach` of a fresh copy of the finished run, then
# `ferry runs metrics --csv` of what it stored.
attach_and_export() {
  rm -rf "$work/ws" && cp -a "$template" "$work/ws"
  (cd "$work/ws" && timed "$1attach" "$2" runs attach "$id" > /dev/null 2> "$work/attach.err") ||
    { cat "$work/attach.err" >&2; exit 1; }
  timed "$1csv" "$2" runs metrics "$id" --csv --workspace "$work/ws" > /dev/null
}

for run in $(seq "$runs"); do
  # 1. and 2. Ferry: `ferry runs attach`, `ferry runs metrics --csv` (and the baseline's).
  [ -n "${BENCH_BASELINE:-}" ] && attach_and_export baseline- "$BENCH_BASELINE"
  attach_and_export "" "$ferry"
  store="$work/ws/.ferry/runs.sqlite"

  # 3. The same in process, flushed.
  "${rt[@]}" "$bench" "$log" "$work/ferry" 4096 pipeline > "$work/ferry.out"
  read -r _ ferry_points s < "$work/ferry.out"
  echo "$s" >> "$work/ferry.s"
  if [ "$run" = 1 ]; then
    attach_points=$(sqlite3 "$store" "SELECT sum(points) FROM series WHERE name NOT LIKE 'system/%'")
    system_points=$(sqlite3 "$store" "SELECT sum(points) FROM series WHERE name LIKE 'system/%'")
    sqlite3 "$store" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    attach_bytes=$(stat -c %s "$store")
    block_bytes=$(sqlite3 "$store" "SELECT sum(length(data)) FROM blocks")
    csv_lines=$("$ferry" runs metrics "$id" --csv --workspace "$work/ws" | wc -l)
    sqlite3 tests/data/stores/runs-v2.sqlite .schema | grep -v '^CREATE TABLE sqlite_' > "$work/schema.sql"
    # The points for .import, written untimed.
    "$bench" "$log" "$work" 4096 csv
  fi

  # 4. The Python reference, into the same schema.
  rm -f "$work"/python.sqlite*
  "${rt[@]}" /usr/bin/python3 tests/bench/ingest_reference.py "$log" "$work/python.sqlite" "$work/schema.sql" \
    > "$work/python.out"
  read -r _ python_points s < "$work/python.out"
  echo "$s" >> "$work/python.s"

  # 5. sqlite3 .import of the same points, into the same schema.
  rm -f "$work"/import.sqlite*
  sqlite3 "$work/import.sqlite" "PRAGMA journal_mode=WAL;" >/dev/null
  sqlite3 "$work/import.sqlite" < "$work/schema.sql"
  sqlite3 "$work/import.sqlite" "INSERT INTO runs(id, status) VALUES ('bench', 'running')"
  t0=$(now_ns)
  "${rt[@]}" sqlite3 "$work/import.sqlite" "PRAGMA synchronous=NORMAL;" ".import --csv $work/points.csv metrics"
  t1=$(now_ns)
  import_points=$(sqlite3 "$work/import.sqlite" "SELECT count(*) FROM metrics")
  sqlite3 "$work/import.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  import_bytes=$(stat -c %s "$work/import.sqlite")
  seconds "$t0" "$t1" >> "$work/import.s"
  echo "run $run: attach $(tail -1 "$work/attach.s") s (cpu $(tail -1 "$work/attach.cpu") s), metrics --csv" \
    "$(tail -1 "$work/csv.s") s (cpu $(tail -1 "$work/csv.cpu") s), in process $(tail -1 "$work/ferry.s") s," \
    "python $(tail -1 "$work/python.s") s, .import $(tail -1 "$work/import.s") s"
done

[ "$ferry_points" = "$python_points" ] && [ "$ferry_points" = "$import_points" ] && [ "$ferry_points" = "$attach_points" ] ||
  echo "note: point counts differ: attach $attach_points, ferry $ferry_points, python $python_points, import $import_points"
[ "$csv_lines" = $((attach_points + system_points + 1)) ] ||
  echo "note: metrics --csv wrote $csv_lines lines for $((attach_points + system_points)) points"
awk -v ap="$attach_points" -v as="$(median < "$work/attach.s")" -v cs="$(median < "$work/csv.s")" \
    -v cp="$((attach_points + system_points))" \
    -v fp="$ferry_points" -v fs="$(median < "$work/ferry.s")" \
    -v pp="$python_points" -v ps="$(median < "$work/python.s")" \
    -v ip="$import_points" -v is="$(median < "$work/import.s")" \
    -v ab="$attach_bytes" -v bb="$block_bytes" -v ib="$import_bytes" 'BEGIN {
  a = ap / as; c = cp / cs; f = fp / fs; p = pp / ps; i = ip / is
  printf "%-15s %10d points %8.3f s %12.0f points/s\n", "ferry attach", ap, as, a
  printf "%-15s %10d points %8.3f s %12.0f points/s\n", "ferry in process", fp, fs, f
  printf "%-15s %10d points %8.3f s %12.0f points/s\n", "python", pp, ps, p
  printf "%-15s %10d points %8.3f s %12.0f points/s\n", ".import", ip, is, i
  printf "%-15s %10d points %8.3f s %12.0f points/s\n", "metrics --csv", cp, cs, c
  printf "attach: %.2f M points/s (goal >= 3: %s); attach/.import %.2fx (goal >= 5: %s)\n", a / 1e6,
    (a >= 3e6 ? "met" : "missed"), a / i, (a / i >= 5 ? "met" : "missed")
  printf "metrics --csv: %.2f M points/s (goal >= 5: %s)\n", c / 1e6, (c >= 5e6 ? "met" : "missed")
  printf "in process: ferry/python %.2fx (goal >= 10), ferry/.import %.2fx (goal >= 5)\n", f / p, f / i
  printf "bytes/point: attach %.2f in the file, %.2f in the blocks; a row per point %.2f\n", ab / cp, bb / cp, ib / ip
}'
echo "cpu seconds (user + system), medians: attach $(median < "$work/attach.cpu"), metrics --csv $(median < "$work/csv.cpu")"
if [ -n "${BENCH_BASELINE:-}" ]; then
  awk -v ap="$attach_points" -v cp="$((attach_points + system_points))" -v is="$(median < "$work/import.s")" \
      -v ip="$import_points" -v bs="$(median < "$work/baseline-attach.s")" -v bc="$(median < "$work/baseline-csv.s")" \
      -v bac="$(median < "$work/baseline-attach.cpu")" -v bcc="$(median < "$work/baseline-csv.cpu")" 'BEGIN {
    printf "baseline (%s): attach %.3f s, %.2f M points/s, %.2fx .import (cpu %.2f s); metrics --csv %.3f s, %.2f M points/s (cpu %.2f s)\n",
      ENVIRON["BENCH_BASELINE"], bs, ap / bs / 1e6, (ap / bs) / (ip / is), bac, bc, cp / bc / 1e6, bcc
  }'
fi
# Where the in-process pipeline's time goes (the log parsed only, its points stored only).
"${rt[@]}" "$bench" "$log" "$work/ferry" 4096 all 2>&1 >/dev/null | sed 's/^ */ferry breakdown: /'
echo "load after: $(uptime)"
