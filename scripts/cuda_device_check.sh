#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# The CUDA device's checks on a lent GPU machine (docs/cuda.md, "Checks on a GPU"), in two steps
# because that machine has nvcc and CMake but none of Kiln's Debian libraries and no network:
#   here:  bash scripts/cuda_device_check.sh bundle   builds the GPU tests and the ONNX
#          conformance runner in build/release and packs them, with every shared library they
#          need that is not glibc's or GCC's and the ONNX backend test data (node, simple, light,
#          pytorch-*), into build/cuda-check/payload.tar.xz (the device tool carries at most
#          64 MiB; compressed, oneDNN's 40 MiB become 7)
#   there: bash scripts/cuda_device_check.sh run      (device tool: carry ["build/cuda-check"])
#          unpacks it, runs each GPU test with KILN_ENABLE_CUDA=1 and the conformance runner on
#          GPU 0 (every case compiled for its sm_NN target: per-op pass counts against ONNX's
#          expected outputs), then, where the machine's Python has PyTorch with CUDA, ResNet-50
#          (scripts/cuda_torch_bench.py): Kiln float32 and fp16 on the GPU against PyTorch's
#          float32 CPU output, timed at batch 1 and 32 beside PyTorch fp16 eager and CUDA
#          graphs; it leaves the logs, JUnit XML and JSON in $OUT
# `bundle capi` / `run capi` do the same for the C API suites (core, async, model) in
# build/cuda-check-capi, for a second call of the device tool: the suites linked with the static
# C API (libascendcl.so's media libraries alone take 41 MiB compressed), each case in its own
# process with KILN_TEST_TARGET=cuda (tests/capi/device_under_test.cc), the models read from
# this tree (KILN_SOURCE_DIR).
# The tests skip every GPU case where there is no GPU, and without one the conformance runner
# runs on the CPU, so `run` also works here (a check of the script).
set -euo pipefail
cd "$(dirname "$0")/.."
suite="${2:-kernels}"
if [ "$suite" = capi ]; then
  bundle=build/cuda-check-capi
  # Linked with the static C API (tests/capi/CMakeLists.txt): no media libraries to carry.
  tests=(tests/capi/capi_core_test_static tests/capi/capi_async_test_static
         tests/capi/capi_model_test_static)
  tools=()
  subsets=()
else
  bundle=build/cuda-check
  tests=(tests/hal/cuda_device_test tests/ops/cuda_elementwise_test tests/ops/cuda_nn_test
         tests/ops/cuda_matrix_test tests/ops/cuda_movement_test tests/ops/cuda_rnn_test
         tests/ops/cuda_compare_test tests/ops/cuda_reduce_test tests/unit/cuda_backend_test)
  tools=(tests/onnx/onnx_conformance)
  subsets=(node simple light pytorch-converted pytorch-operator)
fi
# Opened at run time (src/backends/cuda/cuda_libraries.h), too large to carry (cuBLASLt and
# cuDNN's engines are hundreds of MiB): `run` looks for the machine's own (a PyTorch install has
# cuDNN 9; cuBLASLt must be of the CUDA major Kiln was built with).
runtime_libs=(libcudnn.so.9 "libcublasLt.so.$(sed -n 's/^#define CUBLAS_VER_MAJOR \([0-9]*\).*/\1/p' \
  "${CUDA_HOME:-/usr/local/cuda}/include/cublas_api.h" 2>/dev/null || true)")

case "${1:-}" in
  bundle)
    targets=()
    for t in "${tests[@]}" "${tools[@]}"; do targets+=("$(basename "$t")"); done
    cmake --build build/release --target "${targets[@]}"
    stage="$(mktemp -d)"
    trap 'rm -rf "$stage"' EXIT
    mkdir -p "$stage/bin" "$stage/lib" "$stage/onnx-data"
    for t in "${tests[@]}" "${tools[@]}"; do cp "build/release/$t" "$stage/bin/"; done
    # Libraries the bare machine may lack: all but the C and C++ runtimes it has.
    for b in "$stage"/bin/*; do ldd "$b" | awk '/=> \// {print $3}'; done | sort -u |
      while read -r lib; do
        case "$(basename "$lib")" in
          libc.so* | libm.so* | libstdc++.so* | libgcc_s.so* | libpthread.so* | libdl.so* | \
            librt.so* | ld-linux*) ;;
          *) cp -L "$lib" "$stage/lib/" ;;
        esac
      done
    if [ "${#subsets[@]}" -ne 0 ]; then
      site="$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
      for s in "${subsets[@]}"; do cp -r "$site/onnx/backend/test/data/$s" "$stage/onnx-data/"; done
    fi
    printf '%s\n' "${runtime_libs[@]}" > "$stage/runtime-libs.txt"
    cp scripts/cuda_torch_bench.py "$stage/bin/"
    rm -rf "$bundle"
    mkdir -p "$bundle"
    tar -C "$stage" -cf - . | xz -T2 -6 > "$bundle/payload.tar.xz"
    du -sh "$bundle"
    ;;
  run)
    out="${OUT:-$bundle/out}"
    mkdir -p "$out"
    work="$(mktemp -d)"
    tar -C "$work" -xJf "$bundle/payload.tar.xz"
    nvidia-smi > "$out/nvidia-smi.txt" 2>&1 || echo "no nvidia-smi" > "$out/nvidia-smi.txt"
    export KILN_ENABLE_CUDA=1 LD_LIBRARY_PATH="$work/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    # Where pip puts NVIDIA's libraries (PyTorch's cuDNN, nvidia-cublas-cu13, ...), then anywhere.
    pydirs="$(python3 -c 'import glob, os, site
for s in site.getsitepackages() + [site.getusersitepackages()]:
    for d in glob.glob(os.path.join(s, "nvidia", "*", "lib")) + [os.path.join(s, "torch", "lib")]:
        print(d) if os.path.isdir(d) else None' 2>/dev/null || true)"
    for lib in $(cat "$work/runtime-libs.txt"); do
      found=""
      for d in $pydirs; do
        if [ -z "$found" ] && [ -e "$d/$lib" ]; then found="$d/$lib"; fi
      done
      # (head closes the pipe early: find's SIGPIPE is not a failure here)
      [ -n "$found" ] || found="$(find / \( -path /proc -o -path /sys \) -prune -o -name "$lib" -print 2>/dev/null |
        head -1 || true)"
      echo "$lib: ${found:-not found}" >> "$out/libraries.txt"
      if [ -n "$found" ]; then LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$(dirname "$found")"; fi
    done
    status=0
    if [ "$suite" = capi ]; then
      # Each case in its own process, as ctest runs them: a case exits 77 where device 0 is
      # not a GPU.
      export KILN_TEST_TARGET=cuda KILN_SOURCE_DIR="$PWD"
      for t in "${tests[@]}"; do
        name="$(basename "$t")"
        pass=0 fail=0 skip=0
        for c in $("$work/bin/$name" --gtest_list_tests |
                   awk '/^[^ ]/ {s=$1} /^  / {print s $1}'); do
          rc=0
          "$work/bin/$name" --gtest_filter="$c" >> "$out/$name.log" 2>&1 || rc=$?
          case "$rc" in
            0) pass=$((pass + 1)) ;;
            77) skip=$((skip + 1)) ;;
            *) fail=$((fail + 1)); echo "FAILED $c" >> "$out/$name.failed" ;;
          esac
        done
        echo "$name: $pass passed, $fail failed, $skip skipped"
        if [ "$fail" -ne 0 ]; then status=1; head -20 "$out/$name.failed"; fi
        # No case at all: the binary did not start (a missing library), which is a failure.
        if [ $((pass + fail + skip)) -eq 0 ]; then status=1; echo "$name: no case ran"; fi
      done
      rm -rf "$work"
      exit "$status"
    fi
    for t in "${tests[@]}"; do
      name="$(basename "$t")"
      if "$work/bin/$name" --gtest_output="xml:$out/$name.xml" > "$out/$name.log" 2>&1; then
        echo "$name: passed ($(grep -c '^\[  SKIPPED \]' "$out/$name.log" || true) skip lines)"
      else
        status=1
        echo "$name: FAILED"
        grep -E '^\[  FAILED  \]|Failure' "$out/$name.log" | head -20 || true
      fi
    done
    # Every ONNX backend case on device 0, compiled for it: sm_NN from the GPU's compute
    # capability, or this host's CPU without a GPU.
    cap="$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -1 |
      tr -d ' .' || true)"
    target=()
    if [ -n "$cap" ]; then target=(--target="sm_$cap"); fi
    "$work/bin/onnx_conformance" --data-root="$work/onnx-data" \
      --subsets="$(IFS=,; echo "${subsets[*]}")" "${target[@]}" --device=0 --quiet \
      --json="$out/conformance.json" --op-counts="$out/op_counts.json" \
      > "$out/conformance.log" 2>&1 || status=1
    tail -3 "$out/conformance.log"
    # ResNet-50 against the machine's PyTorch (77: no PyTorch with CUDA there).
    bench=0
    python3 "$work/bin/cuda_torch_bench.py" --cases="$work/torch-cases" --out="$out" \
      > "$out/torch_bench.log" 2>&1 || bench=$?
    tail -4 "$out/torch_bench.log"
    if [ "$bench" -eq 0 ]; then
      # Listed, so a case that does not pass makes the runner exit 1.
      printf 'resnet50/test_resnet50_b1\nresnet50/test_resnet50_b32\n' > "$work/resnet50.txt"
      for mode in fp32 fp16; do
        flags=(--data-root="$work/torch-cases" --subsets=resnet50 "${target[@]}" --device=0
               --allowlist="$work/resnet50.txt" --time=50 --json="$out/resnet50_$mode.json")
        if [ "$mode" = fp16 ]; then
          flags+=(--precision_mode=force_fp16 --tolerances="$out/fp16_tolerances.json")
        fi
        "$work/bin/onnx_conformance" "${flags[@]}" > "$out/resnet50_$mode.log" 2>&1 || status=1
        grep -E 'resnet50_b' "$out/resnet50_$mode.log" || true
      done
    elif [ "$bench" -ne 77 ]; then
      status=1
    fi
    rm -rf "$work"
    exit "$status"
    ;;
  *)
    echo "usage: $0 bundle|run" >&2
    exit 2
    ;;
esac
