// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's own reductions, float32: ReduceSum, ReduceMean, ReduceMax, ReduceMin,
// ReduceProd, ReduceSumSquare, ReduceL1, ReduceL2, ReduceLogSum and ReduceLogSumExp, and the
// global pools GlobalAveragePool and GlobalMaxPool (a mean / max over the spatial dims), every
// opset (axes as the attribute, or as input 1 from opset 13 for ReduceSum and 18 for the rest;
// keepdims; noop_with_empty_axes). Other element types are declined at Prepare; axes whose
// reduced and kept dims interleave more than [kept][reduced][kept] after merging neighbours, and
// bad axes from a computed axes input (which it reports), go to the node's reference kernel.
//
// Each run views the input as [outer, R, inner] (R the reduced elements, contiguous dims merged,
// dims of 1 dropped) and takes one of two paths:
//   - inner = 1 (the reduced block is contiguous: ReduceMean over H, W of NCHW, a full
//     reduction): each output reduces R contiguous floats in 16 lanes; R beyond 64K elements is
//     cut into fixed 64K blocks whose partial results are combined in block order, so a
//     reduction of one long row also spreads over the pool and the result does not depend on
//     the threads.
//   - inner > 1 (an outer or middle axis): rows of `inner` floats are accumulated into a tile
//     of per-column accumulators, rows in order, so memory streams and the loop vectorises.
//
// Precision: sums, products and the sums inside Mean, L1, L2, SumSquare, LogSum and LogSumExp
// accumulate in double, as the reference does; only the order differs (16 lanes, then blocks,
// combined pairwise, where the reference adds in index order). Max and Min are exact and
// propagate NaN. LogSumExp subtracts the largest finite value first, as the reference, and
// takes exp in float (vec_math.h's Exp, within 1 ulp).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/kernels/elementwise_internal.h"
#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/vec_math.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace {

using internal::DataType;
using internal::Dims;
using internal::FallbackKernel;
using internal::Kernel;
using internal::KernelContext;
using internal::KernelRegistry;
using internal::kGrainCheap;
using internal::NodeDef;
using internal::TensorView;

constexpr DataType kF32 = DataType::kFloat32;
constexpr float kInf = std::numeric_limits<float>::infinity();

enum class ReduceOp : uint8_t {
  kL1,
  kL2,
  kLogSum,
  kLogSumExp,
  kMax,
  kMean,
  kMin,
  kProd,
  kSum,
  kSumSquare
};

// What the leaf loops accumulate.
enum class Acc : uint8_t {
  kSum,        // x
  kSumSquare,  // x * x (in double)
  kSumAbs,     // |x|
  kSumExp,     // exp(x - shift)
  kProd,       // product
  kMax,        // NaN-propagating max
  kMin,        // NaN-propagating min
  kMaxFinite,  // the largest finite value (-inf when none)
};

Acc AccOf(ReduceOp op) {
  switch (op) {
    case ReduceOp::kL1:
      return Acc::kSumAbs;
    case ReduceOp::kL2:
    case ReduceOp::kSumSquare:
      return Acc::kSumSquare;
    case ReduceOp::kLogSumExp:
      return Acc::kSumExp;
    case ReduceOp::kMax:
      return Acc::kMax;
    case ReduceOp::kMin:
      return Acc::kMin;
    case ReduceOp::kProd:
      return Acc::kProd;
    default:
      return Acc::kSum;  // kSum, kMean, kLogSum
  }
}

// The accumulator's start: the identity of its combination.
double Identity(Acc acc) {
  switch (acc) {
    case Acc::kProd:
      return 1.0;
    case Acc::kMax:
    case Acc::kMaxFinite:
      return -std::numeric_limits<double>::infinity();
    case Acc::kMin:
      return std::numeric_limits<double>::infinity();
    default:
      return 0.0;
  }
}

// Combines two partial accumulators (the order of the reference for NaN: a NaN stays).
double Combine(Acc acc, double a, double b) {
  switch (acc) {
    case Acc::kProd:
      return a * b;
    case Acc::kMax:
    case Acc::kMaxFinite:
      return std::isnan(a) || (!std::isnan(b) && b <= a) ? a : b;
    case Acc::kMin:
      return std::isnan(a) || (!std::isnan(b) && b >= a) ? a : b;
    default:
      return a + b;
  }
}

// The output from the accumulator `a` of `count` elements.
double Finish(ReduceOp op, double a, int64_t count, double shift) {
  switch (op) {
    case ReduceOp::kL2:
      return std::sqrt(a);
    case ReduceOp::kLogSum:
      return std::log(a);
    case ReduceOp::kMean:
      return a / static_cast<double>(count);
    case ReduceOp::kLogSumExp:
      return std::log(a) + shift;
    default:
      return a;
  }
}

// ---------------------------------------------------------------------------------------------
// Leaf loops.

constexpr int kLanes = 16;

// Sums f(x[i]) (a double) over n contiguous floats in kLanes lanes, combined pairwise.
template <typename F>
KILN_VEC_INLINE double SumLanes(const float* x, int64_t n, F f) {
  double acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] += f(x[i + j]);
  }
  for (int j = 0; i + j < n; ++j) acc[j] += f(x[i + j]);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] += acc[j + w];
  }
  return acc[0];
}

// Folds pick(m, x[i]) -> new m over n contiguous floats in kLanes float lanes (max / min:
// exact, so the order does not matter), lanes combined with the same rule.
template <typename F>
KILN_VEC_INLINE float FoldLanes(const float* x, int64_t n, float init, F pick) {
  float acc[kLanes];
  for (int j = 0; j < kLanes; ++j) acc[j] = init;
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes) {
    for (int j = 0; j < kLanes; ++j) acc[j] = pick(acc[j], x[i + j]);
  }
  for (int j = 0; i + j < n; ++j) acc[j] = pick(acc[j], x[i + j]);
  for (int w = kLanes / 2; w > 0; w /= 2) {
    for (int j = 0; j < w; ++j) acc[j] = pick(acc[j], acc[j + w]);
  }
  return acc[0];
}

// NaN-propagating max / min steps: a NaN accumulator stays, a NaN value is taken.
KILN_VEC_INLINE float MaxStep(float m, float v) { return vec::Select(v > m || v != v, v, m); }
KILN_VEC_INLINE float MinStep(float m, float v) { return vec::Select(v < m || v != v, v, m); }
// The largest finite value.
KILN_VEC_INLINE float MaxFiniteStep(float m, float v) {
  return vec::Select(v > m && vec::Abs(v) < kInf, v, m);
}

// The accumulator of n contiguous floats.
KILN_CPU_CLONES double ReduceRun(Acc acc, const float* x, int64_t n, float shift) {
  switch (acc) {
    case Acc::kSum:
      return SumLanes(x, n, [](float v) { return static_cast<double>(v); });
    case Acc::kSumSquare:
      return SumLanes(x, n, [](float v) {
        const double d = v;
        return d * d;
      });
    case Acc::kSumAbs:
      return SumLanes(x, n, [](float v) { return static_cast<double>(vec::Abs(v)); });
    case Acc::kSumExp:
      return SumLanes(x, n, [shift](float v) KILN_VEC_LAMBDA {
        return static_cast<double>(vec::Exp(v - shift));
      });
    case Acc::kProd: {
      double p[kLanes];
      for (int j = 0; j < kLanes; ++j) p[j] = 1.0;
      int64_t i = 0;
      for (; i + kLanes <= n; i += kLanes) {
        for (int j = 0; j < kLanes; ++j) p[j] *= static_cast<double>(x[i + j]);
      }
      for (int j = 0; i + j < n; ++j) p[j] *= static_cast<double>(x[i + j]);
      for (int w = kLanes / 2; w > 0; w /= 2) {
        for (int j = 0; j < w; ++j) p[j] *= p[j + w];
      }
      return p[0];
    }
    case Acc::kMax:
      return FoldLanes(x, n, -kInf, [](float m, float v) { return MaxStep(m, v); });
    case Acc::kMin:
      return FoldLanes(x, n, kInf, [](float m, float v) { return MinStep(m, v); });
    case Acc::kMaxFinite:
      return FoldLanes(x, n, -kInf, [](float m, float v) { return MaxFiniteStep(m, v); });
  }
  return 0.0;
}

// Accumulates `rows` rows of n floats (row r at x + r * stride) into per-column accumulators:
// sum[j] (double) for the sums and products, ext[j] (float) for the extrema; kSumExp subtracts
// shift[j] from column j.
KILN_CPU_CLONES void ReduceRows(Acc acc, const float* x, int64_t rows, int64_t stride, int64_t n,
                                double* sum, float* ext, const float* shift) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* row = x + r * stride;
    switch (acc) {
      case Acc::kSum:
        for (int64_t j = 0; j < n; ++j) sum[j] += static_cast<double>(row[j]);
        break;
      case Acc::kSumSquare:
        for (int64_t j = 0; j < n; ++j) {
          const double d = row[j];
          sum[j] += d * d;
        }
        break;
      case Acc::kSumAbs:
        for (int64_t j = 0; j < n; ++j) sum[j] += static_cast<double>(vec::Abs(row[j]));
        break;
      case Acc::kSumExp:
        for (int64_t j = 0; j < n; ++j) sum[j] += static_cast<double>(vec::Exp(row[j] - shift[j]));
        break;
      case Acc::kProd:
        for (int64_t j = 0; j < n; ++j) sum[j] *= static_cast<double>(row[j]);
        break;
      case Acc::kMax:
        for (int64_t j = 0; j < n; ++j) ext[j] = MaxStep(ext[j], row[j]);
        break;
      case Acc::kMin:
        for (int64_t j = 0; j < n; ++j) ext[j] = MinStep(ext[j], row[j]);
        break;
      case Acc::kMaxFinite:
        for (int64_t j = 0; j < n; ++j) ext[j] = MaxFiniteStep(ext[j], row[j]);
        break;
    }
  }
}

bool IsExtremum(Acc acc) { return acc == Acc::kMax || acc == Acc::kMin || acc == Acc::kMaxFinite; }

// ---------------------------------------------------------------------------------------------
// The two paths.

constexpr int64_t kBlock = 65536;  // elements per partial of a long contiguous reduction
constexpr int64_t kTile = 512;     // columns per accumulator tile of the strided path

// LogSumExp's shift: the largest finite value, or 0 when there is none.
float ShiftOf(double max_finite) {
  return std::isfinite(max_finite) ? static_cast<float>(max_finite) : 0.0f;
}

// [outer, R] -> [outer]: `outer` contiguous reductions of R elements.
void ReduceInnermost(KernelContext& ctx, ReduceOp op, const float* x, int64_t outer, int64_t r,
                     float* y) {
  const int64_t blocks = std::max<int64_t>(1, (r + kBlock - 1) / kBlock);
  if (blocks == 1) {
    // One block per row: each chunk finishes its rows (no partials to keep; the same results
    // as combining one partial with the identity).
    const Acc acc = AccOf(op);
    const int64_t grain = std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(r, 1));
    ctx.ParallelFor(outer, grain, [&](int64_t begin, int64_t end) {
      for (int64_t o = begin; o < end; ++o) {
        const float* row = x + o * r;
        float shift = 0.0f;
        if (op == ReduceOp::kLogSumExp) shift = ShiftOf(ReduceRun(Acc::kMaxFinite, row, r, 0.0f));
        y[o] = static_cast<float>(Finish(op, ReduceRun(acc, row, r, shift), r, shift));
      }
    });
    return;
  }
  // Runs accumulation `acc` over every (row, block) into part[row * blocks + block].
  auto partials = [&](Acc acc, const float* shift, std::vector<double>& part) {
    part.assign(static_cast<size_t>(outer * blocks), 0.0);
    const int64_t grain =
        blocks > 1 ? 1 : std::max<int64_t>(1, kGrainCheap / std::max<int64_t>(r, 1));
    ctx.ParallelFor(outer * blocks, grain, [&](int64_t begin, int64_t end) {
      for (int64_t u = begin; u < end; ++u) {
        const int64_t row = u / blocks, block = u % blocks;
        const int64_t first = block * kBlock, len = std::min(kBlock, r - first);
        part[static_cast<size_t>(u)] = ReduceRun(
            acc, x + row * r + first, std::max<int64_t>(len, 0), shift ? shift[row] : 0.0f);
      }
    });
  };
  auto fold = [&](Acc acc, const std::vector<double>& part, int64_t row) {
    double a = Identity(acc);
    for (int64_t b = 0; b < blocks; ++b) {
      a = Combine(acc, a, part[static_cast<size_t>(row * blocks + b)]);
    }
    return a;
  };
  std::vector<double> part;
  std::vector<float> shift;
  if (op == ReduceOp::kLogSumExp) {
    partials(Acc::kMaxFinite, nullptr, part);
    shift.resize(static_cast<size_t>(outer));
    for (int64_t o = 0; o < outer; ++o) {
      shift[static_cast<size_t>(o)] = ShiftOf(fold(Acc::kMaxFinite, part, o));
    }
  }
  const Acc acc = AccOf(op);
  partials(acc, shift.empty() ? nullptr : shift.data(), part);
  for (int64_t o = 0; o < outer; ++o) {
    const double s = shift.empty() ? 0.0 : shift[static_cast<size_t>(o)];
    y[o] = static_cast<float>(Finish(op, fold(acc, part, o), r, s));
  }
}

// [outer, R, inner] -> [outer, inner], inner > 1: per (outer, column tile), rows accumulated in
// order into the tile.
void ReduceStrided(KernelContext& ctx, ReduceOp op, const float* x, int64_t outer, int64_t r,
                   int64_t inner, float* y) {
  const int64_t tiles = (inner + kTile - 1) / kTile;
  const int64_t work = std::max<int64_t>(1, r * std::min(inner, kTile));
  ctx.ParallelFor(outer * tiles, std::max<int64_t>(1, kGrainCheap / work),
                  [&](int64_t begin, int64_t end) {
                    double sum[kTile];
                    float ext[kTile];
                    float shift[kTile];
                    for (int64_t u = begin; u < end; ++u) {
                      const int64_t o = u / tiles, j0 = (u % tiles) * kTile;
                      const int64_t n = std::min(kTile, inner - j0);
                      const float* base = x + o * r * inner + j0;
                      if (op == ReduceOp::kLogSumExp) {
                        for (int64_t j = 0; j < n; ++j) ext[j] = -kInf;
                        ReduceRows(Acc::kMaxFinite, base, r, inner, n, sum, ext, nullptr);
                        for (int64_t j = 0; j < n; ++j) shift[j] = ShiftOf(ext[j]);
                      }
                      const Acc acc = AccOf(op);
                      const double init = Identity(acc);
                      for (int64_t j = 0; j < n; ++j) {
                        sum[j] = init;
                        ext[j] = static_cast<float>(init);
                      }
                      ReduceRows(acc, base, r, inner, n, sum, ext, shift);
                      float* out = y + o * inner + j0;
                      if (IsExtremum(acc)) {
                        for (int64_t j = 0; j < n; ++j) out[j] = ext[j];
                      } else {
                        for (int64_t j = 0; j < n; ++j) {
                          out[j] = static_cast<float>(
                              Finish(op, sum[j], r, op == ReduceOp::kLogSumExp ? shift[j] : 0.0));
                        }
                      }
                    }
                  });
}

// ---------------------------------------------------------------------------------------------
// The kernel.

class ReduceKernel final : public FallbackKernel {
 public:
  // `global_pool`: GlobalAveragePool / GlobalMaxPool, the mean / max over every dim after N
  // and C.
  ReduceKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ReduceOp op,
               bool axes_from_input, bool global_pool = false)
      : FallbackKernel(def, std::move(reference)),
        op_(op),
        axes_from_input_(axes_from_input),
        attr_axes_(global_pool       ? SpatialAxes(def)
                   : axes_from_input ? std::vector<int64_t>{}
                                     : def.attr_ints("axes")),
        noop_with_empty_axes_(axes_from_input && def.attr_int("noop_with_empty_axes") != 0),
        global_pool_(global_pool) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    const size_t rank = x->rank();
    if (rank > 64 || (global_pool_ && rank != attr_axes_.size() + 2)) return RunReference(ctx);
    // The axes (int64, the definition checked): the attribute's, or input 1's values.
    const int64_t* axes = attr_axes_.data();
    int64_t n_axes = static_cast<int64_t>(attr_axes_.size());
    if (axes_from_input_ && ctx.num_inputs() > 1 && ctx.input(1) != nullptr) {
      axes = ctx.input(1)->as<const int64_t>();
      n_axes = ctx.input(1)->num_elements();
    }
    uint64_t reduced = 0;  // bit d: axis d is reduced
    if (n_axes == 0 && !noop_with_empty_axes_) {
      reduced = rank == 64 ? ~uint64_t{0} : (uint64_t{1} << rank) - 1;
    }
    for (int64_t i = 0; i < n_axes; ++i) {
      auto a = kernels::NormalizeAxis(axes[i], static_cast<int64_t>(rank));
      if (!a || (reduced >> *a & 1)) return RunReference(ctx);  // a computed axis: it reports
      reduced |= uint64_t{1} << *a;
    }
    // [outer][R][inner] from the dims other than 1; `stage` 0, 1, 2 = before, in, after the
    // reduced block; a reduced dim after it (or a kept one splitting it) is a third group.
    int64_t size[3] = {1, 1, 1};
    int stage = 0;
    for (size_t d = 0; d < rank; ++d) {
      const int64_t n = x->dims[d];
      if (n == 1) continue;
      if (reduced >> d & 1) {
        if (stage == 2) return RunReference(ctx);
        stage = 1;
      } else if (stage == 1) {
        stage = 2;
      }
      size[stage] *= n;
    }
    const int64_t outer = size[0], r = size[1], inner = size[2];
    if (y->num_elements() != outer * inner) return RunReference(ctx);  // it reports
    if (outer == 0 || inner == 0) return Status::Ok();                 // no outputs
    const float* px = x->as<const float>();
    float* py = y->as<float>();
    if (inner == 1) {
      ReduceInnermost(ctx, op_, px, outer, r, py);
    } else {
      ReduceStrided(ctx, op_, px, outer, r, inner, py);
    }
    return Status::Ok();
  }

 private:
  static std::vector<int64_t> SpatialAxes(const NodeDef& def) {
    std::vector<int64_t> axes;
    const size_t rank = def.input_dims.empty() ? 0 : def.input_dims[0].size();
    for (size_t d = 2; d < rank; ++d) axes.push_back(static_cast<int64_t>(d));
    return axes;
  }

  ReduceOp op_;
  bool axes_from_input_;
  std::vector<int64_t> attr_axes_;
  bool noop_with_empty_axes_;
  bool global_pool_ = false;
};

Result<std::unique_ptr<Kernel>> MakeReduce(const KernelRegistry& registry, const NodeDef& def,
                                           ReduceOp op) {
  KILN_RETURN_IF_ERROR(internal::RequireInput(def, 0, kF32), "");
  KILN_RETURN_IF_ERROR(internal::RequireOutput(def, 0, kF32), "");
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  const int since = def.op_type == "ReduceSum" ? 13 : 18;
  return std::unique_ptr<Kernel>(
      std::make_unique<ReduceKernel>(def, std::move(reference), op, def.opset >= since));
}

// GlobalAveragePool / GlobalMaxPool over X [N, C, spatial...] with its rank known at load (a
// reduction of each contiguous spatial block: one read of X, no window machinery).
Result<std::unique_ptr<Kernel>> MakeGlobalPool(const KernelRegistry& registry, const NodeDef& def,
                                               ReduceOp op) {
  KILN_RETURN_IF_ERROR(internal::RequireInput(def, 0, kF32), "");
  KILN_RETURN_IF_ERROR(internal::RequireOutput(def, 0, kF32), "");
  if (!def.input_ranked(0) || def.input_dims[0].size() < 3) {
    return def.Fail(code::kFeatureUnsupported, "a global pool of X of unknown rank");
  }
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  return std::unique_ptr<Kernel>(
      std::make_unique<ReduceKernel>(def, std::move(reference), op, false, true));
}

}  // namespace

void RegisterCpuReduceKernels(KernelRegistry& registry) {
  const KernelRegistry* r = &registry;
  const std::pair<const char*, ReduceOp> ops[] = {
      {"ReduceL1", ReduceOp::kL1},         {"ReduceL2", ReduceOp::kL2},
      {"ReduceLogSum", ReduceOp::kLogSum}, {"ReduceLogSumExp", ReduceOp::kLogSumExp},
      {"ReduceMax", ReduceOp::kMax},       {"ReduceMean", ReduceOp::kMean},
      {"ReduceMin", ReduceOp::kMin},       {"ReduceProd", ReduceOp::kProd},
      {"ReduceSum", ReduceOp::kSum},       {"ReduceSumSquare", ReduceOp::kSumSquare},
  };
  for (const auto& [name, op] : ops) {
    registry.Register(internal::kCpu, "", name,
                      [r, op = op](const NodeDef& def) { return MakeReduce(*r, def, op); });
  }
  registry.Register(internal::kCpu, "", "GlobalAveragePool",
                    [r](const NodeDef& def) { return MakeGlobalPool(*r, def, ReduceOp::kMean); });
  registry.Register(internal::kCpu, "", "GlobalMaxPool",
                    [r](const NodeDef& def) { return MakeGlobalPool(*r, def, ReduceOp::kMax); });
}

}  // namespace kiln::cpu
