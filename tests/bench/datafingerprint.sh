#!/usr/bin/env bash
# Data fingerprint benchmark, run by hand (not by CI):
#   tests/bench/datafingerprint.sh [BUILD_DIR] [DATA_DIR]
# The time a run's launch spends fingerprinting a data channel (snapshot/datafingerprint.h, the
# run spec's data[].elapsedMs) on a folder of many files, next to reading every byte of it
# (`cat`) and hashing every byte (`sha256sum`) in the same run, page cache warm for all three.
# Without DATA_DIR it writes one: 9,000 files of 20-60 KB and 1,000 of 2 MB in 100 folders
# (about 2.4 GB).
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
data=${2:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
if [ -z "$data" ]; then
  data="$work/data"
  python3 - "$data" <<'PY'
import os, sys
root = sys.argv[1]
block = os.urandom(4 << 20)
n = 0
for d in range(100):
    os.makedirs(f"{root}/{d:03}", exist_ok=True)
    for f in range(100):
        size = (2 << 20) if f % 10 == 0 else 20_000 + (n * 7919) % 40_000
        off = (n * 104729) % (len(block) - size)
        with open(f"{root}/{d:03}/{f:04}.bin", "wb") as fh:
            fh.write(block[off:off + size])
        n += 1
PY
fi
echo "data: $(find "$data" -type f | wc -l) files, $(du -sh "$data" | cut -f1)"
find "$data" -type f -exec cat {} + >/dev/null # warm
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
echo "cat of every byte:       $(ms bash -c "find '$data' -type f -exec cat {} + ") ms"
echo "sha256sum of every byte: $(ms bash -c "find '$data' -type f -exec sha256sum {} + ") ms"
mkdir -p "$work/ws"
echo 'print("ok")' > "$work/ws/train.py"
for i in 1 2 3; do
  (cd "$work/ws" && "$build/bin/ferry" run train.py --data "training=$data" --follow >/dev/null)
done
for id in $(cd "$work/ws" && "$build/bin/ferry" runs list --json | python3 -c 'import json,sys; print(" ".join(r["id"] for r in json.load(sys.stdin)))'); do
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1]))["data"][0]; print("fingerprint:", d["elapsedMs"], "ms,", d["files"], "files,", d["bytes"], "bytes")' "$work/ws/.ferry/runs/$id/spec.json"
done
