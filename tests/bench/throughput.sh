# Sourced by the parsing benchmarks (logparse.sh, eventfile.sh): reads FILE with Ferry's reader
# and with Python's, RUNS times each, alternating; each command prints "LABEL POINTS SECONDS".
# Prints the medians in MB/s (MB = 10^6 bytes) and the ratio Ferry/Python (goal >= 10).
#   compare_throughput FILE RUNS FERRY_COMMAND... -- PYTHON_COMMAND...   (FILE is appended to each)
compare_throughput() {
  local file=$1 runs=$2
  shift 2
  local ferry=() python=()
  while [ "$1" != -- ]; do ferry+=("$1"); shift; done
  shift
  python=("$@")
  local work bytes
  work=$(mktemp -d)
  bytes=$(stat -c %s "$file")
  cat "$file" > /dev/null # in the page cache for both
  local run ferry_points python_points s
  for run in $(seq "$runs"); do
    "${ferry[@]}" "$file" > "$work/ferry.out"
    read -r _ ferry_points s < "$work/ferry.out"
    echo "$s" >> "$work/ferry.s"
    "${python[@]}" "$file" > "$work/python.out"
    read -r _ python_points s < "$work/python.out"
    echo "$s" >> "$work/python.s"
  done
  if [ "$ferry_points" != "$python_points" ]; then
    echo "points differ: ferry $ferry_points, python $python_points" >&2
    rm -rf "$work"
    return 1
  fi
  median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
  local ferry_s python_s
  ferry_s=$(median < "$work/ferry.s")
  python_s=$(median < "$work/python.s")
  rm -rf "$work"
  awk -v b="$bytes" -v f="$ferry_s" -v p="$python_s" -v n="$ferry_points" -v r="$runs" 'BEGIN {
    printf "%.1f MB, %d runs each, alternating, medians; points: %d each\n", b / 1e6, r, n
    printf "ferry   %7.3f s  %7.1f MB/s\n", f, b / 1e6 / f
    printf "python  %7.3f s  %7.1f MB/s\n", p, b / 1e6 / p
    printf "ratio ferry/python: %.1fx (goal >= 10)\n", p / f
  }'
}
