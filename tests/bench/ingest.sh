#!/usr/bin/env bash
# Ingestion benchmark, run by hand (not by CI):
#   tests/bench/ingest.sh [BUILD_DIR] [LINES] [RUNS]     (a RelWithDebInfo or Release build)
# Generates a training log (LINES lines, default 1 M: key=value lines, JSON lines, noise) and
# stores its metric points three ways, in one run on one machine:
#   ferry   - MetricParser + RunStore::appendMetrics in batches (tests/bench/ingestbench.cpp);
#   python  - the reference: /usr/bin/python3, a regex per line + sqlite3.executemany, WAL, batched;
#   import  - the sqlite3 shell's .import of the same points as CSV (no log to parse).
# Ferry stores series blocks (docs/metric-store.md); the two peers a row per point, in the schema of
# the previous release (tests/data/stores/runs-v2.sqlite). Each runs RUNS times (default 3),
# interleaved; the medians give points/s and the ratios Ferry/Python (goal >= 10) and
# Ferry/.import (goal >= 5), and the files' bytes per point.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
lines=${2:-1000000}
runs=${3:-3}
command -v sqlite3 >/dev/null || { echo "sqlite3 missing: packaging/install-deps.sh bench" >&2; exit 1; }
cmake --build "$build" --target ferry_ingestbench >/dev/null
bench="$build/bin/ferry_ingestbench"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
log="$work/train.log"
/usr/bin/python3 tests/bench/make_training_log.py "$lines" "$log"
echo "log: $lines lines, $(( $(stat -c %s "$log") / 1024 / 1024 )) MiB; $runs runs each, medians"

median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
now_ns() { date +%s%N; }

for run in $(seq "$runs"); do
  # 1. Ferry: read + parse + store, flushed.
  "$bench" "$log" "$work/ferry" 4096 pipeline > "$work/ferry.out"
  read -r _ ferry_points s < "$work/ferry.out"
  echo "$s" >> "$work/ferry.s"
  db="$work/ferry/pipeline/.ferry/runs.sqlite"
  if [ "$run" = 1 ]; then
    sqlite3 "$db" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
    ferry_bytes=$(stat -c %s "$db")
    sqlite3 tests/data/stores/runs-v2.sqlite .schema | grep -v '^CREATE TABLE sqlite_' > "$work/schema.sql"
    # The points for .import, written untimed.
    "$bench" "$log" "$work" 4096 csv
  fi

  # 2. The Python reference, into the same schema.
  rm -f "$work"/python.sqlite*
  /usr/bin/python3 tests/bench/ingest_reference.py "$log" "$work/python.sqlite" "$work/schema.sql" > "$work/python.out"
  read -r _ python_points s < "$work/python.out"
  echo "$s" >> "$work/python.s"

  # 3. sqlite3 .import of the same points, into the same schema.
  rm -f "$work"/import.sqlite*
  sqlite3 "$work/import.sqlite" "PRAGMA journal_mode=WAL;" >/dev/null
  sqlite3 "$work/import.sqlite" < "$work/schema.sql"
  sqlite3 "$work/import.sqlite" "INSERT INTO runs(id, status) VALUES ('bench', 'running')"
  t0=$(now_ns)
  sqlite3 "$work/import.sqlite" "PRAGMA synchronous=NORMAL;" ".import --csv $work/points.csv metrics"
  t1=$(now_ns)
  import_points=$(sqlite3 "$work/import.sqlite" "SELECT count(*) FROM metrics")
  sqlite3 "$work/import.sqlite" "PRAGMA wal_checkpoint(TRUNCATE)" >/dev/null
  import_bytes=$(stat -c %s "$work/import.sqlite")
  awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f\n", (b - a) / 1e9 }' >> "$work/import.s"
done

[ "$ferry_points" = "$python_points" ] && [ "$ferry_points" = "$import_points" ] ||
  echo "note: point counts differ: ferry $ferry_points, python $python_points, import $import_points"
awk -v fp="$ferry_points" -v fs="$(median < "$work/ferry.s")" \
    -v pp="$python_points" -v ps="$(median < "$work/python.s")" \
    -v ip="$import_points" -v is="$(median < "$work/import.s")" \
    -v fb="$ferry_bytes" -v ib="$import_bytes" 'BEGIN {
  f = fp / fs; p = pp / ps; i = ip / is
  printf "%-8s %10d points %8.3f s %12.0f points/s\n", "ferry", fp, fs, f
  printf "%-8s %10d points %8.3f s %12.0f points/s\n", "python", pp, ps, p
  printf "%-8s %10d points %8.3f s %12.0f points/s\n", ".import", ip, is, i
  printf "ferry/python  %.2fx (goal >= 10)\n", f / p
  printf "ferry/.import %.2fx (goal >= 5)\n", f / i
  printf "bytes/point: ferry %.2f, a row per point %.2f\n", fb / fp, ib / ip
}'
# Where Ferry's time goes (the log parsed only, its points stored only).
"$bench" "$log" "$work/ferry" 4096 all 2>&1 >/dev/null | sed 's/^ */ferry breakdown: /'
