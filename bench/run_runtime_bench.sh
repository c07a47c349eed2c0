#!/usr/bin/env bash
# Copyright 2026 The Kiln Authors
# SPDX-License-Identifier: Apache-2.0
#
# Builds and runs the runtime micro-benchmarks (release), interleaving repetitions, and writes
# bench/results/runtime_bench.json plus a ratio table (aclrtMalloc loop vs malloc loop).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release -DKILN_BUILD_BENCH=ON > /dev/null
mkdir -p bench/results
./build/release/bench/runtime_bench --benchmark_repetitions="${REPS:-5}" \
  --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true \
  --benchmark_out=bench/results/runtime_bench.json --benchmark_out_format=json
python3 bench/runtime_ratios.py bench/results/runtime_bench.json
