#!/usr/bin/env bash
# Runs clang-tidy with the repository's .clang-tidy over Ferry's own .cpp files (core/, ui/,
# app/; not tests/, not what the build generates) listed in the given build folders'
# compile_commands.json, each file once (with the first folder that lists it), in parallel.
# core/trainer/ is left out: libtorch's headers do not parse under clang 14 in C++20
# (std::vector<c10::IValue> of an incomplete type), so its files are checked by gcc alone.
# Prints each finding once (a header's finding comes from every file that includes it), then one
# summary line; exits 1 on any finding or a file that does not compile, 2 when it cannot run.
#
# Usage: tests/lint/clang-tidy.sh [BUILD_DIR...]   (default: build; e.g. build build-nogui)
#   FERRY_JOBS      clang-tidy processes at once (default: nproc)
#   CLANG_TIDY      the clang-tidy program (default: clang-tidy, else clang-tidy-14)
#   FERRY_TIDY_LOG  a file to write clang-tidy's whole output to (notes and suggested fixes)
#   FERRY_TIDY_ONLY a regular expression (Python's) on the path from the repository's top: only
#                   the files it matches are checked ('^ui/' for one phase of CI, '^core/store/')
# A build folder must be configured and its generated headers made: a built tree has them; else
# build its *_autogen targets and the protobuf header (tensorboard_event.pb.h). A unity build's
# folder (FERRY_UNITY) does too: each source of a batch is checked alone. Needs python3.
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
import json, os, re, shlex, sys

root, db, only, *dirs = sys.argv[1:]
picked = {}
for d in dirs:
    with open(os.path.join(d, "compile_commands.json"), encoding="utf-8") as f:
        entries = json.load(f)
    for e in entries:
        given = os.path.join(e["directory"], e["file"])
        sources = [given]
        if re.search(r"/Unity/unity_[^/]*\.cxx$", given):
            with open(given, encoding="utf-8") as batch:
                sources = re.findall(r'^#include "([^"]+)"', batch.read(), re.M)
        for source in sources:
            rel = os.path.relpath(source, root)
            if not re.match(r"(core|ui|app)/.*\.cpp$", rel) or rel.startswith("core/trainer/"):
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
with open(os.path.join(db, "compile_commands.json"), "w", encoding="utf-8") as f:
    json.dump(list(picked.values()), f, indent=1)
print("\n".join(sorted(picked)))
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
check_one() {
  local log
  log="$FERRY_TIDY_WORK/logs/$(printf '%s' "$1" | tr '/' '_')"
  "$FERRY_TIDY_PROGRAM" -p "$FERRY_TIDY_WORK/db" --config-file="$FERRY_TIDY_CONFIG" --quiet "$1" \
    >"$log" 2>&1 || echo "$1" >"$log.failed"
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
grep -E '^[^ ].*:[0-9]+:[0-9]+: (warning|error): ' "$work/all" | sort -u |
  while IFS= read -r line; do
    path=${line%%:*}
    real=$(realpath -e "$path" 2>/dev/null || echo "$path")
    printf '%s\n' "${real#"$root/"}${line#"$path"}"
  done | sort -u >"$work/findings"
cat "$work/findings"
findings=$(wc -l <"$work/findings")
failed=$(find "$work/logs" -name '*.failed' | wc -l)
files_with=$(cut -d: -f1 "$work/findings" | sort -u | wc -l)
echo "clang-tidy: $findings finding(s) in $files_with file(s);" \
  "$count files checked in $seconds s with $jobs jobs"
if ((findings > 0 || failed > 0)); then
  if ((findings == 0)); then
    echo "clang-tidy: $failed file(s) failed without a finding (FERRY_TIDY_LOG=FILE keeps why)" >&2
  fi
  exit 1
fi
