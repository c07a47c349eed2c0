// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "backends/cpu/cpu_peak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>

#include "base/clock.h"

namespace kiln::cpu {
namespace {

// Twelve independent accumulators cover the FMA latency of two ports (4 cycles × 2 + margin).
constexpr int kChains = 12;

__attribute__((target("avx512f"))) float Fma512(int64_t iterations, double* flops) {
  __m512 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(0.001f * static_cast<float>(c));
  const __m512 m = _mm512_set1_ps(0.999999f), a = _mm512_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], m, a);
  }
  __m512 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
  *flops = static_cast<double>(iterations) * kChains * 16 * 2;
  alignas(64) float lanes[16];
  _mm512_store_ps(lanes, sum);
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

__attribute__((target("avx2,fma"))) float Fma256(int64_t iterations, double* flops) {
  __m256 acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = _mm256_set1_ps(0.001f * static_cast<float>(c));
  const __m256 m = _mm256_set1_ps(0.999999f), a = _mm256_set1_ps(1e-7f);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = _mm256_fmadd_ps(acc[c], m, a);
  }
  __m256 sum = acc[0];
  for (int c = 1; c < kChains; ++c) sum = _mm256_add_ps(sum, acc[c]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  *flops = static_cast<double>(iterations) * kChains * 8 * 2;
  float total = 0;
  for (float v : lanes) total += v;
  return total;
}

float FmaScalar(int64_t iterations, double* flops) {
  float acc[kChains];
  for (int c = 0; c < kChains; ++c) acc[c] = 0.001f * static_cast<float>(c);
  for (int64_t i = 0; i < iterations; ++i) {
    for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999999f + 1e-7f;
  }
  *flops = static_cast<double>(iterations) * kChains * 2;
  float total = 0;
  for (float v : acc) total += v;
  return total;
}

float Fma(int64_t iterations, double* flops) {
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx512f")) return Fma512(iterations, flops);
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return Fma256(iterations, flops);
  }
  return FmaScalar(iterations, flops);
}

}  // namespace

double MeasureCpuPeakGflops(hal::Device& device) {
  const int64_t threads = std::max<int64_t>(device.info().compute_units, 1);
  // Calibrate on one thread: iterations for ~40 ms.
  double flops = 0;
  int64_t iterations = 1 << 16;
  uint64_t start = SteadyNowNs();
  volatile float sink = Fma(iterations, &flops);
  double seconds = static_cast<double>(SteadyNowNs() - start) * 1e-9;
  iterations = std::max<int64_t>(iterations, static_cast<int64_t>(iterations * 0.04 / seconds));
  double best = 0;
  std::unique_ptr<hal::Execution> exec = device.CreateExecution();
  for (int round = 0; round < 3; ++round) {
    std::atomic<uint64_t> total_flops_bits{0};
    exec->Begin();
    start = SteadyNowNs();
    exec->ParallelFor(threads, 1, [&](int64_t begin, int64_t end) {
      for (int64_t t = begin; t < end; ++t) {
        double f = 0;
        volatile float kept = Fma(iterations, &f);  // each thread its own: no shared write
        (void)kept;
        total_flops_bits.fetch_add(static_cast<uint64_t>(f), std::memory_order_relaxed);
      }
    });
    seconds = static_cast<double>(SteadyNowNs() - start) * 1e-9;
    exec->End();
    if (seconds > 0) best = std::max(best, static_cast<double>(total_flops_bits) / seconds * 1e-9);
  }
  (void)sink;
  return best;
}

}  // namespace kiln::cpu
