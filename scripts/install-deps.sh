#!/usr/bin/env bash
# Install the Debian packages fxkit needs to build and test, only those missing.
# Idempotent: when everything is present it changes nothing and needs no network.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config   # toolchain
  libspng-dev libturbojpeg0-dev libsndfile1-dev  # codecs: PNG, JPEG, audio
  zlib1g-dev                                     # the PNG writer's zlib levels, CRC-32, Adler-32
  clang libclang-rt-14-dev                       # libFuzzer and sanitizer runtimes for `make test`
  libfftw3-dev                                   # the fft filter strategy; optional (GPL): FXKIT_FFTW=OFF builds without
  python3-dev python3-venv                       # the Python binding (make test-python: a venv, pip, pytest)
  slurm-wlm munge openmpi-bin procps             # tests/cluster: a one-node Slurm cluster, mpirun, pgrep
  util-linux                                     # taskset, for the thread-count test
  gnuplot-nox                                    # fxkit bench --plot draws its figures with gnuplot
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ $status == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
sudo=""
if [[ $(id -u) -ne 0 ]]; then
  command -v sudo >/dev/null || { echo "install-deps: need root or sudo to install ${missing[*]}" >&2; exit 1; }
  sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
