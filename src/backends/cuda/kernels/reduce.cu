// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reductions. Few values per output: one thread per output, walking its values in the reference
// kernel's order. Many (kBlockFrom or more) while the outputs are few or the values contiguous:
// one block per output, its threads striding over the values, then a warp-shuffle and shared
// memory tree. Floats accumulate in double, as the reference kernel does; so the tree's order
// changes a float32 result only by the rounding of the double sum. ArgMax / ArgMin the same
// way, with a comparison (Beats) that gives the reference's index whatever the order of visits.
#include <cuda_runtime.h>
#include <math_constants.h>

#include <cstdint>
#include <type_traits>

#include "backends/cuda/kernels/grid.cuh"
#include "backends/cuda/kernels/reduce_launch.h"

namespace kiln::cuda {
namespace {

// From this many values per output a block takes each output (below, a thread does).
constexpr int64_t kBlockFrom = 256;
// A block per output also when there are fewer outputs than this (too few threads otherwise),
// even if its values are strided.
constexpr int64_t kFewOutputs = 4096;
static_assert(kBlockFrom >= kThreads, "every thread of an ArgBlockKernel starts with a value");

template <typename T>
inline constexpr bool kIsFloat = std::is_same_v<T, float>;

// The reference kernel's integer sums, products and means wrap modulo 2^64 (then the type).
template <ReduceOp kOp>
inline constexpr bool kWraps =
    kOp == ReduceOp::kSum || kOp == ReduceOp::kMean || kOp == ReduceOp::kProd ||
    kOp == ReduceOp::kSumSquare || kOp == ReduceOp::kL1;

template <typename T>
__device__ __forceinline__ T Lowest() {
  if constexpr (std::is_same_v<T, int32_t>) {
    return INT32_MIN;
  } else {
    return INT64_MIN;
  }
}
template <typename T>
__device__ __forceinline__ T Highest() {
  if constexpr (std::is_same_v<T, int32_t>) {
    return INT32_MAX;
  } else {
    return INT64_MAX;
  }
}

// One op on one element type (the reference kernel's DoubleReducer, ReduceIntegerWrapping and
// ReduceExtremum): Add takes a value into an accumulator, Combine joins two accumulators,
// Finish makes the output. `shift` is LogSumExp's (the largest finite value, or 0).
template <ReduceOp kOp, typename T>
struct Reducer {
  using Acc = std::conditional_t<kIsFloat<T>, double,
                                 std::conditional_t<kWraps<kOp>, unsigned long long, T>>;

  __device__ static Acc Init() {
    if constexpr (kIsFloat<T>) {
      if constexpr (kOp == ReduceOp::kProd) {
        return 1.0;
      } else if constexpr (kOp == ReduceOp::kMax) {
        return -CUDART_INF;
      } else if constexpr (kOp == ReduceOp::kMin) {
        return CUDART_INF;
      } else {
        return 0.0;
      }
    } else if constexpr (kWraps<kOp>) {
      return kOp == ReduceOp::kProd ? 1ull : 0ull;
    } else {
      return kOp == ReduceOp::kMax ? Lowest<T>() : Highest<T>();
    }
  }

  __device__ static Acc Combine(Acc a, Acc b) {
    if constexpr (kOp == ReduceOp::kProd) {
      return a * b;
    } else if constexpr (kOp == ReduceOp::kMax) {
      if constexpr (kIsFloat<T>) {
        // NaN, once there, stays; a NaN value replaces any number.
        return !isnan(a) && (isnan(b) || b > a) ? b : a;
      } else {
        return b > a ? b : a;
      }
    } else if constexpr (kOp == ReduceOp::kMin) {
      if constexpr (kIsFloat<T>) {
        return !isnan(a) && (isnan(b) || b < a) ? b : a;
      } else {
        return b < a ? b : a;
      }
    } else {
      return a + b;  // sums of values, magnitudes, squares or exponentials
    }
  }

  __device__ static Acc Add(Acc a, T value, double shift) {
    if constexpr (kIsFloat<T>) {
      const double v = static_cast<double>(value);
      if constexpr (kOp == ReduceOp::kL1) {
        return a + fabs(v);
      } else if constexpr (kOp == ReduceOp::kL2 || kOp == ReduceOp::kSumSquare) {
        return a + v * v;
      } else if constexpr (kOp == ReduceOp::kLogSumExp) {
        return a + exp(v - shift);
      } else {
        return Combine(a, v);  // kSum, kMean, kLogSum add; kProd, kMax, kMin as they combine
      }
    } else if constexpr (kWraps<kOp>) {
      unsigned long long u = static_cast<unsigned long long>(value);  // two's complement
      if constexpr (kOp == ReduceOp::kL1) {
        if (value < 0) u = 0ull - u;
      }
      if constexpr (kOp == ReduceOp::kSumSquare) u *= u;
      return Combine(a, u);
    } else {
      return Combine(a, value);
    }
  }

  __device__ static T Finish(Acc a, int64_t count, double shift) {
    if constexpr (kIsFloat<T>) {
      double v = a;
      if constexpr (kOp == ReduceOp::kL2) v = sqrt(a);
      if constexpr (kOp == ReduceOp::kLogSum) v = log(a);
      if constexpr (kOp == ReduceOp::kMean) v = a / static_cast<double>(count);
      if constexpr (kOp == ReduceOp::kLogSumExp) v = log(a) + shift;
      return static_cast<float>(v);
    } else if constexpr (kOp == ReduceOp::kMean) {
      // The wrapped sum as a signed value, divided truncating (0 for no values).
      if (count == 0) return 0;
      return static_cast<T>(static_cast<unsigned long long>(static_cast<long long>(a) / count));
    } else {
      return static_cast<T>(a);
    }
  }
};

// The combination of every thread's `v` in the block, returned to every thread; `partial` is
// shared memory for one value per warp. Every thread of the block must call it.
template <typename A, typename Fn>
__device__ A BlockCombine(A v, A* partial, Fn combine) {
  for (int offset = 16; offset > 0; offset /= 2) {
    v = combine(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  __syncthreads();  // partial may still be read by the previous call
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  A all = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) all = combine(all, partial[w]);
  return all;
}

template <ReduceOp kOp, typename T>
__global__ void ReduceThreadKernel(const T* x, T* y, int64_t outputs, int64_t count,
                                   ReduceShape s) {
  using R = Reducer<kOp, T>;
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < outputs;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t base = KeptOffset(s, o);
    double shift = 0.0;
    if constexpr (kOp == ReduceOp::kLogSumExp) {
      double top = -CUDART_INF;
      ForEachReducedValue(s, base, count, [&](int64_t i) {
        const double v = x[i];
        if (isfinite(v) && v > top) top = v;
      });
      shift = isfinite(top) ? top : 0.0;
    }
    typename R::Acc a = R::Init();
    ForEachReducedValue(s, base, count, [&](int64_t i) { a = R::Add(a, x[i], shift); });
    y[o] = R::Finish(a, count, shift);
  }
}

template <ReduceOp kOp, typename T>
__global__ void ReduceBlockKernel(const T* x, T* y, int64_t outputs, int64_t count, ReduceShape s) {
  using R = Reducer<kOp, T>;
  using Acc = typename R::Acc;
  __shared__ Acc partial[kThreads / 32];
  // Every thread of a block takes the same outputs: the block-wide steps stay in step.
  for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    const int64_t base = KeptOffset(s, o);
    double shift = 0.0;
    if constexpr (kOp == ReduceOp::kLogSumExp) {  // float only: Acc is double
      double top = -CUDART_INF;
      for (int64_t r = threadIdx.x; r < count; r += blockDim.x) {
        const double v = x[base + ReducedOffset(s, r)];
        if (isfinite(v) && v > top) top = v;
      }
      top = BlockCombine(top, partial, [](double a, double b) { return b > a ? b : a; });
      shift = isfinite(top) ? top : 0.0;
    }
    Acc a = R::Init();
    for (int64_t r = threadIdx.x; r < count; r += blockDim.x) {
      a = R::Add(a, x[base + ReducedOffset(s, r)], shift);
    }
    a = BlockCombine(a, partial, [](Acc u, Acc v) { return R::Combine(u, v); });
    if (threadIdx.x == 0) y[o] = R::Finish(a, count, shift);
  }
}

template <ReduceOp kOp, typename T>
int Launch(const void* x, void* y, int64_t outputs, int64_t count, const ReduceShape& s,
           cudaStream_t stream) {
  const T* in = static_cast<const T*>(x);
  T* out = static_cast<T*>(y);
  // The values of an output lie next to each other: a block reads them coalesced.
  const bool contiguous = s.reduced_rank > 0 && s.reduced_strides[s.reduced_rank - 1] == 1;
  if (count >= kBlockFrom && (outputs < kFewOutputs || contiguous)) {
    const int blocks = static_cast<int>(outputs < kMaxBlocks ? outputs : kMaxBlocks);
    ReduceBlockKernel<kOp, T><<<blocks, kThreads, 0, stream>>>(in, out, outputs, count, s);
  } else {
    ReduceThreadKernel<kOp, T>
        <<<Blocks(outputs), kThreads, 0, stream>>>(in, out, outputs, count, s);
  }
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int LaunchTyped(ReduceOp op, const void* x, void* y, int64_t outputs, int64_t count,
                const ReduceShape& s, cudaStream_t stream) {
  switch (op) {
    case ReduceOp::kSum:
      return Launch<ReduceOp::kSum, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kMean:
      return Launch<ReduceOp::kMean, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kMax:
      return Launch<ReduceOp::kMax, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kMin:
      return Launch<ReduceOp::kMin, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kProd:
      return Launch<ReduceOp::kProd, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kSumSquare:
      return Launch<ReduceOp::kSumSquare, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kL1:
      return Launch<ReduceOp::kL1, T>(x, y, outputs, count, s, stream);
    case ReduceOp::kL2:
      if constexpr (kIsFloat<T>) return Launch<ReduceOp::kL2, T>(x, y, outputs, count, s, stream);
      break;
    case ReduceOp::kLogSum:
      if constexpr (kIsFloat<T>) {
        return Launch<ReduceOp::kLogSum, T>(x, y, outputs, count, s, stream);
      }
      break;
    case ReduceOp::kLogSumExp:
      if constexpr (kIsFloat<T>) {
        return Launch<ReduceOp::kLogSumExp, T>(x, y, outputs, count, s, stream);
      }
      break;
  }
  return static_cast<int>(cudaErrorInvalidValue);  // an integer L2 / LogSum / LogSumExp
}

// Whether value v at index i beats the best so far, b at bi: NaN beats any number; of equal
// values (or two NaNs) the lower index wins, or the higher with `last`. The reference kernel's
// rule for visits in index order, and the same answer for any order of visits.
template <bool kMax, typename T>
__device__ __forceinline__ bool Beats(T v, int64_t i, T b, int64_t bi, bool last) {
  bool v_nan = false, b_nan = false;
  if constexpr (kIsFloat<T>) {
    v_nan = isnan(v);
    b_nan = isnan(b);
  }
  if (v_nan != b_nan) return v_nan;
  if (!v_nan && v != b) return kMax ? v > b : v < b;
  return last ? i > bi : i < bi;
}

template <bool kMax, typename T>
__global__ void ArgThreadKernel(const T* x, int64_t* y, int64_t outputs, int64_t len, int64_t inner,
                                bool last) {
  for (int64_t o = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; o < outputs;
       o += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const T* p = x + o / inner * len * inner + o % inner;
    T best = p[0];
    int64_t best_i = 0;
    for (int64_t i = 1; i < len; ++i) {
      const T v = p[i * inner];
      if (Beats<kMax>(v, i, best, best_i, last)) {
        best = v;
        best_i = i;
      }
    }
    y[o] = best_i;
  }
}

// len >= kThreads: every thread starts with a value of its own.
template <bool kMax, typename T>
__global__ void ArgBlockKernel(const T* x, int64_t* y, int64_t outputs, int64_t len, int64_t inner,
                               bool last) {
  __shared__ T values[kThreads / 32];
  __shared__ int64_t indices[kThreads / 32];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  for (int64_t o = blockIdx.x; o < outputs; o += gridDim.x) {
    const T* p = x + o / inner * len * inner + o % inner;
    int64_t best_i = threadIdx.x;
    T best = p[best_i * inner];
    for (int64_t i = best_i + blockDim.x; i < len; i += blockDim.x) {
      const T v = p[i * inner];
      if (Beats<kMax>(v, i, best, best_i, last)) {
        best = v;
        best_i = i;
      }
    }
    for (int offset = 16; offset > 0; offset /= 2) {
      const T v = __shfl_down_sync(0xffffffffu, best, offset);
      const int64_t i = __shfl_down_sync(0xffffffffu, best_i, offset);
      if (Beats<kMax>(v, i, best, best_i, last)) {
        best = v;
        best_i = i;
      }
    }
    __syncthreads();  // the previous output's winners may still be read
    if (lane == 0) {
      values[warp] = best;
      indices[warp] = best_i;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      for (int w = 1; w < kThreads / 32; ++w) {
        if (Beats<kMax>(values[w], indices[w], best, best_i, last)) {
          best = values[w];
          best_i = indices[w];
        }
      }
      y[o] = best_i;
    }
  }
}

template <bool kMax, typename T>
int LaunchArg(const void* x, int64_t* y, int64_t outputs, int64_t len, int64_t inner, bool last,
              cudaStream_t stream) {
  const T* in = static_cast<const T*>(x);
  if (len >= kBlockFrom && (outputs < kFewOutputs || inner == 1)) {
    const int blocks = static_cast<int>(outputs < kMaxBlocks ? outputs : kMaxBlocks);
    ArgBlockKernel<kMax, T><<<blocks, kThreads, 0, stream>>>(in, y, outputs, len, inner, last);
  } else {
    ArgThreadKernel<kMax, T>
        <<<Blocks(outputs), kThreads, 0, stream>>>(in, y, outputs, len, inner, last);
  }
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int LaunchArgTyped(bool max, const void* x, int64_t* y, int64_t outputs, int64_t len, int64_t inner,
                   bool last, cudaStream_t stream) {
  return max ? LaunchArg<true, T>(x, y, outputs, len, inner, last, stream)
             : LaunchArg<false, T>(x, y, outputs, len, inner, last, stream);
}

}  // namespace

int LaunchReduce(ReduceOp op, ReduceType type, const void* x, void* y, int64_t outputs,
                 int64_t count, const ReduceShape& shape, void* stream) {
  if (outputs == 0) return 0;
  const auto s = static_cast<cudaStream_t>(stream);
  switch (type) {
    case ReduceType::kFloat32:
      return LaunchTyped<float>(op, x, y, outputs, count, shape, s);
    case ReduceType::kInt64:
      return LaunchTyped<int64_t>(op, x, y, outputs, count, shape, s);
    case ReduceType::kInt32:
      return LaunchTyped<int32_t>(op, x, y, outputs, count, shape, s);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

int LaunchArgReduce(bool max, bool last, ReduceType type, const void* x, int64_t* y, int64_t outer,
                    int64_t len, int64_t inner, void* stream) {
  const int64_t outputs = outer * inner;
  if (outputs == 0) return 0;
  if (len <= 0) return static_cast<int>(cudaErrorInvalidValue);
  const auto s = static_cast<cudaStream_t>(stream);
  switch (type) {
    case ReduceType::kFloat32:
      return LaunchArgTyped<float>(max, x, y, outputs, len, inner, last, s);
    case ReduceType::kInt64:
      return LaunchArgTyped<int64_t>(max, x, y, outputs, len, inner, last, s);
    case ReduceType::kInt32:
      return LaunchArgTyped<int32_t>(max, x, y, outputs, len, inner, last, s);
  }
  return static_cast<int>(cudaErrorInvalidValue);
}

}  // namespace kiln::cuda
