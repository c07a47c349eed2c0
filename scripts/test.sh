#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Sets up, builds and runs every test (CTest, all labels but `gpu` and `slow`).
#   scripts/test.sh              release build, whole suite
#   scripts/test.sh --sanitizers also the unit, C API, kernel (ops) and fuzz suites under ASan+UBSan
#                                (tests/lsan.supp: libx265's process-wide state) and TSan
#                                (tests/tsan.supp: oneDNN's OpenMP team is not instrumented)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export ASCEND_PROCESS_LOG_PATH="${ASCEND_PROCESS_LOG_PATH:-$PWD/build/test-logs}"

run_preset() {
  local preset="$1" labels="$2"
  echo "== $preset: build"
  bash scripts/build.sh "$preset" -DKILN_BUILD_TESTS=ON
  echo "== $preset: test (labels: $labels)"
  ctest --test-dir "build/$preset" --output-on-failure -j2 -L "$labels" -LE 'gpu|slow'
}

run_preset release '.*'
if [ "${1:-}" = "--sanitizers" ]; then
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
    LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp" run_preset asan 'unit|capi|ops|hal|fuzz'
  tsan="halt_on_error=1 suppressions=$PWD/tests/tsan.supp"
  # TSan needs a non-randomised address space layout on some kernels.
  if setarch "$(uname -m)" -R true 2>/dev/null; then
    TSAN_OPTIONS="$tsan" setarch "$(uname -m)" -R bash -c "$(declare -f run_preset); run_preset tsan 'unit|capi|ops|hal'"
  else
    TSAN_OPTIONS="$tsan" run_preset tsan 'unit|capi|ops|hal'
  fi
fi
