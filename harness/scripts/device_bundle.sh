#!/usr/bin/env bash
# Builds the suite against LibTorch 2.x and packs what a GPU machine needs into one folder to carry
# there (issue #44; `make device-bundle`; harness/scripts/device_check.sh runs it on the GPU machine).
#
# The build happens here, not on the GPU machine: a cold build is ~136 core-minutes (~70 min on this
# 2-core machine), over 8 minutes on a 16-core GPU machine, more than half of a session's 15 minutes of
# device time. The LibTorch is the pinned torch wheel's (the version the GPU machine's image holds),
# headers and libraries only, linked without its CUDA toolkit (CAPABOOST_TORCH_ROOT, CMakeLists.txt);
# there, the image's own torch libraries load in its place. Built on Debian 12, the binaries need
# glibc >= 2.36 where they run.
#
# Packs into $DEVICE_BUNDLE_DIR (default .device/, git-ignored) bundle.tar.gz holding bin/ (the
# capaboost program, the GPU tests, the benchmarks; stripped), lib/ (the Debian libraries they load
# besides LibTorch, glibc and libstdc++) and data/ (the offline GLUE mirror: the tests and the smoke run
# read it). Prints its size: a device call carries at most 64 MiB with the working tree.
set -euo pipefail

TORCH_VERSION=${TORCH_VERSION:-2.11.0}
SRC=$(cd "$(dirname "$0")/../.." && pwd)
LIBTORCH=${DEVICE_LIBTORCH:-${CAPABOOST_CACHE:-$HOME/.cache/capaboost}/libtorch-$TORCH_VERSION}
BUILD=${DEVICE_BUILD_DIR:-$SRC/build-torch$TORCH_VERSION}
BUNDLE=${DEVICE_BUNDLE_DIR:-$SRC/.device}
DATA=${CAPABOOST_DATA_DIR:-$SRC/../shared/data}
PIP=${PIP:-$SRC/.venv/bin/pip}

[ -d "$DATA/RTE" ] || { echo "device_bundle: no GLUE mirror at $DATA; set CAPABOOST_DATA_DIR" >&2; exit 1; }

# 1. LibTorch from the pinned wheel: its include/, lib/ and share/ (~1 GB unpacked), once.
if [ ! -f "$LIBTORCH/torch/lib/libtorch_cpu.so" ]; then
  mkdir -p "$LIBTORCH/wheel"
  "$PIP" download --no-deps --only-binary=:all: --python-version 3.11 --platform manylinux_2_28_x86_64 \
    -d "$LIBTORCH/wheel" "torch==$TORCH_VERSION"
  (cd "$LIBTORCH" && unzip -q -o wheel/torch-"$TORCH_VERSION"-*.whl 'torch/include/*' 'torch/lib/*' 'torch/share/*')
  rm -rf "$LIBTORCH/wheel"
fi

# 2. The build: the program, the benchmarks and the tests of tests/lib/runtime/ (the GPU tests among them).
# ccache on the first configure only: changing a configured folder's launcher would rebuild it all.
launcher=()
[ -f "$BUILD/CMakeCache.txt" ] || ! command -v ccache > /dev/null || launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$SRC" -B "$BUILD" -DCAPABOOST_TORCH_ROOT="$LIBTORCH/torch" -DCAPABOOST_TEST_FILTER=/tests/lib/runtime/ \
  "${launcher[@]}" > "$BUILD.configure.log"
cmake --build "$BUILD" -j"$(nproc)" --target capaboost capaboost_tests capaboost_bench

# 3. The bundle.
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" "$stage/lib"
binaries=("$BUILD/harness/capaboost" "$BUILD/tests/capaboost_tests" "$BUILD/bench/capaboost_bench")
for binary in "${binaries[@]}"; do strip -o "$stage/bin/$(basename "$binary")" "$binary"; done
# What the binaries load besides LibTorch (the GPU machine's own), glibc and the C++ runtime (the GPU
# machine's are as new or newer): fmt, yaml-cpp, SQLite, libpng, libjpeg, oneDNN, Google Benchmark, ….
LD_LIBRARY_PATH="$LIBTORCH/torch/lib" ldd "${binaries[@]}" | awk '$2 == "=>" && $3 ~ /^\// {print $3}' | sort -u |
  grep -v -e "^$LIBTORCH/" -e '/lib\(c\|m\|dl\|rt\|pthread\|stdc++\|gcc_s\)\.so' -e '/ld-linux' |
  xargs -r cp -L -t "$stage/lib"
cp -r "$DATA" "$stage/data"
mkdir -p "$BUNDLE"
tar -czf "$BUNDLE/bundle.tar.gz" -C "$stage" .
echo "device_bundle: $BUNDLE/bundle.tar.gz, $(du -m "$BUNDLE/bundle.tar.gz" | cut -f1) MiB (LibTorch $TORCH_VERSION):"
ls "$stage/bin" "$stage/lib" | sed 's/^/  /'
