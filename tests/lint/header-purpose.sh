#!/usr/bin/env bash
# Every header of Ferry's starts with a `//` comment saying what it is for (CONTRIBUTING.md):
# one sentence, at most two lines, above `#pragma once`. Lists each .h under core/, ui/,
# app/ and tests/support/ whose first line is not a `//` comment; exits 1 if there is any.
# Usage: tests/lint/header-purpose.sh [REPOSITORY_ROOT]   (default: this script's repository)
set -euo pipefail

root=${1:-$(dirname "$0")/../..}
cd "$root"
missing=0
while IFS= read -r -d '' header; do
  first=
  IFS= read -r first <"$header" || true
  if [[ $first != //* ]]; then
    echo "$header: the first line is not a comment saying what the header is for"
    missing=$((missing + 1))
  fi
done < <(find core ui app tests/support -name '*.h' -print0 | sort -z)
if ((missing > 0)); then
  echo "header-purpose: $missing header(s) without their sentence (CONTRIBUTING.md)"
  exit 1
fi
