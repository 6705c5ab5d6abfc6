#!/usr/bin/env bash
# The notebook view with a large notebook and a flooding cell, run by hand (not by CI):
#   tests/bench/notebookview.sh [BUILD_DIR] [ROUNDS] [LINES]   (a RelWithDebInfo or Release build)
# The notebook: make_notebook.py's 300 cells (100 markdown, 100 code cells with a 640x480
# matplotlib figure each, 100 with a training log, a DataFrame's HTML or a result), about 20 MB.
# Each figure is the median of ROUNDS runs (default 3), each a fresh process, Ferry and its peer
# alternated (tests/bench/notebookviewbench.cpp says what each measures):
#   open     NotebookEditor::open to the end of the window's first paint, resident memory then and
#            its peak; peer: the same notebook as `jupyter nbconvert --to html --template basic`
#            writes it, in one QTextBrowser (setHtml to the end of its first paint)
#   scroll   top to bottom, 60 px a frame (a wheel notch): the frame's time, p50 / p99 / max
#   stream   a new last cell printing LINES (default 1,000,000) lines in a real ipykernel
#            (Debian's, under Ferry's keeper), sent as ipykernel batches them (every 0.2 s) and
#            flushed every 100 lines (10,000 messages), the notebook autosaving every second
#            from the first output so that an autosave falls among them: the event loop's longest
#            stall, wall and the GUI thread's own CPU time in it (the machine's other load is not
#            the view's); then, without autosaves, how far the heap in use and the resident
#            memory rose with LINES / 10 and LINES lines (flat: the same); peer: the same cell's
#            stream appended to a QPlainTextEdit capped at 10,000 lines every 100 ms
#            (qtconsole's way), no notebook
# Figures and what they mean: docs/notebook.md (Benchmark).
# Goals (issue 36): first paint <= 1 s and <= 300 MB; scroll p99 <= 16 ms; no frame > 50 ms while
# streaming, memory flat. Under Xvfb when it is installed, else Qt's offscreen platform.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-3}
lines=${3:-1000000}
cmake --build "$build" --target notebookviewbench ferry >/dev/null
bench="$PWD/$build/tests/bench/notebookviewbench"
ferry="$PWD/$build/bin/ferry"
work=$(mktemp -d)
cleanup() {
  # A kernel left by a run that failed: stopped, its processes with it.
  for kernel in "$work"/ws/.ferry/kernels/*/; do
    [ -d "$kernel" ] && "$ferry" kernel remove "$(basename "$kernel")" --workspace "$work/ws" >/dev/null 2>&1 || true
  done
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/ws/.ferry/kernels"
printf 'name: debian\nversion: 1\npython:\n  interpreter: /usr/bin/python3\n  user_managed: true\n' >"$work/env.yml"
export PYDEVD_DISABLE_FILE_VALIDATION=1 XDG_CONFIG_HOME="$work/config"
/usr/bin/python3 tests/bench/make_notebook.py "$work/nb.ipynb"
run() {
  if command -v xvfb-run >/dev/null; then
    xvfb-run -a -s "-screen 0 1920x1080x24 -nolisten tcp" "$bench" "$@" 2>/dev/null
  else
    QT_QPA_PLATFORM=offscreen "$bench" "$@" 2>/dev/null
  fi
}
command -v xvfb-run >/dev/null && platform=Xvfb || platform="the offscreen platform"
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
# The median over the runs of one kind (files $work/KIND.N) of a key.
m() { for f in "$work/$1".*; do awk -v k="$2" '$1 == k { print $2 }' "$f"; done | median; }

for round in $(seq "$rounds"); do
  run open "$work/nb.ipynb" >"$work/open.$round"
  run open-peer "$work/nb.ipynb.html" >"$work/openpeer.$round"
  for flush in 0 100; do # an autosave every second from the first output: one while the cell prints
    run stream "$work/nb.ipynb" "$work/env.yml" "$work/ws/.ferry/kernels" "$lines" $flush 1000 >"$work/stream$flush.$round"
    run stream-peer "$work/env.yml" "$work/ws/.ferry/kernels" "$lines" $flush >"$work/streampeer$flush.$round"
  done
  # Memory, without the autosave's passing copy of the notebook: LINES / 10 and LINES.
  run stream "$work/nb.ipynb" "$work/env.yml" "$work/ws/.ferry/kernels" $((lines / 10)) 100 0 >"$work/memsmall.$round"
  run stream "$work/nb.ipynb" "$work/env.yml" "$work/ws/.ferry/kernels" "$lines" 100 0 >"$work/memlarge.$round"
  rm -f "$work/.nb.ipynb.ferry-autosave"
done

printf 'a %.1f MB notebook of 300 cells, 100 of them a 640x480 figure; %s, %d CPUs; median of %d runs\n' \
  "$(awk -v b="$(stat -c %s "$work/nb.ipynb")" 'BEGIN { print b / 1e6 }')" "$platform" "$(nproc)" "$rounds"
printf '%-46s %18s %18s %12s\n' "" "Ferry" "peer" "goal"
printf '%-46s %18.0f %18.0f %12s\n' "open to the end of the first paint, ms" "$(m open first_paint_ms)" "$(m openpeer first_paint_ms)" "<= 1000"
printf '%-46s %18.0f %18.0f %12s\n' "resident memory then, MiB" "$(m open rss_first_paint_mib)" "$(m openpeer rss_first_paint_mib)" "<= 300"
printf '%-46s %18.0f %18.0f\n' "peak memory, open and scroll, MiB" "$(m open peak_rss_mib)" "$(m openpeer peak_rss_mib)"
printf '%-46s %18s %18s %12s\n' "scroll end to end, frame ms p50 / p99 / max" \
  "$(printf '%.1f / %.1f / %.1f' "$(m open scroll_p50)" "$(m open scroll_p99)" "$(m open scroll_max)")" \
  "$(printf '%.1f / %.1f / %.1f' "$(m openpeer scroll_p50)" "$(m openpeer scroll_p99)" "$(m openpeer scroll_max)")" "p99 <= 16"
for flush in 0 100; do
  if [ "$flush" = 0 ]; then what="as ipykernel batches them"; else what="flushed every 100 lines"; fi
  printf '%s lines %s (%.0f messages), %.1f s, an autosave among them:\n' "$lines" "$what" \
    "$(m stream$flush stream_messages)" "$(m stream$flush stream_seconds)"
  printf '%-46s %18s %18s %12s\n' "  longest stall, ms: wall (GUI thread CPU)" \
    "$(printf '%.0f (%.0f)' "$(m stream$flush stall_max)" "$(m stream$flush stall_cpu_max)")" \
    "$(printf '%.0f (%.0f)' "$(m streampeer$flush stall_max)" "$(m streampeer$flush stall_cpu_max)")" "<= 50"
  printf '%-46s %18s %18s\n' "  stall p99, ms: wall (GUI thread CPU)" \
    "$(printf '%.1f (%.1f)' "$(m stream$flush stall_p99)" "$(m stream$flush stall_cpu_p99)")" \
    "$(printf '%.1f (%.1f)' "$(m streampeer$flush stall_p99)" "$(m streampeer$flush stall_cpu_p99)")"
  printf '%-46s %18s %18s\n' "  last line shown, cell ended ok, autosaved (runs)" \
    "$(cat "$work"/stream$flush.* | awk '$1 == "last_line_shown" { s += $2 } $1 == "ok" { o += $2 } $1 == "autosaved_while_printing" { a += $2 } END { print s "/" o "/" a }')" \
    "$(cat "$work"/streampeer$flush.* | awk '$1 == "last_line_shown" { s += $2 } $1 == "ok" { o += $2 } END { print s "/" o }')"
done
# How far memory rose while a cell streamed, MiB: the median over the runs of the end (or the
# peak) less the start, of the heap in use or the resident memory.
rise() { for f in "$work/$1".*; do awk -v a="$2_stream_start_mib" -v b="$2_stream_$3_mib" '$1 == a { s = $2 } $1 == b { p = $2 } END { print p - s }' "$f"; done | median; }
printf 'memory while a cell prints, flushed every 100 lines, no autosave: rise in MiB, heap in use / resident\n'
for kind in memsmall memlarge; do
  [ "$kind" = memsmall ] && n=$((lines / 10)) || n=$lines
  printf '%-46s %18s %18s %12s\n' "  $n lines: at the end; at the peak" \
    "$(printf '%.1f / %.1f; %.1f / %.1f' "$(rise $kind heap q4)" "$(rise $kind rss q4)" "$(rise $kind heap peak)" "$(rise $kind rss peak)")" \
    "$([ "$kind" = memlarge ] && printf -- '- / %.0f; - / %.0f' "$(rise streampeer100 rss q4)" "$(rise streampeer100 rss peak)")" "flat"
done
