#!/usr/bin/env bash
# Sets fa4 up on a fresh Debian 12 machine: installs the LLVM/MLIR 22 packages
# and the build tools it needs (only those missing), configures with CMake and
# Ninja, and builds. Safe to run again: it installs and rebuilds only what is
# missing or out of date. Needs root (or sudo) for apt-get.
#
#   FA4_BUILD_DIR  the build directory (default: build/ in the checkout)
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${FA4_BUILD_DIR:-$root/build}
llvm=/usr/lib/llvm-22

# python3-torch and python3-numpy run the Python package's CPU tests;
# libclang-rt-22-dev has the sanitizer runtimes and libFuzzer
# (scripts/fuzz.sh).
packages=(cmake ninja-build clang-22 lld-22 llvm-22-dev llvm-22-tools
          libmlir-22-dev mlir-22-tools zlib1g-dev libzstd-dev
          python3-torch python3-numpy libclang-rt-22-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
    missing+=("$p")
done
if ((${#missing[@]})); then
  echo "fa4 setup: installing ${missing[*]}"
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo=sudo
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -q
  $sudo apt-get install -y -q --no-install-recommends "${missing[@]}"
fi

if [ ! -f /usr/local/cuda/include/cuda.h ]; then
  echo "fa4 setup: warning: /usr/local/cuda/include/cuda.h not found;" \
       "the runtime needs the CUDA 13 headers (set CUDA_PATH)" >&2
fi

if [ ! -f "$build/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$build" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DLLVM_USE_LINKER=lld \
    -DMLIR_DIR=$llvm/lib/cmake/mlir \
    -DLLVM_EXTERNAL_LIT=$llvm/bin/lit
fi
cmake --build "$build"
