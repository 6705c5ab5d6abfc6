#!/usr/bin/env bash
# Runs clang-tidy with the repository's .clang-tidy, and clazy (Qt's own checks) with
# tests/lint/clazy.checks, over Ferry's own .cpp files (core/, ui/, app/; not tests/, not what the
# build generates) listed in the given build folders' compile_commands.json, each file once (with
# the first folder that lists it), in parallel.
# core/trainer/ is left out: libtorch's headers do not parse under clang 14 in C++20
# (std::vector<c10::IValue> of an incomplete type), so its files are checked by gcc alone.
# Prints each finding once (a header's finding comes from every file that includes it), then one
# summary line; exits 1 on any finding or a file that does not compile, 2 when it cannot run.
#
# Usage: tests/lint/clang-tidy.sh [BUILD_DIR...]   (default: build; e.g. build build-nogui)
#   FERRY_JOBS      clang-tidy processes at once (default: nproc)
#   CLANG_TIDY      the clang-tidy program (default: clang-tidy, else clang-tidy-14)
#   CLAZY           the clazy program (default: clazy-standalone)
#   FERRY_TIDY_LOG  a file to write clang-tidy's whole output to (notes and suggested fixes)
#   FERRY_TIDY_ONLY a regular expression (Python's) on the path from the repository's top: only
#                   the files it matches are checked ('^ui/' for one phase of CI, '^core/store/')
#   FERRY_TIDY_EACH=1 each source of a unity batch alone (what FERRY_TIDY_ONLY does too)
# A build folder must be configured and its generated headers made: a built tree has them; else
# build its *_autogen targets and the protobuf header (tensorboard_event.pb.h). In a unity build's
# folder (FERRY_UNITY) a batch (Unity/unity_N_cxx.cxx) is checked as one translation unit, as it
# compiles, its sources' findings shown as a header's are: a sixth of the time of checking each
# source alone (core/store: 7 s against 47 s of CPU). Needs python3.
set -uo pipefail

root=$(cd "$(dirname "$0")/../.." && pwd -P)
(($# > 0)) || set -- "$root/build"
jobs=${FERRY_JOBS:-$(nproc)}

tidy=${CLANG_TIDY:-}
if [[ -z $tidy ]]; then
  for candidate in clang-tidy clang-tidy-14; do
    if command -v "$candidate" >/dev/null; then
      tidy=$candidate
      break
    fi
  done
fi
if [[ -z $tidy ]] || ! command -v "$tidy" >/dev/null; then
  echo "clang-tidy.sh: clang-tidy is not installed (Debian: apt-get install clang-tidy)" >&2
  exit 2
fi

clazy=${CLAZY:-clazy-standalone}
if ! command -v "$clazy" >/dev/null; then
  echo "clang-tidy.sh: clazy is not installed (Debian: apt-get install clazy)" >&2
  exit 2
fi
clazy_checks=$(grep -v '^#' "$root/tests/lint/clazy.checks" | tr -d ' \n')

work=$(mktemp -d "${TMPDIR:-/tmp}/ferry-tidy.XXXXXX")
trap 'rm -rf "$work"' EXIT

dirs=()
for given in "$@"; do
  if ! dir=$(cd "$given" 2>/dev/null && pwd -P) || [[ ! -f $dir/compile_commands.json ]]; then
    echo "clang-tidy.sh: $given has no compile_commands.json (configure it with CMake first)" >&2
    exit 2
  fi
  dirs+=("$dir")
done

# The files to check, and one compile database of their commands: the first build folder that
# compiles a file gives its command. A unity build's batch (Unity/unity_N_cxx.cxx, FERRY_UNITY)
# stands for the sources it includes, each checked alone with the batch's command.
mkdir "$work/db" "$work/logs"
if ! python3 - "$root" "$work/db" "${FERRY_TIDY_ONLY:-}" "${dirs[@]}" >"$work/files" \
  <<'EOF_PY'; then
import json, os, re, shlex, shutil, sys

root, db, only, *dirs = sys.argv[1:]
picked = {}
each = os.environ.get("FERRY_TIDY_EACH") == "1" or bool(only)
ours = lambda rel: re.match(r"(core|ui|app)/.*\.cpp$", rel) and not rel.startswith("core/trainer/")
for d in dirs:
    with open(os.path.join(d, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    for e in entries:
        given = os.path.join(e["directory"], e["file"])
        sources = [given]
        if re.search(r"/Unity/unity_[^/]*\.cxx$", given):
            with open(given, encoding="utf-8") as batch:
                sources = re.findall(r'^#include "([^"]+)"', batch.read(), re.M)
            if not each:
                # The batch as it compiles, when it holds one of our sources not checked yet.
                fresh = [s for s in sources if ours(os.path.relpath(s, root)) and s not in picked]
                if fresh:
                    picked.update((s, None) for s in fresh)
                    picked[given] = e
                continue
        for source in sources:
            rel = os.path.relpath(source, root)
            if not ours(rel):
                continue
            if (only and not re.search(only, rel)) or source in picked:
                continue
            entry = dict(e, file=source)
            if "arguments" in entry:
                entry["arguments"] = [source if a == e["file"] else a for a in entry["arguments"]]
            else:
                words = shlex.split(e["command"])
                entry["command"] = shlex.join(source if a == e["file"] else a for a in words)
            picked[source] = entry
# A precompiled header is gcc's (.gch beside cmake_pch.hxx), which clang cannot read: the header
# is included as text from a copy with no .gch beside it.
def without_gch(entry):
    words = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = []
    for w in words:
        if w.endswith("/cmake_pch.hxx") and os.path.exists(w + ".gch"):
            copy = os.path.join(db, "pch", w.strip("/").replace("/", "_"))
            if not os.path.exists(copy):  # once per header, however many batches use it
                os.makedirs(os.path.dirname(copy), exist_ok=True)
                shutil.copyfile(w, copy)
            w = copy
        out.append(w)
    entry = dict(entry)
    if "arguments" in entry:
        entry["arguments"] = out
    else:
        entry["command"] = shlex.join(out)
    return entry
units = {k: without_gch(v) for k, v in picked.items() if v is not None}
with open(os.path.join(db, "compile_commands.json"), "w", encoding="utf-8") as f:
    json.dump(list(units.values()), f, indent=1)
print("\n".join(sorted(units)))
EOF_PY
  echo "clang-tidy.sh: cannot read the compile_commands.json of ${dirs[*]} (python3 is needed)" >&2
  exit 2
fi
count=$(grep -c . "$work/files")
if ((count == 0)); then
  echo "clang-tidy.sh: none of Ferry's sources is in the compile_commands.json of ${dirs[*]}" >&2
  exit 2
fi

# One clang-tidy per file, each into its own log, so that parallel runs do not interleave.
export FERRY_TIDY_WORK=$work FERRY_TIDY_PROGRAM=$tidy FERRY_TIDY_CONFIG=$root/.clang-tidy
# Findings in Ferry's own files only; .cpp too, for a unity batch's sources are included files.
export FERRY_TIDY_FILTER='/(core|ui|app)/([a-z0-9_]+/)*[a-z0-9_]+\.(h|cpp)$'
export FERRY_CLAZY_PROGRAM=$clazy FERRY_CLAZY_CHECKS=$clazy_checks
check_one() {
  local log rc=0
  log="$FERRY_TIDY_WORK/logs/$(printf '%s' "$1" | tr '/' '_')"
  if [[ $1 == */Unity/unity_*.cxx ]]; then
    # A batch: its sources are included files, so the header filter names .cpp too. Its own
    # lines (the #include of each .cpp, bugprone-suspicious-include) are left out below; a
    # compile error is a finding, so only a crash (a status other than 1) is a failure here.
    "$FERRY_TIDY_PROGRAM" -p "$FERRY_TIDY_WORK/db" --config-file="$FERRY_TIDY_CONFIG" --quiet \
      --header-filter="$FERRY_TIDY_FILTER" "$1" >"$log" 2>&1 || rc=$?
    ((rc <= 1)) || echo "$1" >"$log.failed"
  else
    "$FERRY_TIDY_PROGRAM" -p "$FERRY_TIDY_WORK/db" --config-file="$FERRY_TIDY_CONFIG" --quiet "$1" \
      >"$log" 2>&1 || echo "$1" >"$log.failed"
  fi
  # clazy's findings are warnings (its status stays 0): counted from the log like clang-tidy's.
  "$FERRY_CLAZY_PROGRAM" -p "$FERRY_TIDY_WORK/db" -checks="$FERRY_CLAZY_CHECKS" \
    --header-filter="$FERRY_TIDY_FILTER" "$1" >>"$log" 2>&1 ||
    echo "$1" >"$log.failed"
}
export -f check_one
started=$(date +%s)
# shellcheck disable=SC2016 # $1 is the inner bash's
tr '\n' '\0' <"$work/files" | xargs -0 -n 1 -P "$jobs" bash -c 'check_one "$1"' _
seconds=$(($(date +%s) - started))

cat "$work"/logs/* >"$work/all"
[[ -z ${FERRY_TIDY_LOG:-} ]] || cp "$work/all" "$FERRY_TIDY_LOG"
# The findings, each once, with paths through the build's include views (build/core/views/...)
# written as the source paths they link to.
# A compile error with no place (an unreadable precompiled header) counts as well.
grep -E '^([^ ].*:[0-9]+:[0-9]+: )?(warning|error): ' "$work/all" | grep -v '^[^:]*/Unity/unity_[^/:]*\.cxx:' |
  sort -u |
  while IFS= read -r line; do
    path=${line%%:*}
    real=$(realpath -e "$path" 2>/dev/null || echo "$path")
    printf '%s\n' "${real#"$root/"}${line#"$path"}"
  done | sort -u >"$work/findings"
cat "$work/findings"
findings=$(wc -l <"$work/findings")
failed=$(find "$work/logs" -name '*.failed' | wc -l)
files_with=$(cut -d: -f1 "$work/findings" | sort -u | wc -l)
echo "clang-tidy and clazy: $findings finding(s) in $files_with file(s);" \
  "$count files checked in $seconds s with $jobs jobs"
if ((findings > 0 || failed > 0)); then
  if ((findings == 0)); then
    echo "clang-tidy: $failed file(s) failed without a finding (FERRY_TIDY_LOG=FILE keeps why)" >&2
  fi
  exit 1
fi
