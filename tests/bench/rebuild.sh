#!/usr/bin/env bash
# Rebuild benchmark, run by hand (not by CI): after adding one pip dependency, how long does
# the image take to rebuild with Ferry's layered Dockerfile, next to the naive Dockerfile many
# projects start with ("COPY . then install everything"), for the same spec, in one run?
#   tests/bench/rebuild.sh [BUILD_DIR] [DATA_MB]
# The spec is a small but real one: the Debian scientific stack as system packages (fetched from
# the Debian mirror, the one network these machines have) and pure-Python wheels from a local
# wheelhouse. Also times a relaunch with an unchanged environment (image present: no build).
# Uses the project's private Docker engine (tests/services/docker.sh) and its base image.
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
data_mb=${2:-200}
ferry="$PWD/$build/bin/ferry"
[ -x "$ferry" ] || { echo "no $ferry: build first (see README)" >&2; exit 1; }

DOCKER_HOST=$(tests/services/docker.sh start bench)
export DOCKER_HOST DOCKER_BUILDKIT=0
tests/services/docker.sh base-image >/dev/null
trap 'docker rmi -f ferry-bench:layered-a ferry-bench:layered-b ferry-bench:naive-a ferry-bench:naive-b >/dev/null 2>&1 || true; tests/services/docker.sh stop bench >/dev/null || true; rm -rf "$ws"' EXIT

ws=$(mktemp -d)
mkdir -p "$ws/wheels" "$ws/data" "$ws/environments"
# Tiny pure-Python wheels: a wheel is a zip with the package and its dist-info.
/usr/bin/python3 - "$ws/wheels" <<'PY'
import base64, hashlib, sys, zipfile, os
out = sys.argv[1]
for name in ("pkg_a", "pkg_b", "pkg_c"):
    files = {f"{name}/__init__.py": f"VERSION = '1.0'\n",
             f"{name}-1.0.dist-info/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n",
             f"{name}-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: bench\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(text)}")
    record.append(f"{name}-1.0.dist-info/RECORD,,")
    files[f"{name}-1.0.dist-info/RECORD"] = "\n".join(record) + "\n"
    with zipfile.ZipFile(os.path.join(out, f"{name}-1.0-py3-none-any.whl"), "w") as z:
        for path, text in files.items():
            z.writestr(path, text)
PY
# A project folder holds data too; a naive `COPY .` sends it to the engine and into the image.
head -c "$((data_mb * 1024 * 1024))" /dev/urandom > "$ws/data/train.bin"
echo 'print("training")' > "$ws/train.py"

spec() { # packages...
  printf 'ferry: 1\nname: bench\ndocker:\n  base_image: ferry-base:bookworm\n  system_packages: [%s]\n' "${system// /, }"
  printf 'python:\n  pip: [%s]\n' "$(IFS=,; echo "$*")"
  printf '  pip_options: {no_index: true, find_links: [../wheels]}\n'
}
system="python3-numpy python3-scipy"
now() { date +%s.%N; }
elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", b - a }'; }

layered_build() { # tag packages...
  local tag=$1; shift
  spec "$@" > "$ws/environments/bench.yml"
  rm -rf "$ws/ctx"
  "$ferry" env export "$ws/environments/bench.yml" --format dockerfile -o "$ws/ctx/Dockerfile" 2>/dev/null
  docker build -q --network host --target runtime -t "ferry-bench:$tag" "$ws/ctx" >/dev/null
}
naive_build() { # tag packages...
  local tag=$1; shift
  printf '%s\n' "$@" > "$ws/requirements.txt"
  cat > "$ws/Dockerfile.naive" <<DF
FROM ferry-base:bookworm
COPY . /app
WORKDIR /app
RUN apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $system \\
 && rm -rf /var/lib/apt/lists/* \\
 && PIP_BREAK_SYSTEM_PACKAGES=1 python3 -m pip install --no-cache-dir --no-index --find-links /app/wheels -r requirements.txt
DF
  docker build -q --network host -f "$ws/Dockerfile.naive" -t "ferry-bench:$tag" "$ws" >/dev/null
}

echo "warming both caches with pkg_a, pkg_b ..."
layered_build layered-a pkg_a pkg_b
naive_build naive-a pkg_a pkg_b

t0=$(now); layered_build layered-b pkg_a pkg_b pkg_c; t1=$(now)
t2=$(now); naive_build naive-b pkg_a pkg_b pkg_c; t3=$(now)
layered=$(elapsed "$t0" "$t1")
naive=$(elapsed "$t2" "$t3")

# Relaunch with the unchanged environment through the container target: no build step.
spec pkg_a pkg_b pkg_c > "$ws/environments/bench.yml"
(cd "$ws" && "$ferry" run train.py --env environments/bench.yml --target container >/dev/null 2>&1) # builds once
t4=$(now)
(cd "$ws" && "$ferry" run train.py --env environments/bench.yml --target container >/dev/null 2>&1)
t5=$(now)
relaunch=$(elapsed "$t4" "$t5")
last=$(ls -t "$ws/.ferry/runs" | head -n 1)
steps=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("buildSteps"))' "$ws/.ferry/runs/$last/container.json")
docker image rm -f "$(cd "$ws" && "$ferry" env hash environments/bench.yml --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["image"])')" >/dev/null 2>&1 || true

echo "data in the project folder: ${data_mb} MB; storage driver: $(docker info -f '{{.Driver}}')"
printf '%-58s %8s\n' "rebuild after adding one pip dependency" "seconds"
printf '%-58s %8s\n' "  Ferry's layered Dockerfile (pip layer only)" "$layered"
printf '%-58s %8s\n' "  naive Dockerfile (COPY . then install everything)" "$naive"
printf '%-58s %8s\n' "  speed-up" "$(awk -v a="$naive" -v b="$layered" 'BEGIN { printf "%.1fx", a / b }')"
printf '%-58s %8s\n' "relaunch, unchanged environment: ferry run to container start" "$relaunch"
printf '%-58s %8s\n' "  build steps on relaunch" "$steps"
