// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the elementwise family (ir/ops/elementwise.cc): unary math and
// activations, broadcasting binary and variadic arithmetic, comparisons, logic and bitwise ops,
// Pow, PRelu, Where, Clip, Cast/CastLike/BitCast, Identity and Dropout (inference).
//
// Integer arithmetic wraps modulo 2^bits (no undefined behaviour on overflow); integer division
// and Mod by zero give 0. Float-to-integer conversions truncate toward zero, map NaN to 0 and
// wrap values outside the target range modulo 2^bits (numpy's astype on x86), saturating only
// beyond the int64/uint64 range. float16/bfloat16 are computed in float.
//
// The op definitions (ir/ops/elementwise.cc) have checked every node these kernels see (types,
// attributes, shapes) and derived its output dims; the kernels write into the outputs the
// executor bound.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "kernels/low_precision_elements.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// ---------------------------------------------------------------------------------------------
// Shared plumbing.

// A kernel that keeps its node and prepared parameters and runs a plain function.
template <typename P>
class BoundKernel final : public Kernel {
 public:
  using Fn = Status (*)(const NodeDef& def, const P& p, KernelContext& ctx);
  BoundKernel(const NodeDef& def, P p, Fn fn) : def_(def), p_(std::move(p)), fn_(fn) {}
  Status Run(KernelContext& ctx) const override { return fn_(def_, p_, ctx); }

 private:
  NodeDef def_;
  P p_;
  Fn fn_;
};

template <typename P>
Result<std::unique_ptr<Kernel>> Bind(const NodeDef& def, P p, typename BoundKernel<P>::Fn fn) {
  return std::unique_ptr<Kernel>(std::make_unique<BoundKernel<P>>(def, std::move(p), fn));
}

// Kiln has no string kernels: Prepare refuses a node with string inputs or outputs (valid
// ONNX for Identity, Where, Cast and a few others) as a capability of these kernels.
Status RefuseStrings(const NodeDef& def) {
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (def.input_given(i) && def.input_types[i] == DataType::kString) {
      return def.Fail(code::kFeatureUnsupported, "input ", i, " is string; Kiln has no string ",
                      "kernels");
    }
  }
  for (size_t i = 0; i < def.num_outputs(); ++i) {
    if (def.output_used(i) && def.output_types[i] == DataType::kString) {
      return def.Fail(code::kFeatureUnsupported, "output ", i, " is string; Kiln has no string ",
                      "kernels");
    }
  }
  return Status::Ok();
}

// Where each element of the bound output reads each input (numpy broadcasting of the inputs to
// the output's dims, which the shape function derived). Same-shape and one-element inputs are
// read directly; only the others get a precomputed index.
class Broadcaster {
 public:
  // kInvalidParam when an input's run-time dims do not broadcast to `out` (dims the load-time
  // check could not see), so no index can leave its input.
  static Result<Broadcaster> Make(const NodeDef& def, const std::vector<const TensorView*>& ins,
                                  const Dims& out) {
    Broadcaster b;
    b.size_ = NumElements(out);
    for (const TensorView* t : ins) {
      if (!Fits(t->dims, out)) {
        return def.Fail(code::kInvalidParam, "input dims ", DimsString(t->dims),
                        " do not broadcast to the output dims ", DimsString(out));
      }
      Map m;
      if (t->num_elements() == b.size_) {
        m.mode = kSame;
      } else if (t->num_elements() == 1) {
        m.mode = kScalar;
      } else {
        m.mode = kIndexed;
        m.index = BroadcastIndex(t->dims, out);
      }
      b.maps_.push_back(std::move(m));
    }
    return b;
  }
  int64_t size() const { return size_; }
  // Flat index into input `i` of output element k.
  int64_t at(size_t i, int64_t k) const {
    const Map& m = maps_[i];
    if (m.mode == kSame) return k;
    if (m.mode == kScalar) return 0;
    return m.index[static_cast<size_t>(k)];
  }

 private:
  enum Mode { kSame, kScalar, kIndexed };
  struct Map {
    Mode mode = kSame;
    std::vector<int64_t> index;
  };
  // Whether `in` broadcasts to `out`: no higher rank, each aligned dim equal or 1.
  static bool Fits(const Dims& in, const Dims& out) {
    if (in.size() > out.size()) return false;
    const size_t lead = out.size() - in.size();
    for (size_t i = 0; i < in.size(); ++i) {
      if (in[i] != 1 && in[i] != out[lead + i]) return false;
    }
    return true;
  }
  int64_t size_ = 0;
  std::vector<Map> maps_;
};

// Integer arithmetic modulo 2^bits.
template <typename T>
T WrapAdd(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
template <typename T>
T WrapSub(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
template <typename T>
T WrapMul(T a, T b) {
  return static_cast<T>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
template <typename T>
T WrapNeg(T a) {
  return static_cast<T>(uint64_t{0} - static_cast<uint64_t>(a));
}

// C++-style division (truncating toward zero); 0 for a zero divisor.
template <typename T>
T IntDiv(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return WrapNeg(a);
  }
  return static_cast<T>(a / b);
}
// Remainder with the sign of the dividend (C fmod); 0 for a zero divisor.
template <typename T>
T IntFMod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == -1) return 0;
  }
  return static_cast<T>(a % b);
}
// Remainder with the sign of the divisor (Python %); 0 for a zero divisor.
template <typename T>
T IntMod(T a, T b) {
  T r = IntFMod(a, b);
  if constexpr (std::is_signed_v<T>) {
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
  }
  return r;
}

// Max/Min that propagate NaN (numpy maximum/minimum).
template <typename C>
C NanMax(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return a < b ? b : a;
}
template <typename C>
C NanMin(C a, C b) {
  if (a != a) return a;
  if (b != b) return b;
  return b < a ? b : a;
}

// A double to integer type T: truncates, NaN -> 0, wraps modulo 2^bits within the int64 range.
template <typename T>
T DoubleToInt(double d) {
  if (std::isnan(d)) return 0;
  d = std::trunc(d);
  constexpr double kTwo63 = 9223372036854775808.0;
  if constexpr (std::is_same_v<T, uint64_t>) {
    if (d >= 2 * kTwo63) return std::numeric_limits<uint64_t>::max();
    if (d >= kTwo63) return static_cast<uint64_t>(d);
  }
  if (d >= kTwo63) return static_cast<T>(std::numeric_limits<int64_t>::max());
  if (d < -kTwo63) return static_cast<T>(std::numeric_limits<int64_t>::min());
  return static_cast<T>(static_cast<int64_t>(d));
}

// Converts a computed value of type From to the computed value of type To (Cast semantics).
template <typename To, typename From>
ComputeT<To> Convert(ComputeT<From> v) {
  if constexpr (std::is_same_v<To, bool>) {
    return v != 0;
  } else if constexpr (kIsFloat<To>) {
    return static_cast<ComputeT<To>>(v);
  } else if constexpr (kIsFloat<From>) {
    return DoubleToInt<To>(static_cast<double>(v));
  } else {
    return static_cast<To>(v);
  }
}

// ---------------------------------------------------------------------------------------------
// Unary ops.

// clang-format off
enum class Unary {
  kAbs, kAcos, kAcosh, kAsin, kAsinh, kAtan, kAtanh, kCeil, kCelu, kCos, kCosh, kElu, kErf, kExp,
  kFloor, kGelu, kHardSigmoid, kHardSwish, kLeakyRelu, kLog, kMish, kNeg, kNot, kReciprocal,
  kRelu, kRound, kSelu, kShrink, kSigmoid, kSign, kSin, kSinh, kSoftplus, kSoftsign, kSqrt,
  kSwish, kTan, kTanh, kThresholdedRelu, kBitwiseNot,
};
// clang-format on

struct UnaryParams {
  Unary op = Unary::kAbs;
  double alpha = 0, beta = 0, gamma = 0;  // op-specific attributes
  bool tanh_gelu = false;
};

template <typename C>
C Sigmoid(C x) {
  if (x >= 0) return C(1) / (C(1) + std::exp(-x));
  C e = std::exp(x);
  return e / (C(1) + e);
}

// log(1 + exp(x)) without overflow for large x.
template <typename C>
C Softplus(C x) {
  if (x > 0) return x + std::log1p(std::exp(-x));
  return std::log1p(std::exp(x));
}

// Round half to even.
template <typename C>
C RoundHalfEven(C x) {
  C r = std::round(x);  // half away from zero
  if (std::fabs(x - std::trunc(x)) == C(0.5)) r = C(2) * std::round(x / C(2));
  return r;
}

template <typename C>
C UnaryFloat(const UnaryParams& p, C x) {
  const C alpha = static_cast<C>(p.alpha), beta = static_cast<C>(p.beta);
  const C gamma = static_cast<C>(p.gamma);
  switch (p.op) {
    case Unary::kAbs:
      return std::fabs(x);
    case Unary::kAcos:
      return std::acos(x);
    case Unary::kAcosh:
      return std::acosh(x);
    case Unary::kAsin:
      return std::asin(x);
    case Unary::kAsinh:
      return std::asinh(x);
    case Unary::kAtan:
      return std::atan(x);
    case Unary::kAtanh:
      return std::atanh(x);
    case Unary::kCeil:
      return std::ceil(x);
    case Unary::kCelu:
      return NanMax(C(0), x) + NanMin(C(0), alpha * (std::exp(x / alpha) - C(1)));
    case Unary::kCos:
      return std::cos(x);
    case Unary::kCosh:
      return std::cosh(x);
    case Unary::kElu:
      return x > 0 ? x : alpha * (std::exp(x) - C(1));
    case Unary::kErf:
      return std::erf(x);
    case Unary::kExp:
      return std::exp(x);
    case Unary::kFloor:
      return std::floor(x);
    case Unary::kGelu:
      if (p.tanh_gelu) {
        const C k = static_cast<C>(0.79788456080286535588);  // sqrt(2 / pi)
        return C(0.5) * x * (C(1) + std::tanh(k * (x + C(0.044715) * x * x * x)));
      }
      return C(0.5) * x * (C(1) + std::erf(x * static_cast<C>(0.70710678118654752440)));
    case Unary::kHardSigmoid:
      return NanMax(C(0), NanMin(C(1), alpha * x + beta));
    case Unary::kHardSwish:
      return x * NanMax(C(0), NanMin(C(1), x / C(6) + C(0.5)));
    case Unary::kLeakyRelu:
      return x < 0 ? alpha * x : x;
    case Unary::kLog:
      return std::log(x);
    case Unary::kMish:
      return x * std::tanh(Softplus(x));
    case Unary::kNeg:
      return -x;
    case Unary::kReciprocal:
      return C(1) / x;
    case Unary::kRelu:
      return NanMax(x, C(0));
    case Unary::kRound:
      return RoundHalfEven(x);
    case Unary::kSelu:
      return x > 0 ? gamma * x : gamma * (alpha * std::exp(x) - alpha);
    case Unary::kShrink:
      return x < -alpha ? x + beta : (x > alpha ? x - beta : C(0));
    case Unary::kSigmoid:
      return Sigmoid(x);
    case Unary::kSign:
      return x > 0 ? C(1) : (x < 0 ? C(-1) : (x == 0 ? C(0) : x));
    case Unary::kSin:
      return std::sin(x);
    case Unary::kSinh:
      return std::sinh(x);
    case Unary::kSoftplus:
      return Softplus(x);
    case Unary::kSoftsign:
      return x / (C(1) + std::fabs(x));
    case Unary::kSqrt:
      return std::sqrt(x);
    case Unary::kSwish:
      return x * Sigmoid(alpha * x);
    case Unary::kTan:
      return std::tan(x);
    case Unary::kTanh:
      return std::tanh(x);
    case Unary::kThresholdedRelu:
      return x > alpha ? x : C(0);
    case Unary::kNot:
    case Unary::kBitwiseNot:
      break;  // not float ops (the definition refuses floats)
  }
  return x;
}

template <typename T>
T UnaryInt(const UnaryParams& p, T x) {
  switch (p.op) {
    case Unary::kAbs:
      if constexpr (std::is_signed_v<T>) return x < 0 ? WrapNeg(x) : x;
      return x;
    case Unary::kNeg:
      return WrapNeg(x);
    case Unary::kRelu:
      return x > 0 ? x : T(0);
    case Unary::kSign:
      return x > 0 ? T(1) : (x == 0 ? T(0) : static_cast<T>(-1));
    case Unary::kBitwiseNot:
      return static_cast<T>(~x);
    case Unary::kShrink: {
      // Computed in double like the float attributes (lambd = alpha, bias = beta).
      double d = static_cast<double>(x);
      if (d < -p.alpha) return DoubleToInt<T>(d + p.beta);
      if (d > p.alpha) return DoubleToInt<T>(d - p.beta);
      return 0;
    }
    default:
      break;  // float-only ops (the definition refuses integers)
  }
  return x;
}

Status RunUnary(const NodeDef& def, const UnaryParams& p, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const int64_t n = x->num_elements();
  DispatchAny(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = x->as<const T>();
    T* ys = y->as<T>();
    for (int64_t i = 0; i < n; ++i) {
      if constexpr (std::is_same_v<T, bool>) {
        ys[i] = !xs[i];
      } else if constexpr (kIsFloat<T>) {
        Store(ys, i, UnaryFloat(p, Load(xs, i)));
      } else {
        ys[i] = UnaryInt(p, xs[i]);
      }
    }
  });
  return Status::Ok();
}

struct UnaryInfo {
  const char* name;
  Unary op;
};

constexpr UnaryInfo kUnaryOps[] = {
    {"Abs", Unary::kAbs},
    {"Acos", Unary::kAcos},
    {"Acosh", Unary::kAcosh},
    {"Asin", Unary::kAsin},
    {"Asinh", Unary::kAsinh},
    {"Atan", Unary::kAtan},
    {"Atanh", Unary::kAtanh},
    {"BitwiseNot", Unary::kBitwiseNot},
    {"Ceil", Unary::kCeil},
    {"Celu", Unary::kCelu},
    {"Cos", Unary::kCos},
    {"Cosh", Unary::kCosh},
    {"Elu", Unary::kElu},
    {"Erf", Unary::kErf},
    {"Exp", Unary::kExp},
    {"Floor", Unary::kFloor},
    {"Gelu", Unary::kGelu},
    {"HardSigmoid", Unary::kHardSigmoid},
    {"HardSwish", Unary::kHardSwish},
    {"LeakyRelu", Unary::kLeakyRelu},
    {"Log", Unary::kLog},
    {"Mish", Unary::kMish},
    {"Neg", Unary::kNeg},
    {"Not", Unary::kNot},
    {"Reciprocal", Unary::kReciprocal},
    {"Relu", Unary::kRelu},
    {"Round", Unary::kRound},
    {"Selu", Unary::kSelu},
    {"Shrink", Unary::kShrink},
    {"Sigmoid", Unary::kSigmoid},
    {"Sign", Unary::kSign},
    {"Sin", Unary::kSin},
    {"Sinh", Unary::kSinh},
    {"Softplus", Unary::kSoftplus},
    {"Softsign", Unary::kSoftsign},
    {"Sqrt", Unary::kSqrt},
    {"Swish", Unary::kSwish},
    {"Tan", Unary::kTan},
    {"Tanh", Unary::kTanh},
    {"ThresholdedRelu", Unary::kThresholdedRelu},
};

Result<std::unique_ptr<Kernel>> PrepareUnary(const NodeDef& def, const UnaryInfo& info) {
  UnaryParams p;
  p.op = info.op;
  switch (info.op) {
    case Unary::kCelu:
    case Unary::kElu:
    case Unary::kThresholdedRelu:
    case Unary::kSwish:
    case Unary::kLeakyRelu:
      p.alpha = def.attr_float("alpha");
      break;
    case Unary::kHardSigmoid:
      p.alpha = def.attr_float("alpha");
      p.beta = def.attr_float("beta");
      break;
    case Unary::kSelu:
      p.alpha = def.attr_float("alpha");
      p.gamma = def.attr_float("gamma");
      break;
    case Unary::kShrink:
      p.alpha = def.attr_float("lambd");
      p.beta = def.attr_float("bias");
      break;
    case Unary::kGelu:
      p.tanh_gelu = def.attr_string("approximate") == "tanh";
      break;
    default:
      break;
  }
  return Bind(def, p, RunUnary);
}

// IsNaN and IsInf: float in, bool out.
struct PredicateParams {
  bool is_nan = true;
  bool positive = true, negative = true;  // IsInf
};

Status RunPredicate(const NodeDef& def, const PredicateParams& p, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const int64_t n = x->num_elements();
  bool* ys = y->as<bool>();
  DispatchFloat(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = x->as<const T>();
    for (int64_t i = 0; i < n; ++i) {
      auto v = Load(xs, i);
      if (p.is_nan) {
        ys[i] = std::isnan(v);
      } else {
        ys[i] = std::isinf(v) && ((v > 0 && p.positive) || (v < 0 && p.negative));
      }
    }
  });
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PreparePredicate(const NodeDef& def, bool is_nan) {
  PredicateParams p;
  p.is_nan = is_nan;
  if (!is_nan) {
    p.positive = def.attr_int("detect_positive") != 0;
    p.negative = def.attr_int("detect_negative") != 0;
  }
  return Bind(def, p, RunPredicate);
}

// ---------------------------------------------------------------------------------------------
// Broadcasting binary and variadic ops with one element type in and out.

// clang-format off
enum class Fold {
  kAdd, kSub, kMul, kDiv, kMod, kFMod, kMax, kMin, kAnd, kOr, kXor, kBitAnd, kBitOr, kBitXor,
  kShiftLeft, kShiftRight,
};
// clang-format on

struct FoldParams {
  Fold op = Fold::kAdd;
  bool mean = false;  // Mean: the sum divided by the input count
};

template <typename T>
ComputeT<T> ApplyFold(Fold op, ComputeT<T> a, ComputeT<T> b) {
  if constexpr (std::is_same_v<T, bool>) {
    switch (op) {
      case Fold::kAnd:
        return a && b;
      case Fold::kOr:
        return a || b;
      case Fold::kXor:
        return a != b;
      default:
        break;  // numeric ops (the definition refuses bool)
    }
    return a;
  } else if constexpr (kIsFloat<T>) {
    switch (op) {
      case Fold::kAdd:
        return a + b;
      case Fold::kSub:
        return a - b;
      case Fold::kMul:
        return a * b;
      case Fold::kDiv:
        return a / b;
      case Fold::kMod:  // float Mod is C fmod whatever the attribute (ONNX reference)
      case Fold::kFMod:
        return std::fmod(a, b);
      case Fold::kMax:
        return NanMax(a, b);
      case Fold::kMin:
        return NanMin(a, b);
      default:
        break;  // integer and logical ops (the definition refuses floats)
    }
    return a;
  } else {
    constexpr int kBits = static_cast<int>(sizeof(T) * 8);
    switch (op) {
      case Fold::kAdd:
        return WrapAdd(a, b);
      case Fold::kSub:
        return WrapSub(a, b);
      case Fold::kMul:
        return WrapMul(a, b);
      case Fold::kDiv:
        return IntDiv(a, b);
      case Fold::kMod:
        return IntMod(a, b);
      case Fold::kFMod:
        return IntFMod(a, b);
      case Fold::kMax:
        return a < b ? b : a;
      case Fold::kMin:
        return b < a ? b : a;
      case Fold::kBitAnd:
        return static_cast<T>(a & b);
      case Fold::kBitOr:
        return static_cast<T>(a | b);
      case Fold::kBitXor:
        return static_cast<T>(a ^ b);
      case Fold::kShiftLeft:
        if constexpr (std::is_unsigned_v<T>) {
          return b >= static_cast<T>(kBits) ? T(0) : static_cast<T>(a << b);
        }
        break;
      case Fold::kShiftRight:
        if constexpr (std::is_unsigned_v<T>) {
          return b >= static_cast<T>(kBits) ? T(0) : static_cast<T>(a >> b);
        }
        break;
      default:
        break;  // logical ops (the definition refuses integers)
    }
    return a;
  }
}

Status RunFold(const NodeDef& def, const FoldParams& p, KernelContext& ctx) {
  std::vector<const TensorView*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) ins.push_back(ctx.input(i));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, ins, out->dims));
  DispatchAny(out->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    T* y = out->as<T>();
    for (int64_t k = 0; k < bc.size(); ++k) {
      C acc = Load(ins[0]->as<const T>(), bc.at(0, k));
      for (size_t i = 1; i < ins.size(); ++i) {
        acc = ApplyFold<T>(p.op, acc, Load(ins[i]->as<const T>(), bc.at(i, k)));
      }
      if constexpr (!std::is_same_v<T, bool>) {
        if (p.mean) {
          acc = ApplyFold<T>(Fold::kDiv, acc, static_cast<C>(ins.size()));
        }
      }
      Store(y, k, acc);
    }
  });
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareFold(const NodeDef& def, FoldParams p) {
  if (p.op == Fold::kMod) p.op = def.attr_int("fmod") == 1 ? Fold::kFMod : Fold::kMod;
  if (p.op == Fold::kShiftLeft) {
    p.op = def.attr_string("direction") == "LEFT" ? Fold::kShiftLeft : Fold::kShiftRight;
  }
  return Bind(def, p, RunFold);
}

// ---------------------------------------------------------------------------------------------
// Comparisons: two inputs of one type, bool out.

enum class Cmp { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual };

template <typename C>
bool Compare(Cmp op, C a, C b) {
  switch (op) {
    case Cmp::kEqual:
      return a == b;
    case Cmp::kLess:
      return a < b;
    case Cmp::kGreater:
      return a > b;
    case Cmp::kLessOrEqual:
      return a <= b;
    case Cmp::kGreaterOrEqual:
      return a >= b;
  }
  return false;
}

Status RunCompare(const NodeDef& def, const Cmp& op, KernelContext& ctx) {
  const TensorView* a = ctx.input(0);
  const TensorView* b = ctx.input(1);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {a, b}, out->dims));
  bool* y = out->as<bool>();
  DispatchAny(a->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* as = a->as<const T>();
    const T* bs = b->as<const T>();
    for (int64_t k = 0; k < bc.size(); ++k) {
      y[k] = Compare(op, Load(as, bc.at(0, k)), Load(bs, bc.at(1, k)));
    }
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Pow: the base and exponent types may differ; the result has the base's type.

template <typename T>
T IntPow(T base, int64_t e) {
  if (e < 0) {  // 1 / base^|e| truncated toward zero
    if (base == 1) return 1;
    if constexpr (std::is_signed_v<T>) {
      if (base == -1) return (e & 1) ? static_cast<T>(-1) : T(1);
    }
    return 0;
  }
  uint64_t result = 1, b = static_cast<uint64_t>(base);
  for (uint64_t n = static_cast<uint64_t>(e); n != 0; n >>= 1) {
    if (n & 1) result *= b;
    b *= b;
  }
  return static_cast<T>(result);
}

Status RunPow(const NodeDef& def, const int& /*unused*/, KernelContext& ctx) {
  const TensorView* a = ctx.input(0);
  const TensorView* b = ctx.input(1);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {a, b}, out->dims));
  DispatchNumeric(a->dtype, [&](auto base_tag) {
    using T = typename decltype(base_tag)::type;
    DispatchNumeric(b->dtype, [&](auto exp_tag) {
      using E = typename decltype(exp_tag)::type;
      const T* as = a->as<const T>();
      const E* es = b->as<const E>();
      T* y = out->as<T>();
      for (int64_t k = 0; k < bc.size(); ++k) {
        auto x = Load(as, bc.at(0, k));
        auto e = Load(es, bc.at(1, k));
        if constexpr (!kIsFloat<T> && !kIsFloat<E>) {
          int64_t ei = static_cast<int64_t>(e);
          if constexpr (std::is_same_v<E, uint64_t>) {
            constexpr uint64_t kMax = std::numeric_limits<int64_t>::max();
            if (e > kMax) ei = static_cast<int64_t>(kMax);
          }
          y[k] = IntPow(x, ei);
        } else {
          double r = std::pow(static_cast<double>(x), static_cast<double>(e));
          Store(y, k, Convert<T, double>(r));
        }
      }
    });
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// PRelu: the slope broadcasts to X (unidirectionally: the output has X's dims).

Status RunPRelu(const NodeDef& def, const int& /*unused*/, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* s = ctx.input(1);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {x, s}, out->dims));
  DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = x->as<const T>();
    const T* ss = s->as<const T>();
    T* y = out->as<T>();
    for (int64_t k = 0; k < bc.size(); ++k) {
      auto v = Load(xs, bc.at(0, k));
      auto slope = Load(ss, bc.at(1, k));
      if constexpr (kIsFloat<T>) {
        Store(y, k, v < 0 ? v * slope : v);
      } else if constexpr (std::is_signed_v<T>) {
        y[k] = v < 0 ? WrapMul(v, slope) : v;
      } else {
        y[k] = v;  // never negative
      }
    }
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Where: condition ? X : Y with three-way broadcasting; copies elements by size.

Status RunWhere(const NodeDef& def, const int& /*unused*/, KernelContext& ctx) {
  const TensorView* c = ctx.input(0);
  const TensorView* x = ctx.input(1);
  const TensorView* y = ctx.input(2);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {c, x, y}, out->dims));
  const size_t es = ir::SizeOf(out->dtype);
  const bool* cs = c->as<const bool>();
  const auto* xs = x->as<const uint8_t>();
  const auto* ys = y->as<const uint8_t>();
  auto* os = out->as<uint8_t>();
  for (int64_t k = 0; k < bc.size(); ++k) {
    const uint8_t* src = cs[bc.at(0, k)] ? xs + bc.at(1, k) * es : ys + bc.at(2, k) * es;
    std::memmove(os + k * es, src, es);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Clip: bounds from attributes (opset < 11) or optional one-element inputs.

// `d` in type C, saturating at C's range (C is float, double or an integer).
template <typename C>
C ClampTo(double d) {
  if constexpr (std::is_floating_point_v<C>) {
    return static_cast<C>(d);
  } else {
    if (std::isnan(d)) return 0;
    if (d <= static_cast<double>(std::numeric_limits<C>::lowest())) {
      return std::numeric_limits<C>::lowest();
    }
    if (d >= static_cast<double>(std::numeric_limits<C>::max())) {
      return std::numeric_limits<C>::max();
    }
    return static_cast<C>(d);
  }
}

struct ClipParams {
  bool from_attrs = false;
  double min = 0, max = 0;  // the attributes (opset < 11)
};

Status RunClip(const NodeDef& def, const ClipParams& p, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  const TensorView* lo_in = p.from_attrs || ctx.num_inputs() < 2 ? nullptr : ctx.input(1);
  const TensorView* hi_in = p.from_attrs || ctx.num_inputs() < 3 ? nullptr : ctx.input(2);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  for (const TensorView* b : {lo_in, hi_in}) {
    if (b != nullptr && b->num_elements() != 1) {  // run-time dims the load-time check missed
      return def.Fail(code::kInvalidParam, b == lo_in ? "min" : "max",
                      " must be a scalar, got shape ", DimsString(b->dims));
    }
  }
  const int64_t n = x->num_elements();
  DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
    if (p.from_attrs) {
      lo = ClampTo<C>(p.min);
      hi = ClampTo<C>(p.max);
    }
    if (lo_in) lo = Load(lo_in->as<const T>(), 0);
    if (hi_in) hi = Load(hi_in->as<const T>(), 0);
    const T* xs = x->as<const T>();
    T* y = out->as<T>();
    for (int64_t i = 0; i < n; ++i) {
      C v = Load(xs, i);
      if (v < lo) v = lo;  // NaN stays NaN
      if (v > hi) v = hi;  // min > max gives max (numpy clip)
      Store(y, i, v);
    }
  });
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareClip(const NodeDef& def) {
  ClipParams p;
  if (def.opset < 11) {
    p.from_attrs = true;
    p.min = def.attr_float("min");
    p.max = def.attr_float("max");
  }
  return Bind(def, p, RunClip);
}

// ---------------------------------------------------------------------------------------------
// Cast, CastLike and BitCast: the output's type is the bound output's (from attribute 'to' or
// CastLike's second input, by the definition). 'saturate' and 'round_mode' only affect the
// float8 and E8M0 targets (kernels/low_precision_elements.h).

// Converts every element of `x` into `y` (same element count), both of Kiln's full types.
void ConvertElements(const TensorView& x, TensorView& y) {
  const int64_t n = x.num_elements();
  DispatchAny(x.dtype, [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    DispatchAny(y.dtype, [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      const From* xs = x.as<const From>();
      To* ys = y.as<To>();
      for (int64_t i = 0; i < n; ++i) Store(ys, i, Convert<To, From>(Load(xs, i)));
    });
  });
}

// The same where x or y is a low-precision type: every element passes through its exact value
// (a double, or an int64 for integer sources, which keep all their bits for the sub-byte
// integer targets), then is stored with Cast's rounding.
void ConvertLowPrecisionElements(const TensorView& x, TensorView& y,
                                 const LowPrecisionRounding& rounding) {
  const int64_t n = x.num_elements();
  if (ir::IsPacked(y.dtype) && y.bytes() != 0) std::memset(y.data, 0, y.bytes());  // padding
  for (int64_t i = 0; i < n; ++i) {
    double d = 0;
    std::optional<int64_t> integer;
    if (ir::IsLowPrecision(x.dtype)) {
      d = LoadLowPrecision(x.dtype, x.data, i);
    } else {
      DispatchAny(x.dtype, [&](auto tag) {
        using T = typename decltype(tag)::type;
        const auto v = Load(x.as<const T>(), i);
        d = static_cast<double>(v);
        if constexpr (!kIsFloat<T>) integer = static_cast<int64_t>(v);
      });
    }
    if (ir::IsLowPrecision(y.dtype)) {
      if (integer) {
        StoreLowPrecisionFromInt(y.dtype, y.data, i, *integer, rounding);
      } else {
        StoreLowPrecisionFromFloat(y.dtype, y.data, i, d, rounding);
      }
    } else {
      DispatchAny(y.dtype, [&](auto tag) {
        using To = typename decltype(tag)::type;
        Store(y.as<To>(), i, Convert<To, double>(d));
      });
    }
  }
}

Status RunCast(const NodeDef& def, const LowPrecisionRounding& rounding, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  if (ir::IsLowPrecision(x->dtype) || ir::IsLowPrecision(y->dtype)) {
    ConvertLowPrecisionElements(*x, *y, rounding);
  } else {
    ConvertElements(*x, *y);
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareCast(const NodeDef& def) {
  LowPrecisionRounding rounding;
  // 'saturate' came with opset 19 and 'round_mode' with 24, as their target types did; the
  // definition accepts only the modes ParseE8M0RoundMode knows.
  rounding.saturate = def.opset < 19 || def.attr_int("saturate") != 0;
  if (def.opset >= 24) {
    rounding.round_mode =
        ParseE8M0RoundMode(def.attr_string("round_mode")).value_or(E8M0RoundMode::kUp);
  }
  return Bind(def, rounding, RunCast);
}

Status RunBitCast(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  if (x->bytes() != 0 && y->data != x->data) std::memmove(y->data, x->data, x->bytes());
  if (y->dtype == DataType::kBool) {
    // A bool byte must be 0 or 1; any non-zero pattern reads as true.
    auto* b = y->as<uint8_t>();
    for (int64_t i = 0; i < y->num_elements(); ++i) b[i] = b[i] != 0;
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Identity and Dropout (inference).

// Copies input 0 into output 0 (the same dims and type), unless they share memory.
Status CopyInput(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  if (x->bytes() != 0 && y->data != x->data) std::memmove(y->data, x->data, x->bytes());
  return Status::Ok();
}

// The value of a one-element numeric or bool tensor (the definition checked its shape).
double ScalarValue(const TensorView& t) {
  double v = 0;
  DispatchAny(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (t.num_elements() > 0) v = static_cast<double>(Load(t.as<const T>(), 0));
  });
  return v;
}

// Dropout-12 on: a true training_mode with a non-zero ratio (default 0.5) asks for training.
bool Training(const TensorView* ratio, const TensorView* training_mode) {
  return training_mode != nullptr && ScalarValue(*training_mode) != 0 &&
         (ratio == nullptr || ScalarValue(*ratio) != 0);
}

struct DropoutParams {
  bool inputs = false;  // opset >= 12: ratio and training_mode are inputs
};

Status RunDropout(const NodeDef& def, const DropoutParams& p, KernelContext& ctx) {
  if (p.inputs) {
    const TensorView* ratio = ctx.num_inputs() > 1 ? ctx.input(1) : nullptr;
    const TensorView* train = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    if (Training(ratio, train)) {
      return def.Fail(code::kFeatureUnsupported,
                      "training_mode is true; Kiln runs Dropout in inference mode only");
    }
  }
  KILN_RETURN_IF_ERROR(CopyInput(def, ctx), "");
  // The mask, when the graph uses it: all true (bool from opset 10; Dropout-7 types it like
  // the input).
  if (TensorView* mask = ctx.num_outputs() > 1 ? ctx.output(1) : nullptr) {
    const int64_t n = mask->num_elements();
    DispatchAny(mask->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      for (int64_t i = 0; i < n; ++i) Store(mask->as<T>(), i, ComputeT<T>(1));
    });
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareDropout(const NodeDef& def) {
  DropoutParams p;
  p.inputs = def.opset >= 12;
  // A constant true training_mode with a ratio known to be non-zero is training; refuse it
  // early (a computed ratio is left to the run).
  const TensorView* train = def.input_given(2) ? def.constant(2) : nullptr;
  const TensorView* ratio = def.input_given(1) ? def.constant(1) : nullptr;
  if (p.inputs && train != nullptr && (!def.input_given(1) || ratio != nullptr) &&
      Training(ratio, train)) {
    return def.Fail(code::kFeatureUnsupported,
                    "training_mode is true; Kiln runs Dropout in inference mode only");
  }
  return Bind(def, p, RunDropout);
}

// Registers `prepare` for `op`, refusing string nodes first.
template <typename Prepare>
void Add(KernelRegistry& r, const char* op, Prepare prepare) {
  r.Register(kReferenceBackend, "", op,
             [prepare](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               KILN_RETURN_IF_ERROR(RefuseStrings(def), "");
               return prepare(def);
             });
}

}  // namespace

void RegisterElementwiseKernels(KernelRegistry& r) {
  for (const UnaryInfo& info : kUnaryOps) {
    Add(r, info.name, [info](const NodeDef& def) { return PrepareUnary(def, info); });
  }
  Add(r, "IsNaN", [](const NodeDef& def) { return PreparePredicate(def, true); });
  Add(r, "IsInf", [](const NodeDef& def) { return PreparePredicate(def, false); });

  struct FoldInfo {
    const char* name;
    Fold op;
    bool mean;
  };
  const FoldInfo folds[] = {
      {"Add", Fold::kAdd, false},
      {"Sub", Fold::kSub, false},
      {"Mul", Fold::kMul, false},
      {"Div", Fold::kDiv, false},
      {"Mod", Fold::kMod, false},
      {"Max", Fold::kMax, false},
      {"Min", Fold::kMin, false},
      {"Sum", Fold::kAdd, false},
      {"Mean", Fold::kAdd, true},
      {"And", Fold::kAnd, false},
      {"Or", Fold::kOr, false},
      {"Xor", Fold::kXor, false},
      {"BitwiseAnd", Fold::kBitAnd, false},
      {"BitwiseOr", Fold::kBitOr, false},
      {"BitwiseXor", Fold::kBitXor, false},
      {"BitShift", Fold::kShiftLeft, false},
  };
  for (const FoldInfo& f : folds) {
    FoldParams p{f.op, f.mean};
    Add(r, f.name, [p](const NodeDef& def) { return PrepareFold(def, p); });
  }

  const std::pair<const char*, Cmp> compares[] = {
      {"Equal", Cmp::kEqual},
      {"Less", Cmp::kLess},
      {"Greater", Cmp::kGreater},
      {"LessOrEqual", Cmp::kLessOrEqual},
      {"GreaterOrEqual", Cmp::kGreaterOrEqual},
  };
  for (const auto& [name, op] : compares) {
    Add(r, name, [op = op](const NodeDef& def) { return Bind(def, op, RunCompare); });
  }

  Add(r, "Pow", [](const NodeDef& def) { return Bind(def, 0, RunPow); });
  Add(r, "PRelu", [](const NodeDef& def) { return Bind(def, 0, RunPRelu); });
  Add(r, "Where", [](const NodeDef& def) { return Bind(def, 0, RunWhere); });
  Add(r, "Clip", PrepareClip);
  Add(r, "Cast", PrepareCast);
  Add(r, "CastLike", PrepareCast);
  Add(r, "BitCast", [](const NodeDef& def) {
    return Result<std::unique_ptr<Kernel>>(MakeFunctionKernel(def, RunBitCast));
  });
  Add(r, "Identity", [](const NodeDef& def) {
    return Result<std::unique_ptr<Kernel>>(MakeFunctionKernel(def, CopyInput));
  });
  Add(r, "Dropout", PrepareDropout);
}

}  // namespace kiln::kernels
