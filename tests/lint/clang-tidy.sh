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
#   FERRY_TIDY_ONLY an extended regex on the path from the repository's top: only the files it
#                   matches are checked (e.g. '^ui/' for one phase of CI, '^core/store/' by hand)
# A build folder must be configured and its generated headers made: a built tree has them; else
# build its *_autogen targets and core/proto/run/tensorboard_event.pb.h.
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

# "FILE<TAB>BUILD_DIR" for each of Ferry's own sources; the first build folder listing it wins.
for dir in "${dirs[@]}"; do
  # CMake writes one `"file": "PATH"` line per entry.
  sed -n 's/^ *"file": "\(.*\)",\{0,1\}$/\1/p' "$dir/compile_commands.json" |
    grep -E "^$root/(core|ui|app)/.*\.cpp$" | sed "s|^$root/||" | grep -v '^core/trainer/' |
    grep -E "${FERRY_TIDY_ONLY:-.}" |
    sed "s|^|$root/|; s|\$|\t$dir|"
done | sort -t $'\t' -k1,1 -s -u >"$work/files"
count=$(wc -l <"$work/files")
if ((count == 0)); then
  echo "clang-tidy.sh: none of Ferry's sources is in the compile_commands.json of ${dirs[*]}" >&2
  exit 2
fi

# One clang-tidy per file, each into its own log, so that parallel runs do not interleave.
export FERRY_TIDY_WORK=$work FERRY_TIDY_PROGRAM=$tidy FERRY_TIDY_CONFIG=$root/.clang-tidy
check_one() {
  local log
  log="$FERRY_TIDY_WORK/logs/$(printf '%s' "$1" | tr '/' '_')"
  "$FERRY_TIDY_PROGRAM" -p "$2" --config-file="$FERRY_TIDY_CONFIG" --quiet "$1" >"$log" 2>&1 ||
    echo "$1" >"$log.failed"
}
export -f check_one
mkdir "$work/logs"
started=$(date +%s)
# shellcheck disable=SC2016 # $1 and $2 are the inner bash's
tr '\t' '\n' <"$work/files" | tr '\n' '\0' | xargs -0 -n 2 -P "$jobs" bash -c 'check_one "$1" "$2"' _
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
echo "clang-tidy: $findings finding(s) in $files_with file(s); $count files checked in ${seconds} s with $jobs jobs"
if ((findings > 0 || failed > 0)); then
  if ((findings == 0)); then
    echo "clang-tidy: $failed file(s) failed without a finding; FERRY_TIDY_LOG=FILE keeps the output" >&2
  fi
  exit 1
fi
