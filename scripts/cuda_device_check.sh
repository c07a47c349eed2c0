#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# The CUDA device's checks on a lent GPU machine (docs/cuda.md, "Checks on a GPU"), in two steps
# because that machine has nvcc and CMake but none of Kiln's Debian libraries and no network:
#   here:  bash scripts/cuda_device_check.sh bundle   builds the GPU tests in build/release and
#          copies them, with every shared library they need that is not glibc's or GCC's, into
#          build/cuda-check/ (a few MiB: the device tool carries at most 64 MiB)
#   there: bash scripts/cuda_device_check.sh run      (device tool: carry ["build/cuda-check"])
#          runs each test with KILN_ENABLE_CUDA=1 and leaves its log and JUnit XML in $OUT
# The tests skip every GPU case where there is no GPU, so `run` also works here (all skipped).
set -euo pipefail
cd "$(dirname "$0")/.."
bundle=build/cuda-check
tests=(tests/hal/cuda_device_test tests/ops/cuda_elementwise_test tests/ops/cuda_nn_test
       tests/ops/cuda_matrix_test tests/ops/cuda_movement_test tests/unit/cuda_backend_test)
# Opened at run time (src/backends/cuda/cuda_libraries.h), too large to carry (cuBLASLt and
# cuDNN's engines are hundreds of MiB): `run` looks for the machine's own (a PyTorch install has
# cuDNN 9; cuBLASLt must be of the CUDA major Kiln was built with).
runtime_libs=(libcudnn.so.9 "libcublasLt.so.$(sed -n 's/^#define CUBLAS_VER_MAJOR \([0-9]*\).*/\1/p' \
  "${CUDA_HOME:-/usr/local/cuda}/include/cublas_api.h" 2>/dev/null || true)")

case "${1:-}" in
  bundle)
    targets=()
    for t in "${tests[@]}"; do targets+=("$(basename "$t")"); done
    cmake --build build/release --target "${targets[@]}"
    rm -rf "$bundle"
    mkdir -p "$bundle/bin" "$bundle/lib"
    for t in "${tests[@]}"; do cp "build/release/$t" "$bundle/bin/"; done
    # Libraries the bare machine may lack: all but the C and C++ runtimes it has.
    for b in "$bundle"/bin/*; do ldd "$b" | awk '/=> \// {print $3}'; done | sort -u |
      while read -r lib; do
        case "$(basename "$lib")" in
          libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | libpthread.so* | libdl.so* | \
            librt.so* | ld-linux*) ;;
          *) cp -L "$lib" "$bundle/lib/" ;;
        esac
      done
    printf '%s\n' "${runtime_libs[@]}" > "$bundle/runtime-libs.txt"
    du -sh "$bundle"
    ;;
  run)
    out="${OUT:-$bundle/out}"
    mkdir -p "$out"
    nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "no nvidia-smi" > "$out/nvidia-smi.txt"
    export KILN_ENABLE_CUDA=1 LD_LIBRARY_PATH="$PWD/$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    for lib in $(cat "$bundle/runtime-libs.txt" 2>/dev/null); do
      found="$(find / -xdev \( -path /proc -o -path /sys \) -prune -o -name "$lib" -print 2>/dev/null |
        head -1)"
      echo "$lib: ${found:-not found}" >> "$out/libraries.txt"
      if [ -n "$found" ]; then LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$found")"; fi
    done
    status=0
    for b in "$bundle"/bin/*; do
      name="$(basename "$b")"
      if "$b" --gtest_output="xml:$out/$name.xml" > "$out/$name.log" 2>&1; then
        echo "$name: passed ($(grep -c '^\[  SKIPPED \]' "$out/$name.log" || true) skip lines)"
      else
        status=1
        echo "$name: FAILED"
        grep -E '^\[  FAILED  \]|Failure' "$out/$name.log" | head -20 || true
      fi
    done
    exit "$status"
    ;;
  *)
    echo "usage: $0 bundle|run" >&2
    exit 2
    ;;
esac
