#!/usr/bin/env bash
# Installs what Ferry needs on Debian 12, and nothing that is already there.
#   install-deps.sh [runtime|build|test|bench]...   (default: build test; every group includes runtime)
# Run as root (or through sudo). Idempotent: a second run changes nothing and needs no network.
set -euo pipefail

runtime=(
  libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6sql6 libqt6sql6-sqlite
  libqt6concurrent6 libqt6svg6 libqt6svgwidgets6 libqt6network6 qt6-qpa-plugins libqt6keychain1
  # desktop notifications over the session D-Bus (core/notify; its headers are qt6-base-dev's)
  libqt6dbus6
  libyaml-cpp0.7 libarchive13
  # kernels: the Jupyter messaging protocol over ZeroMQ (issue 35)
  libzmq5
  # metric definitions' regexes with a match limit (Qt's QRegularExpression sets none)
  libpcre2-16-0
  # TensorBoard event files' Event messages (issue 16)
  libprotobuf32
  libtorch1.13
  # Debian's default reference BLAS made MLP training 11.6x slower than OpenBLAS here.
  libopenblas0-pthread
  # SSH and Slurm targets: the system OpenSSH client, rsync for sources, data and results
  openssh-client rsync
)
build=(
  build-essential cmake ninja-build ccache pkg-config file
  # links in a fifth of GNU ld's time (the build uses it when installed)
  mold
  qt6-base-dev qt6-base-dev-tools qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgl-dev libxkbcommon-dev
  qtkeychain-qt6-dev nlohmann-json3-dev libyaml-cpp-dev libarchive-dev libpcre2-dev
  libprotobuf-dev protobuf-compiler
  libtorch-dev
  libzmq3-dev cppzmq-dev
)
test=(
  clang-format
  # .clang-tidy's checks and clazy's Qt checks (tests/lint/clang-tidy.sh, the clang_tidy test)
  clang-tidy clazy
  # the wall time and peak memory of hostile inputs (tests/support/measure.h, tests/bench/hostile.sh)
  time
  xvfb xauth x11-utils imagemagick fonts-dejavu-core
  # the real window driven by keys under Xvfb (tests/gui/notebook-window.sh)
  xdotool
  desktop-file-utils appstream dpkg-dev
  # reference implementations the parsers are checked against
  python3-packaging python3-yaml
  # TensorBoard event files written by tests from a hand-written .proto (Debian has no tensorboard)
  python3-protobuf
  # the trained model's TorchScript is loaded by Python's torch (same libtorch)
  python3-torch
  # libFuzzer targets for every parser
  clang libclang-rt-14-dev
  # a real Docker engine, a base image made with debootstrap, the Dev Containers CLI
  docker.io debootstrap
  # a password-protected image registry for the registry-credential tests
  docker-registry apache2-utils curl
  # a real Secret Service for the keychain tests: gnome-keyring in a private D-Bus session
  gnome-keyring dbus-daemon dbus-bin libsecret-tools
  # a real notification server for the alert tests (tests/services/notification-server.py)
  python3-dbus python3-gi
  # notebook import is checked against Jupyter's own converter and nbformat's validator; the
  # kernels' wire format against jupyter_client's Session
  jupyter-nbconvert python3-nbformat python3-jupyter-client
  # kernels run against Debian's ipykernel, and a cell plots with matplotlib (a PNG comes back)
  python3-ipykernel python3-matplotlib
  # a run's progress read from a real tqdm bar (tests/tracking/tst_progress.cpp)
  python3-tqdm
  # a real sshd on 127.0.0.1 and a single-node Slurm with fake GPUs (tests/services/)
  openssh-server slurm-wlm munge
  # a network file system for the run store's journal test: sshfs over the test sshd
  sshfs
  # a login shell that is not POSIX (fish), for the remote command line's test
  fish
)

# Benchmarks (tests/bench/) measure Ferry against Debian's own Python torch and pandas.
bench=(python3-torch python3-pandas sqlite3 xvfb xauth x11-utils
  # the notebook's screenshots (tests/gui/notebook-screenshots.sh): a tqdm bar, a pandas table
  python3-tqdm xdotool imagemagick
  # the loss chart benchmark's peer (tests/bench/chart.sh): QCustomPlot built for Qt 6
  libqcustomplot-dev
  # the sweep sampler benchmark's peer (tests/bench/sweepsampler.sh): Optuna's TPE
  python3-optuna)

groups=("$@")
[ ${#groups[@]} -eq 0 ] && groups=(build test)

want=("${runtime[@]}")
for g in "${groups[@]}"; do
  case "$g" in
    runtime) ;;
    build) want+=("${build[@]}") ;;
    test) want+=("${build[@]}" "${test[@]}") ;;
    bench) want+=("${build[@]}" "${bench[@]}") ;;
    *) echo "install-deps.sh: unknown group '$g' (use runtime, build, test or bench)" >&2; exit 1 ;;
  esac
done

# The Dev Containers CLI (tests) comes from npm; a machine with its own Node.js keeps it.
if [[ " ${groups[*]} " == *" test "* ]] && ! command -v npm >/dev/null; then
  want+=(nodejs npm)
fi

missing=()
for p in "${want[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [ "$status" = "install ok installed" ] || missing+=("$p")
done
# The same package may be named by two groups.
mapfile -t missing < <(printf '%s\n' "${missing[@]}" | sort -u | sed '/^$/d')

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: everything is installed"
  exit 0
fi

sudo=()
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "install-deps: run as root (missing: ${missing[*]})" >&2; exit 1; }
  sudo=(sudo)
fi

echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
"${sudo[@]}" apt-get install -y -q --no-install-recommends -o DPkg::Lock::Timeout=600 "${missing[@]}"
