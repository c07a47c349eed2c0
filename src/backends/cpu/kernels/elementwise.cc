// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's own elementwise kernels, float32: broadcasting binary arithmetic (Add, Sub,
// Mul, Div, Max, Min, two-input Sum and Mean, Pow, PRelu), comparisons (bool out), Where, and
// the unary math and activations (Relu ... Gelu, Clip), and com.kiln ArithmeticChain. Other element
// types and variadic Sum/Max/Min/Mean with other than two inputs are declined at Prepare (the
// reference kernel takes them); runs whose inputs do not fit the bound output go to the node's
// reference kernel, which reports them.
//
// Broadcasting: the executor binds the output with the broadcast dims (the op's definition
// derives them). Each run collapses the inputs' dims against them into the fewest segments
// in which every input either runs along with the output or repeats one element, so the
// innermost segment is a contiguous run: the whole tensor for same-shape inputs or a scalar,
// the row for a [.., W] operand, the H*W plane for a per-channel [1, C, 1, 1] one. An odometer
// over the outer segments feeds those runs to vectorised leaf loops. The output is split into
// ParallelFor chunks at any element, so a chunk may start and end inside a run.
//
// In-place: the executor may give the output the memory of a same-shaped input. The leaf loops
// read element i of every input before writing element i of the output and carry no restrict
// qualifiers; GCC's runtime overlap check accepts identical pointers, so they stay vectorised.
//
// Results: the arithmetic, comparisons, Max/Min (NaN-propagating), PRelu, Where, Clip, Relu,
// LeakyRelu, HardSwish, Abs, Neg, Reciprocal, Sqrt, Floor, Ceil, Round, Sign, Softsign,
// ThresholdedRelu and Pow with exponent 2, 1, 0.5, 0 or -1 are bit-identical to the reference
// kernels. HardSigmoid may differ by half an ulp of alpha * x: GCC contracts alpha * x + beta
// into one fused multiply-add where the clone has FMA (AVX-512), which rounds once where the
// reference rounds twice. The
// exp/log/tanh/erf-based ops use vec_math.h (within 2 ulp of the exact function, where the
// reference's libm float functions are within 1) and general Pow uses powf (within 1 ulp of the
// reference's double pow).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "backends/cpu/kernels/elementwise_internal.h"
#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/vec_math.h"
#include "kernels/attrs.h"
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
using internal::kGrainMath;
using internal::kGrainScalarCall;
using internal::NodeDef;
using internal::RequireInput;
using internal::RequireOutput;
using internal::TensorView;

constexpr DataType kF32 = DataType::kFloat32;

// numpy maximum / minimum: NaN in either operand gives NaN (the first one when both are).
KILN_VEC_INLINE float NanMax(float a, float b) {
  const float r = vec::Select(b != b, b, vec::Select(a < b, b, a));
  return vec::Select(a != a, a, r);
}
KILN_VEC_INLINE float NanMin(float a, float b) {
  const float r = vec::Select(b != b, b, vec::Select(b < a, b, a));
  return vec::Select(a != a, a, r);
}

// ---------------------------------------------------------------------------------------------
// Leaf loops: one contiguous run; the cloned functions switch on the op once per run.

enum class BinOp : uint8_t { kAdd, kSub, kMul, kDiv, kMax, kMin, kMean, kPow, kPRelu };
enum class CmpOp : uint8_t { kEqual, kLess, kLessOrEqual, kGreater, kGreaterOrEqual };

// `kind` bit k set: operand k varies along the run; clear: its first element repeats.
template <typename Out, typename F>
KILN_VEC_INLINE void BinaryLoop(unsigned kind, const float* a, const float* b, Out* y, int64_t n,
                                F f) {
  if (kind == 3) {
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], b[i]);
  } else if (kind == 1) {
    const float s = b[0];
    for (int64_t i = 0; i < n; ++i) y[i] = f(a[i], s);
  } else if (kind == 2) {
    const float s = a[0];
    for (int64_t i = 0; i < n; ++i) y[i] = f(s, b[i]);
  } else {
    const Out v = f(a[0], b[0]);
    for (int64_t i = 0; i < n; ++i) y[i] = v;
  }
}

KILN_CPU_CLONES void BinaryLeaf(BinOp op, unsigned kind, const float* a, const float* b, float* y,
                                int64_t n) {
  switch (op) {
    case BinOp::kAdd:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p + q; });
      return;
    case BinOp::kSub:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p - q; });
      return;
    case BinOp::kMul:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p * q; });
      return;
    case BinOp::kDiv:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p / q; });
      return;
    case BinOp::kMax:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return NanMax(p, q); });
      return;
    case BinOp::kMin:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return NanMin(p, q); });
      return;
    case BinOp::kMean:  // the reference's order: the sum rounded, then halved
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return (p + q) / 2.0f; });
      return;
    case BinOp::kPow:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) { return std::pow(p, q); });
      return;
    case BinOp::kPRelu:
      BinaryLoop(kind, a, b, y, n,
                 [](float p, float q) KILN_VEC_LAMBDA { return vec::Select(p < 0.0f, p * q, p); });
      return;
  }
}

KILN_CPU_CLONES void CompareLeaf(CmpOp op, unsigned kind, const float* a, const float* b, bool* y,
                                 int64_t n) {
  switch (op) {
    case CmpOp::kEqual:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p == q; });
      return;
    case CmpOp::kLess:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p < q; });
      return;
    case CmpOp::kLessOrEqual:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p <= q; });
      return;
    case CmpOp::kGreater:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p > q; });
      return;
    case CmpOp::kGreaterOrEqual:
      BinaryLoop(kind, a, b, y, n, [](float p, float q) KILN_VEC_LAMBDA { return p >= q; });
      return;
  }
}

// Where over one run; the condition is read as bytes (any non-zero byte is true, as a bool
// tensor's bytes are 0 or 1). Both branches are loaded unconditionally so the select vectorises.
template <bool kC, bool kX, bool kY>
KILN_VEC_INLINE void WhereLoop(const uint8_t* c, const float* x, const float* y, float* out,
                               int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float xv = x[kX ? i : 0];
    const float yv = y[kY ? i : 0];
    out[i] = vec::Select(c[kC ? i : 0] != 0, xv, yv);
  }
}

// `kind` bit 0: the condition varies along the run, bit 1: X, bit 2: Y.
KILN_CPU_CLONES void WhereLeaf(unsigned kind, const uint8_t* c, const float* x, const float* y,
                               float* out, int64_t n) {
  switch (kind) {
    case 1:
      WhereLoop<true, false, false>(c, x, y, out, n);
      return;
    case 2:
      WhereLoop<false, true, false>(c, x, y, out, n);
      return;
    case 3:
      WhereLoop<true, true, false>(c, x, y, out, n);
      return;
    case 4:
      WhereLoop<false, false, true>(c, x, y, out, n);
      return;
    case 5:
      WhereLoop<true, false, true>(c, x, y, out, n);
      return;
    case 6:
      WhereLoop<false, true, true>(c, x, y, out, n);
      return;
    case 7:
      WhereLoop<true, true, true>(c, x, y, out, n);
      return;
    default:
      WhereLoop<false, false, false>(c, x, y, out, n);
      return;
  }
}

// clang-format off
enum class UnOp : uint8_t {
  kAbs, kCeil, kCelu, kClip, kElu, kErf, kExp, kFloor, kGelu, kGeluTanh, kHardSigmoid,
  kHardSwish, kLeakyRelu, kLog, kMish, kNeg, kReciprocal, kRelu, kRound, kSelu, kSigmoid, kSign,
  kSoftplus, kSoftsign, kSqrt, kSwish, kTanh, kThresholdedRelu,
  // Pow with a one-element exponent of 2, 0.5, 0 or 1.
  kSquare, kPowHalf, kOne, kCopy,
};
// clang-format on

struct UnaryArgs {
  UnOp op = UnOp::kRelu;
  float alpha = 0, beta = 0, gamma = 0;  // op attributes; Clip: alpha = min, beta = max
};

template <typename F>
KILN_VEC_INLINE void Map(const float* x, float* y, int64_t n, F f) {
  for (int64_t i = 0; i < n; ++i) y[i] = f(x[i]);
}

KILN_VEC_INLINE float Softplus(float v) {
  return vec::Select(v > 0.0f, v, 0.0f) + vec::Log1pUnit(vec::Exp(-vec::Abs(v)));
}

KILN_CPU_CLONES void UnaryLeaf(const UnaryArgs& p, const float* x, float* y, int64_t n) {
  const float alpha = p.alpha, beta = p.beta, gamma = p.gamma;
  switch (p.op) {
    case UnOp::kAbs:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return std::fabs(v); });
      return;
    case UnOp::kCeil:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Ceil(v); });
      return;
    case UnOp::kCelu:
      Map(x, y, n, [alpha](float v) KILN_VEC_LAMBDA {
        return NanMax(0.0f, v) + NanMin(0.0f, alpha * (vec::Exp(v / alpha) - 1.0f));
      });
      return;
    case UnOp::kClip:  // NaN stays NaN; min > max gives max (numpy clip), as the reference
      Map(x, y, n, [alpha, beta](float v) KILN_VEC_LAMBDA {
        v = vec::Select(v < alpha, alpha, v);
        return vec::Select(v > beta, beta, v);
      });
      return;
    case UnOp::kElu:
      Map(x, y, n, [alpha](float v) KILN_VEC_LAMBDA {
        return vec::Select(v > 0.0f, v, alpha * (vec::Exp(v) - 1.0f));
      });
      return;
    case UnOp::kErf:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Erf(v); });
      return;
    case UnOp::kExp:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Exp(v); });
      return;
    case UnOp::kFloor:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Floor(v); });
      return;
    case UnOp::kGelu:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA {
        return 0.5f * v * (1.0f + vec::Erf(v * 0.70710678118654752440f));
      });
      return;
    case UnOp::kGeluTanh:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA {
        const float k = 0.79788456080286535588f;  // sqrt(2 / pi)
        return 0.5f * v * (1.0f + vec::Tanh(k * (v + 0.044715f * v * v * v)));
      });
      return;
    case UnOp::kHardSigmoid:
      Map(x, y, n, [alpha, beta](float v) KILN_VEC_LAMBDA {
        return NanMax(0.0f, NanMin(1.0f, alpha * v + beta));
      });
      return;
    case UnOp::kHardSwish:
      Map(x, y, n,
          [](float v) KILN_VEC_LAMBDA { return v * NanMax(0.0f, NanMin(1.0f, v / 6.0f + 0.5f)); });
      return;
    case UnOp::kLeakyRelu:
      Map(x, y, n,
          [alpha](float v) KILN_VEC_LAMBDA { return vec::Select(v < 0.0f, alpha * v, v); });
      return;
    case UnOp::kLog:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Log(v); });
      return;
    case UnOp::kMish:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return v * vec::Tanh(Softplus(v)); });
      return;
    case UnOp::kNeg:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return -v; });
      return;
    case UnOp::kReciprocal:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return 1.0f / v; });
      return;
    case UnOp::kRelu:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Select(v < 0.0f, 0.0f, v); });
      return;
    case UnOp::kRound:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::RoundHalfEven(v); });
      return;
    case UnOp::kSelu:
      Map(x, y, n, [alpha, gamma](float v) KILN_VEC_LAMBDA {
        return vec::Select(v > 0.0f, gamma * v, gamma * (alpha * vec::Exp(v) - alpha));
      });
      return;
    case UnOp::kSigmoid:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Sigmoid(v); });
      return;
    case UnOp::kSign:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA {
        float s = vec::Select(v == 0.0f, 0.0f, v);  // +0 for either zero; NaN stays
        s = vec::Select(v < 0.0f, -1.0f, s);
        return vec::Select(v > 0.0f, 1.0f, s);
      });
      return;
    case UnOp::kSoftplus:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return Softplus(v); });
      return;
    case UnOp::kSoftsign:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return v / (1.0f + std::fabs(v)); });
      return;
    case UnOp::kSqrt:  // a scalar call: -fmath-errno keeps GCC from vectorising sqrt
      Map(x, y, n, [](float v) { return std::sqrt(v); });
      return;
    case UnOp::kSwish:
      Map(x, y, n, [alpha](float v) KILN_VEC_LAMBDA { return v * vec::Sigmoid(alpha * v); });
      return;
    case UnOp::kTanh:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return vec::Tanh(v); });
      return;
    case UnOp::kThresholdedRelu:
      Map(x, y, n, [alpha](float v) KILN_VEC_LAMBDA { return vec::Select(v > alpha, v, 0.0f); });
      return;
    case UnOp::kSquare:
      Map(x, y, n, [](float v) KILN_VEC_LAMBDA { return v * v; });
      return;
    case UnOp::kPowHalf:  // pow(-0, 0.5) = +0 and pow(-inf, 0.5) = +inf, unlike sqrt
      Map(x, y, n, [](float v) {
        const float r = std::sqrt(v) + 0.0f;
        return v == -vec::kInf ? vec::kInf : r;
      });
      return;
    case UnOp::kOne:  // pow(x, 0) = 1 for every x, NaN included
      Map(x, y, n, [](float) KILN_VEC_LAMBDA { return 1.0f; });
      return;
    case UnOp::kCopy:
      if (x != y) std::memmove(y, x, static_cast<size_t>(n) * sizeof(float));
      return;
  }
}

// ---------------------------------------------------------------------------------------------
// Broadcasting plan.

constexpr int kMaxSegments = 16;
constexpr int kMaxOperands = 9;  // ArithmeticChain's most inputs (ir/ops/fused.cc)

struct Broadcast {
  int64_t size = 0;  // the output's elements
  int segments = 0;
  int64_t extent[kMaxSegments];
  // Element stride of each operand along each segment: 0 where it repeats, and along the
  // innermost segment 1 or 0.
  int64_t stride[kMaxOperands][kMaxSegments];
  unsigned inner = 0;  // bit k: operand k varies along the innermost segment
};

// Plans `count` operands broadcast (numpy rules) to the output dims `out` and collapses the
// result (see the file comment); false when an operand does not fit `out` or the plan needs
// more than kMaxSegments segments (the reference kernel takes those runs).
bool PlanBroadcast(const Dims* const* shapes, int count, const Dims& out, Broadcast& b) {
  const size_t rank = out.size();
  for (int k = 0; k < count; ++k) {
    if (shapes[k]->size() > rank) return false;
  }
  b.segments = 0;
  unsigned masks[kMaxSegments];
  for (size_t d = 0; d < rank; ++d) {
    const int64_t n = out[d];
    unsigned mask = 0;  // operands that repeat along this dim
    for (int k = 0; k < count; ++k) {
      const Dims& s = *shapes[k];
      const size_t lead = rank - s.size();
      const int64_t in = d < lead ? 1 : s[d - lead];
      if (in != n && in != 1) return false;
      if (in == 1) mask |= 1u << k;
    }
    if (n == 1) continue;  // every operand has 1 here
    if (b.segments > 0 && masks[b.segments - 1] == mask) {
      b.extent[b.segments - 1] *= n;
    } else {
      if (b.segments == kMaxSegments) return false;
      masks[b.segments] = mask;
      b.extent[b.segments++] = n;
    }
  }
  if (b.segments == 0) {  // one element
    masks[0] = 0;
    b.extent[0] = 1;
    b.segments = 1;
  }
  for (int k = 0; k < count; ++k) {
    int64_t step = 1;
    for (int s = b.segments - 1; s >= 0; --s) {
      if (masks[s] & (1u << k)) {
        b.stride[k][s] = 0;
      } else {
        b.stride[k][s] = step;
        step *= b.extent[s];
      }
    }
  }
  b.inner = ~masks[b.segments - 1] & ((1u << count) - 1);
  b.size = kernels::NumElements(out);
  return true;
}

// Calls leaf(offsets, out_pos, len) for the contiguous runs covering output elements
// [begin, end): offsets[k] is where operand k's run starts.
template <int kCount, typename Leaf>
void ForRuns(const Broadcast& b, int64_t begin, int64_t end, Leaf&& leaf) {
  const int last = b.segments - 1;
  const int64_t inner = b.extent[last];
  int64_t outer = begin / inner;
  int64_t i0 = begin - outer * inner;
  int64_t idx[kMaxSegments];
  int64_t off[kCount] = {};
  for (int s = last - 1; s >= 0; --s) {
    idx[s] = outer % b.extent[s];
    outer /= b.extent[s];
    for (int k = 0; k < kCount; ++k) off[k] += idx[s] * b.stride[k][s];
  }
  for (int64_t pos = begin; pos < end;) {
    const int64_t len = std::min(inner - i0, end - pos);
    int64_t at[kCount];
    for (int k = 0; k < kCount; ++k) at[k] = off[k] + i0 * b.stride[k][last];
    leaf(at, pos, len);
    pos += len;
    i0 = 0;
    for (int s = last - 1; s >= 0; --s) {
      for (int k = 0; k < kCount; ++k) off[k] += b.stride[k][s];
      if (++idx[s] < b.extent[s]) break;
      for (int k = 0; k < kCount; ++k) off[k] -= b.stride[k][s] * b.extent[s];
      idx[s] = 0;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Kernels.

// Runs `args` over the `n` floats of `x` into `y` (same count), split across the pool.
void RunUnary(KernelContext& ctx, const UnaryArgs& args, int64_t grain, const float* x, float* y,
              int64_t n) {
  ctx.ParallelFor(n, grain, [&](int64_t begin, int64_t end) {
    UnaryLeaf(args, x + begin, y + begin, end - begin);
  });
}

int64_t UnaryGrain(UnOp op) {
  switch (op) {
    case UnOp::kSqrt:
    case UnOp::kPowHalf:
      return kGrainScalarCall;
    case UnOp::kCelu:
    case UnOp::kElu:
    case UnOp::kErf:
    case UnOp::kExp:
    case UnOp::kGelu:
    case UnOp::kGeluTanh:
    case UnOp::kLog:
    case UnOp::kMish:
    case UnOp::kSelu:
    case UnOp::kSigmoid:
    case UnOp::kSoftplus:
    case UnOp::kSwish:
    case UnOp::kTanh:
      return kGrainMath;
    default:
      return kGrainCheap;
  }
}

class UnaryKernel final : public FallbackKernel {
 public:
  UnaryKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, UnaryArgs args)
      : FallbackKernel(def, std::move(reference)), args_(args) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    RunUnary(ctx, args_, UnaryGrain(args_.op), x->as<const float>(), y->as<float>(),
             x->num_elements());
    return Status::Ok();
  }

 private:
  UnaryArgs args_;
};

// Clip: bounds from the attributes before opset 11, else from the optional one-element inputs
// 1 and 2 (constant or computed), read each run.
class ClipKernel final : public FallbackKernel {
 public:
  ClipKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : FallbackKernel(def, std::move(reference)) {
    if (def.opset < 11) {
      from_attrs_ = true;
      lo_ = def.attr_float("min");
      hi_ = def.attr_float("max");
    }
  }

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    UnaryArgs args{UnOp::kClip, lo_, hi_, 0};
    if (!from_attrs_) {
      args.alpha = std::numeric_limits<float>::lowest();
      args.beta = std::numeric_limits<float>::max();
      for (size_t i = 1; i < 3; ++i) {
        const TensorView* b = i < ctx.num_inputs() ? ctx.input(i) : nullptr;
        if (b == nullptr) continue;
        // A bound of run-time dims that are not one element: the reference reports it.
        if (b->num_elements() != 1) return RunReference(ctx);
        (i == 1 ? args.alpha : args.beta) = b->as<const float>()[0];
      }
    }
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    RunUnary(ctx, args, kGrainCheap, x->as<const float>(), y->as<float>(), x->num_elements());
    return Status::Ok();
  }

 private:
  bool from_attrs_ = false;
  float lo_ = 0, hi_ = 0;
};

// The binary kernels: arithmetic (float out) or comparisons (bool out).
class BinaryKernel final : public FallbackKernel {
 public:
  BinaryKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, BinOp op)
      : FallbackKernel(def, std::move(reference)), op_(op), compare_(false) {}
  BinaryKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, CmpOp op)
      : FallbackKernel(def, std::move(reference)), cmp_(op), compare_(true) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* a = ctx.input(0);
    const TensorView* b = ctx.input(1);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    const Dims* shapes[] = {&a->dims, &b->dims};
    Broadcast bc;
    if (!PlanBroadcast(shapes, 2, y->dims, bc)) return RunReference(ctx);
    if (!compare_ && op_ == BinOp::kPow && b->num_elements() == 1) {
      if (auto fast = PowFastPath(b->as<const float>()[0])) {
        // One exponent: the output has a's elements in a's order (dims possibly with more
        // leading 1s).
        RunUnary(ctx, UnaryArgs{*fast}, kGrainCheap, a->as<const float>(), y->as<float>(), bc.size);
        return Status::Ok();
      }
    }
    const float* pa = a->as<const float>();
    const float* pb = b->as<const float>();
    const int64_t grain = !compare_ && op_ == BinOp::kPow ? kGrainScalarCall : kGrainCheap;
    if (compare_) {
      bool* py = y->as<bool>();
      ctx.ParallelFor(bc.size, grain, [&](int64_t begin, int64_t end) {
        ForRuns<2>(bc, begin, end, [&](const int64_t* at, int64_t pos, int64_t len) {
          CompareLeaf(cmp_, bc.inner, pa + at[0], pb + at[1], py + pos, len);
        });
      });
    } else {
      float* py = y->as<float>();
      ctx.ParallelFor(bc.size, grain, [&](int64_t begin, int64_t end) {
        ForRuns<2>(bc, begin, end, [&](const int64_t* at, int64_t pos, int64_t len) {
          BinaryLeaf(op_, bc.inner, pa + at[0], pb + at[1], py + pos, len);
        });
      });
    }
    return Status::Ok();
  }

 private:
  // The unary op computing pow(x, e) exactly as the reference (double pow rounded to float).
  static std::optional<UnOp> PowFastPath(float e) {
    if (e == 2.0f) return UnOp::kSquare;  // x * x is exact in double, so one rounding either way
    if (e == 0.5f) return UnOp::kPowHalf;
    if (e == 1.0f) return UnOp::kCopy;
    if (e == 0.0f) return UnOp::kOne;
    if (e == -1.0f) return UnOp::kReciprocal;
    return std::nullopt;
  }

  BinOp op_ = BinOp::kAdd;
  CmpOp cmp_ = CmpOp::kEqual;
  bool compare_;
};

// com.kiln ArithmeticChain: one pass over the output, in blocks of kChainBlock elements; every
// step applies BinaryLeaf to the block in place in the output, so the running value stays in L1
// and each step rounds as the unfused node did (bit-identical to the Add / Sub / Mul / Div nodes
// it replaces). Where the broadcast plan's contiguous runs are long (same-shape operands, a
// per-channel operand of NCHW), a block lies within one run and the operands are read where they
// are; where they are short (a per-channel operand of a channels-last tensor repeats every C
// elements), a block spans many runs and each broadcast operand is first gathered into a block of
// its own. With kiln_nhwc the rank-4 dims are read in the stored order (N, H, W, C, or N, C/b, H,
// W, b with kiln_cblock; the definition admits only inputs whose bytes are the same in both).
class ArithmeticChainKernel final : public FallbackKernel {
 public:
  ArithmeticChainKernel(const NodeDef& def, std::unique_ptr<Kernel> reference,
                        std::vector<kernels::ChainStep> steps)
      : FallbackKernel(def, std::move(reference)),
        steps_(std::move(steps)),
        relu_(def.attr_string("activation") == "Relu"),
        nhwc_(def.attr_int("kiln_nhwc") == 1),
        block_(def.attr_int("kiln_cblock")) {}

  // With kiln_nhwc, the reordered dims of the inputs and the output, per execution slot (they
  // keep their capacity, so only a slot's first run allocates).
  struct StoredDims : kernels::KernelState {
    Dims dims[kMaxOperands + 1];
  };
  std::unique_ptr<kernels::KernelState> CreateState() const override {
    if (!nhwc_) return nullptr;
    return std::make_unique<StoredDims>();
  }

  Status Run(KernelContext& ctx) const override {
    const int count = static_cast<int>(steps_.size()) + 1;  // <= kMaxOperands: Make checked
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    StoredDims local;
    auto* stored = static_cast<StoredDims*>(ctx.state());
    if (stored == nullptr) stored = &local;
    const Dims* shapes[kMaxOperands];
    const float* x[kMaxOperands] = {};
    for (int k = 0; k < count; ++k) {
      const TensorView* t = ctx.input(static_cast<size_t>(k));
      if (t == nullptr || t->dtype != kF32) return RunReference(ctx);
      shapes[k] = Stored(t->dims, &stored->dims[k]);
      x[k] = t->as<const float>();
    }
    const Dims* out = Stored(y->dims, &stored->dims[kMaxOperands]);
    Broadcast bc{};  // the unused operands' strides stay 0
    if (!PlanBroadcast(shapes, count, *out, bc)) return RunReference(ctx);
    float* py = y->as<float>();
    if (RunPeriodic(ctx, bc, count, x, py)) return Status::Ok();
    if (bc.extent[bc.segments - 1] >= kLongRun) {
      ctx.ParallelFor(bc.size, kGrainCheap, [&](int64_t begin, int64_t end) {
        ForRuns<kMaxOperands>(bc, begin, end, [&](const int64_t* at, int64_t pos, int64_t len) {
          const float* src[kMaxOperands];
          for (int64_t o = 0; o < len; o += kChainBlock) {
            for (int k = 0; k < count; ++k) src[k] = x[k] + at[k] + ((bc.inner >> k & 1u) ? o : 0);
            Steps(src, bc.inner, py + pos + o, std::min(kChainBlock, len - o));
          }
        });
      });
      return Status::Ok();
    }
    // Short runs. Each operand is read in place (one of the output's elements: it runs along),
    // repeated (one element) or gathered.
    unsigned direct = 0, gather = 0;
    for (int k = 0; k < count; ++k) {
      const int64_t n = kernels::NumElements(*shapes[k]);
      if (n == bc.size) {
        direct |= 1u << k;
      } else if (n != 1) {
        gather |= 1u << k;
      }
    }
    ctx.ParallelFor(bc.size, kGrainCheap, [&](int64_t begin, int64_t end) {
      float blocks[kMaxOperands][kChainBlock];
      const float* src[kMaxOperands];
      for (int64_t b = begin; b < end; b += kChainBlock) {
        const int64_t n = std::min(kChainBlock, end - b);
        for (int k = 0; k < count; ++k) {
          src[k] = direct >> k & 1u ? x[k] + b : gather >> k & 1u ? blocks[k] : x[k];
        }
        ForRuns<kMaxOperands>(bc, b, b + n, [&](const int64_t* at, int64_t pos, int64_t len) {
          for (int k = 0; k < count; ++k) {
            if (!(gather >> k & 1u)) continue;
            float* to = blocks[k] + (pos - b);
            if (bc.inner >> k & 1u) {
              std::memcpy(to, x[k] + at[k], static_cast<size_t>(len) * sizeof(float));
            } else {
              std::fill(to, to + len, x[k][at[k]]);
            }
          }
        });
        Steps(src, direct | gather, py + b, n);
      }
    });
    return Status::Ok();
  }

 private:
  // Elements per block (the running value, and each gathered operand, stay in L1).
  static constexpr int64_t kChainBlock = 1024;
  // Runs at least this long are taken one at a time, their operands read in place.
  static constexpr int64_t kLongRun = 256;
  // The longest period RunPeriodic tiles (a tile of up to kChainBlock + 2 periods per operand).
  static constexpr int64_t kMaxPeriod = 4096;

  // The operands that are neither of the output's size nor one element, when each of them repeats
  // with the period of the innermost segment (it varies along that segment and along no other):
  // the per-channel operand [1, 1, 1, C] of a tensor stored NHWC, the last axis's operand of any
  // tensor. Each is then read from a tile of itself repeated past kChainBlock + period elements,
  // made once per chunk of the work: a block starting at output element b reads tile + b % period
  // in place, with none of the short-run path's per-run gathering (DenseNet-121's
  // BatchNormalization chains on NHWC took 5-8x a Relu's time over the same tensor that way).
  // A tiled operand may also vary along the outermost of three or more segments and repeat along
  // those between: the per-channel operand [1, C/b, 1, 1, b] of a tensor in channel blocks
  // (segments C/b, H*W, b), whose tile is then made again for each slice of the outermost
  // segment (3.3x the time otherwise on DenseNet-121's chains). Whether it ran them.
  bool RunPeriodic(KernelContext& ctx, const Broadcast& bc, int count, const float* const* x,
                   float* py) const {
    const int last = bc.segments - 1;
    const int64_t period = bc.extent[last];
    if (last == 0 || period > kMaxPeriod) return false;
    unsigned direct = 0, tiled = 0;
    for (int k = 0; k < count; ++k) {
      bool full = true, repeats = true, between = true;  // between: repeats past segment 0
      for (int seg = 0; seg < last; ++seg) {
        full &= bc.stride[k][seg] != 0;
        repeats &= bc.stride[k][seg] == 0;
        between &= seg == 0 || bc.stride[k][seg] == 0;
      }
      const bool inner = bc.inner >> k & 1u;
      if (inner && full) {
        direct |= 1u << k;
      } else if (inner && (repeats || (last >= 2 && between))) {
        tiled |= 1u << k;
      } else if (inner || !repeats) {
        return false;  // neither whole, periodic nor one element
      }
    }
    if (tiled == 0) return false;
    bool sliced = false;  // some tiled operand varies along the outermost segment
    for (int k = 0; k < count; ++k) sliced |= (tiled >> k & 1u) && bc.stride[k][0] != 0;
    // Output elements per tile (a multiple of the period): an index of the outermost segment.
    const int64_t slice = sliced ? bc.size / bc.extent[0] : bc.size;
    const int64_t tile = (kChainBlock + 2 * period - 1) / period * period;  // >= block + period
    ctx.ParallelFor(bc.size, kGrainCheap, [&](int64_t begin, int64_t end) {
      thread_local std::vector<float> tiles;
      tiles.resize(static_cast<size_t>(tile * count));
      const float* src[kMaxOperands];
      int64_t made = -1;  // the slice the tiles hold
      for (int64_t b = begin; b < end;) {
        const int64_t at_slice = b / slice;
        const int64_t n = std::min({kChainBlock, end - b, (at_slice + 1) * slice - b});
        if (at_slice != made) {
          for (int k = 0; k < count; ++k) {
            if (!(tiled >> k & 1u)) continue;
            float* t = tiles.data() + k * tile;
            const float* from = x[k] + at_slice * bc.stride[k][0];  // stride 0: the same each
            for (int64_t at = 0; at < tile; at += period) {
              std::memcpy(t + at, from, static_cast<size_t>(period) * sizeof(float));
            }
          }
          made = at_slice;
        }
        for (int k = 0; k < count; ++k) {
          src[k] = direct >> k & 1u  ? x[k] + b
                   : tiled >> k & 1u ? tiles.data() + k * tile + b % period
                                     : x[k];
        }
        Steps(src, direct | tiled, py + b, n);
        b += n;
      }
    });
    return true;
  }

  // The steps over one block of n output elements into v: src[k] is operand k's block, or its one
  // element when bit k of `vary` is clear.
  void Steps(const float* const* src, unsigned vary, float* v, int64_t n) const {
    auto varies = [vary](int k) { return vary >> k & 1u; };
    const kernels::ChainStep& first = steps_[0];
    if (first.swapped) {
      BinaryLeaf(Op(first), varies(1) | varies(0) << 1, src[1], src[0], v, n);
    } else {
      BinaryLeaf(Op(first), varies(0) | varies(1) << 1, src[0], src[1], v, n);
    }
    for (size_t i = 1; i < steps_.size(); ++i) {
      const int k = static_cast<int>(i) + 1;
      if (steps_[i].swapped) {
        BinaryLeaf(Op(steps_[i]), varies(k) | 2u, src[k], v, v, n);
      } else {
        BinaryLeaf(Op(steps_[i]), 1u | varies(k) << 1, v, src[k], v, n);
      }
    }
    if (relu_) UnaryLeaf(UnaryArgs{UnOp::kRelu}, v, v, n);
  }

  static BinOp Op(const kernels::ChainStep& s) {
    switch (s.op) {
      case kernels::ChainStep::kAdd:
        return BinOp::kAdd;
      case kernels::ChainStep::kSub:
        return BinOp::kSub;
      case kernels::ChainStep::kMul:
        return BinOp::kMul;
      case kernels::ChainStep::kDiv:
        return BinOp::kDiv;
    }
    return BinOp::kAdd;
  }
  // `d` in the stored order: itself, or with kiln_nhwc its rank-4 dims reordered (into channel
  // blocks with kiln_cblock) into `scratch`.
  const Dims* Stored(const Dims& d, Dims* scratch) const {
    if (!nhwc_) return &d;
    kernels::StoredDims(d, block_, scratch);
    return scratch;
  }

  std::vector<kernels::ChainStep> steps_;
  bool relu_;  // activation "Relu": the block's value through Relu after the steps, in L1
  bool nhwc_;
  int64_t block_;  // kiln_cblock: channel blocks of this size instead of NHWC (0: NHWC)
};

class WhereKernel final : public FallbackKernel {
 public:
  WhereKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : FallbackKernel(def, std::move(reference)) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* c = ctx.input(0);
    const TensorView* x = ctx.input(1);
    const TensorView* y = ctx.input(2);
    KILN_ASSIGN_OR_RETURN(TensorView * out, kernels::BoundOutput(def_, ctx, 0));
    const Dims* shapes[] = {&c->dims, &x->dims, &y->dims};
    Broadcast bc;
    if (!PlanBroadcast(shapes, 3, out->dims, bc)) return RunReference(ctx);
    const auto* pc = c->as<const uint8_t>();
    const float* px = x->as<const float>();
    const float* py = y->as<const float>();
    float* po = out->as<float>();
    ctx.ParallelFor(bc.size, kGrainCheap, [&](int64_t begin, int64_t end) {
      ForRuns<3>(bc, begin, end, [&](const int64_t* at, int64_t pos, int64_t len) {
        WhereLeaf(bc.inner, pc + at[0], px + at[1], py + at[2], po + pos, len);
      });
    });
    return Status::Ok();
  }
};

// ---------------------------------------------------------------------------------------------
// Prepare.

using Made = Result<std::unique_ptr<Kernel>>;

Made MakeUnary(const KernelRegistry& registry, const NodeDef& def, UnOp op) {
  KILN_RETURN_IF_ERROR(RequireInput(def, 0, kF32), "");
  KILN_RETURN_IF_ERROR(RequireOutput(def, 0, kF32), "");
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  UnaryArgs args;
  args.op = op;
  switch (op) {
    case UnOp::kCelu:
    case UnOp::kElu:
    case UnOp::kSwish:
    case UnOp::kThresholdedRelu:
    case UnOp::kLeakyRelu:
      args.alpha = def.attr_float("alpha");
      break;
    case UnOp::kHardSigmoid:
      args.alpha = def.attr_float("alpha");
      args.beta = def.attr_float("beta");
      break;
    case UnOp::kSelu:
      args.alpha = def.attr_float("alpha");
      args.gamma = def.attr_float("gamma");
      break;
    case UnOp::kGelu:  // "none" or "tanh" (the definition checked it)
      if (def.attr_string("approximate") == "tanh") args.op = UnOp::kGeluTanh;
      break;
    default:
      break;
  }
  return std::unique_ptr<Kernel>(std::make_unique<UnaryKernel>(def, std::move(reference), args));
}

Made MakeClip(const KernelRegistry& registry, const NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireInput(def, 0, kF32), "");
  for (size_t i = 1; i < def.num_inputs(); ++i) {
    if (def.input_given(i)) KILN_RETURN_IF_ERROR(RequireInput(def, i, kF32), "");
  }
  KILN_RETURN_IF_ERROR(RequireOutput(def, 0, kF32), "");
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  return std::unique_ptr<Kernel>(std::make_unique<ClipKernel>(def, std::move(reference)));
}

// Two float32 inputs (the variadic ops with another count are the reference's).
template <typename Op>
Made MakeBinary(const KernelRegistry& registry, const NodeDef& def, Op op, DataType out) {
  if (def.num_inputs() != 2) {
    return def.Fail(code::kFeatureUnsupported, "the cpu kernel takes two inputs, not ",
                    def.num_inputs());
  }
  KILN_RETURN_IF_ERROR(RequireInput(def, 0, kF32), "");
  KILN_RETURN_IF_ERROR(RequireInput(def, 1, kF32), "");
  KILN_RETURN_IF_ERROR(RequireOutput(def, 0, out), "");
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  return std::unique_ptr<Kernel>(std::make_unique<BinaryKernel>(def, std::move(reference), op));
}

Made MakeArithmeticChain(const KernelRegistry& registry, const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(std::vector<kernels::ChainStep> steps, kernels::ReadChainSteps(def));
  if (steps.empty() || def.num_inputs() != steps.size() + 1 ||
      def.num_inputs() > static_cast<size_t>(kMaxOperands)) {
    return def.Fail(code::kFeatureUnsupported, "the cpu kernel takes 2 to ", kMaxOperands - 1,
                    " steps with one input each, not ", def.num_inputs(), " inputs");
  }
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    KILN_RETURN_IF_ERROR(RequireInput(def, i, kF32), "");
  }
  KILN_RETURN_IF_ERROR(RequireOutput(def, 0, kF32), "");
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  return std::unique_ptr<Kernel>(
      std::make_unique<ArithmeticChainKernel>(def, std::move(reference), std::move(steps)));
}

Made MakeWhere(const KernelRegistry& registry, const NodeDef& def) {
  KILN_RETURN_IF_ERROR(RequireInput(def, 0, DataType::kBool), "");
  KILN_RETURN_IF_ERROR(RequireInput(def, 1, kF32), "");
  KILN_RETURN_IF_ERROR(RequireInput(def, 2, kF32), "");
  KILN_RETURN_IF_ERROR(RequireOutput(def, 0, kF32), "");
  KILN_ASSIGN_OR_RETURN(auto reference, internal::PrepareReference(registry, def));
  return std::unique_ptr<Kernel>(std::make_unique<WhereKernel>(def, std::move(reference)));
}

}  // namespace

void internal::ApplyActivation(const kernels::ActivationAttrs& act, float* y, int64_t n) {
  using Kind = kernels::ActivationKind;
  UnaryArgs a;
  a.alpha = act.alpha;
  a.beta = act.beta;
  switch (act.kind) {
    case Kind::kNone:
      return;
    case Kind::kRelu:
      a.op = UnOp::kRelu;
      break;
    case Kind::kLeakyRelu:
      a.op = UnOp::kLeakyRelu;
      break;
    case Kind::kClip:
      a.op = UnOp::kClip;
      break;
    case Kind::kSigmoid:
      a.op = UnOp::kSigmoid;
      break;
    case Kind::kTanh:
      a.op = UnOp::kTanh;
      break;
    case Kind::kHardSigmoid:
      a.op = UnOp::kHardSigmoid;
      break;
    case Kind::kHardSwish:
      a.op = UnOp::kHardSwish;
      break;
    case Kind::kGelu:
      a.op = UnOp::kGelu;
      break;
    case Kind::kSwish:
      a.op = UnOp::kSwish;
      break;
  }
  UnaryLeaf(a, y, y, n);
}

void RegisterCpuElementwiseKernels(KernelRegistry& registry) {
  const KernelRegistry* r = &registry;
  const std::pair<const char*, UnOp> unary[] = {
      {"Abs", UnOp::kAbs},
      {"Ceil", UnOp::kCeil},
      {"Celu", UnOp::kCelu},
      {"Elu", UnOp::kElu},
      {"Erf", UnOp::kErf},
      {"Exp", UnOp::kExp},
      {"Floor", UnOp::kFloor},
      {"Gelu", UnOp::kGelu},
      {"HardSigmoid", UnOp::kHardSigmoid},
      {"HardSwish", UnOp::kHardSwish},
      {"LeakyRelu", UnOp::kLeakyRelu},
      {"Log", UnOp::kLog},
      {"Mish", UnOp::kMish},
      {"Neg", UnOp::kNeg},
      {"Reciprocal", UnOp::kReciprocal},
      {"Relu", UnOp::kRelu},
      {"Round", UnOp::kRound},
      {"Selu", UnOp::kSelu},
      {"Sigmoid", UnOp::kSigmoid},
      {"Sign", UnOp::kSign},
      {"Softplus", UnOp::kSoftplus},
      {"Softsign", UnOp::kSoftsign},
      {"Sqrt", UnOp::kSqrt},
      {"Swish", UnOp::kSwish},
      {"Tanh", UnOp::kTanh},
      {"ThresholdedRelu", UnOp::kThresholdedRelu},
  };
  for (const auto& [name, op] : unary) {
    registry.Register(internal::kCpu, "", name,
                      [r, op = op](const NodeDef& def) { return MakeUnary(*r, def, op); });
  }
  registry.Register(internal::kCpu, "", "Clip",
                    [r](const NodeDef& def) { return MakeClip(*r, def); });

  const std::pair<const char*, BinOp> binary[] = {
      {"Add", BinOp::kAdd}, {"Sub", BinOp::kSub},     {"Mul", BinOp::kMul}, {"Div", BinOp::kDiv},
      {"Max", BinOp::kMax}, {"Min", BinOp::kMin},     {"Sum", BinOp::kAdd}, {"Mean", BinOp::kMean},
      {"Pow", BinOp::kPow}, {"PRelu", BinOp::kPRelu},
  };
  for (const auto& [name, op] : binary) {
    registry.Register(internal::kCpu, "", name,
                      [r, op = op](const NodeDef& def) { return MakeBinary(*r, def, op, kF32); });
  }
  const std::pair<const char*, CmpOp> compares[] = {
      {"Equal", CmpOp::kEqual},
      {"Less", CmpOp::kLess},
      {"LessOrEqual", CmpOp::kLessOrEqual},
      {"Greater", CmpOp::kGreater},
      {"GreaterOrEqual", CmpOp::kGreaterOrEqual},
  };
  for (const auto& [name, op] : compares) {
    registry.Register(internal::kCpu, "", name, [r, op = op](const NodeDef& def) {
      return MakeBinary(*r, def, op, DataType::kBool);
    });
  }
  registry.Register(internal::kCpu, "", "Where",
                    [r](const NodeDef& def) { return MakeWhere(*r, def); });
  registry.Register(internal::kCpu, "com.kiln", "ArithmeticChain",
                    [r](const NodeDef& def) { return MakeArithmeticChain(*r, def); });
}

}  // namespace kiln::cpu
