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
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

// Input i, which must be given.
Result<const TensorView*> In(const NodeDef& def, KernelContext& ctx, size_t i) {
  const TensorView* t = i < ctx.num_inputs() ? ctx.input(i) : nullptr;
  if (t == nullptr) return def.Fail(code::kInvalidParam, "input ", i, " is missing");
  return t;
}

// Binds output i with `dims` and checks it has the element type the kernel writes.
Result<TensorView*> Out(const NodeDef& def, KernelContext& ctx, size_t i, const Dims& dims,
                        DataType want) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.Output(i, dims));
  if (out->dtype != want) {
    return def.Fail(code::kInvalidParam, "output ", i, " is ", ir::Name(out->dtype), " but ",
                    ir::Name(want), " is computed");
  }
  return out;
}

// The planned type of input i, or kUndefined.
DataType PlannedType(const NodeDef& def, size_t i) {
  return i < def.input_types.size() ? def.input_types[i] : DataType::kUndefined;
}

// Which element types an op takes.
enum class Kind { kFloat, kNumeric, kInteger, kUnsigned, kBool, kNumericOrBool, kAny };

bool Accepts(Kind k, DataType t) {
  switch (k) {
    case Kind::kFloat:
      return ir::IsFloat(t);
    case Kind::kNumeric:
      return ir::IsFloat(t) || ir::IsInteger(t);
    case Kind::kInteger:
      return ir::IsInteger(t);
    case Kind::kUnsigned:
      return ir::IsInteger(t) && !ir::IsSigned(t);
    case Kind::kBool:
      return t == DataType::kBool;
    case Kind::kNumericOrBool:
      return ir::IsFloat(t) || ir::IsInteger(t) || t == DataType::kBool;
    case Kind::kAny:
      return t != DataType::kUndefined && t != DataType::kString;
  }
  return false;
}

// What each Kind takes, for messages (indexed by Kind).
constexpr const char* kKindText[] = {
    "a floating-point type",    "a numeric type", "an integer type",
    "an unsigned integer type", "bool",           "a numeric type or bool",
    "a non-string type"};

// kFeatureUnsupported for strings, kInvalidParam for other types `k` does not take.
Status CheckType(const NodeDef& def, const char* what, DataType t, Kind k) {
  if (Accepts(k, t)) return Status::Ok();
  if (t == DataType::kString) {
    return def.Fail(code::kFeatureUnsupported, what, " is string; Kiln has no string kernels");
  }
  return def.Fail(code::kInvalidParam, what, " is ", ir::Name(t), "; ",
                  kKindText[static_cast<int>(k)], " is required");
}

// Checks the planned type of input i when it is known (Prepare).
Status CheckPlanned(const NodeDef& def, size_t i, Kind k) {
  DataType t = PlannedType(def, i);
  if (t == DataType::kUndefined) return Status::Ok();
  return CheckType(def, ("input " + std::to_string(i)).c_str(), t, k);
}

// Numpy (multidirectional) broadcasting of several inputs. Same-shape and one-element inputs
// are read directly; only the others get a precomputed index.
class Broadcaster {
 public:
  static Result<Broadcaster> Make(const NodeDef& def, const std::vector<const TensorView*>& ins) {
    std::vector<const Dims*> shapes;
    for (const TensorView* t : ins) shapes.push_back(&t->dims);
    std::optional<Dims> dims = BroadcastDims(shapes);
    if (!dims) {
      std::string s;
      for (const TensorView* t : ins) s += (s.empty() ? "" : ", ") + DimsString(t->dims);
      return def.Fail(code::kInvalidParam, "input shapes ", s, " cannot be broadcast together");
    }
    Broadcaster b;
    b.dims_ = std::move(*dims);
    b.size_ = NumElements(b.dims_);
    for (const TensorView* t : ins) {
      Map m;
      if (t->num_elements() == b.size_) {
        m.mode = kSame;
      } else if (t->num_elements() == 1) {
        m.mode = kScalar;
      } else {
        m.mode = kIndexed;
        m.index = BroadcastIndex(t->dims, b.dims_);
      }
      b.maps_.push_back(std::move(m));
    }
    return b;
  }
  const Dims& dims() const { return dims_; }
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
  Dims dims_;
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
  Kind kind = Kind::kFloat;
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
      break;  // not float ops (Prepare refuses)
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
      break;  // float-only ops (Prepare refuses integers)
  }
  return x;
}

Status RunUnary(const NodeDef& def, const UnaryParams& p, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, p.kind), "");
  KILN_ASSIGN_OR_RETURN(TensorView * y, Out(def, ctx, 0, x->dims, x->dtype));
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
  Kind kind;
};

constexpr UnaryInfo kUnaryOps[] = {
    {"Abs", Unary::kAbs, Kind::kNumeric},
    {"Acos", Unary::kAcos, Kind::kFloat},
    {"Acosh", Unary::kAcosh, Kind::kFloat},
    {"Asin", Unary::kAsin, Kind::kFloat},
    {"Asinh", Unary::kAsinh, Kind::kFloat},
    {"Atan", Unary::kAtan, Kind::kFloat},
    {"Atanh", Unary::kAtanh, Kind::kFloat},
    {"BitwiseNot", Unary::kBitwiseNot, Kind::kInteger},
    {"Ceil", Unary::kCeil, Kind::kFloat},
    {"Celu", Unary::kCelu, Kind::kFloat},
    {"Cos", Unary::kCos, Kind::kFloat},
    {"Cosh", Unary::kCosh, Kind::kFloat},
    {"Elu", Unary::kElu, Kind::kFloat},
    {"Erf", Unary::kErf, Kind::kFloat},
    {"Exp", Unary::kExp, Kind::kFloat},
    {"Floor", Unary::kFloor, Kind::kFloat},
    {"Gelu", Unary::kGelu, Kind::kFloat},
    {"HardSigmoid", Unary::kHardSigmoid, Kind::kFloat},
    {"HardSwish", Unary::kHardSwish, Kind::kFloat},
    {"LeakyRelu", Unary::kLeakyRelu, Kind::kFloat},
    {"Log", Unary::kLog, Kind::kFloat},
    {"Mish", Unary::kMish, Kind::kFloat},
    {"Neg", Unary::kNeg, Kind::kNumeric},
    {"Not", Unary::kNot, Kind::kBool},
    {"Reciprocal", Unary::kReciprocal, Kind::kFloat},
    {"Relu", Unary::kRelu, Kind::kNumeric},
    {"Round", Unary::kRound, Kind::kFloat},
    {"Selu", Unary::kSelu, Kind::kFloat},
    {"Shrink", Unary::kShrink, Kind::kNumeric},
    {"Sigmoid", Unary::kSigmoid, Kind::kFloat},
    {"Sign", Unary::kSign, Kind::kNumeric},
    {"Sin", Unary::kSin, Kind::kFloat},
    {"Sinh", Unary::kSinh, Kind::kFloat},
    {"Softplus", Unary::kSoftplus, Kind::kFloat},
    {"Softsign", Unary::kSoftsign, Kind::kFloat},
    {"Sqrt", Unary::kSqrt, Kind::kFloat},
    {"Swish", Unary::kSwish, Kind::kFloat},
    {"Tan", Unary::kTan, Kind::kFloat},
    {"Tanh", Unary::kTanh, Kind::kFloat},
    {"ThresholdedRelu", Unary::kThresholdedRelu, Kind::kFloat},
};

Result<std::unique_ptr<Kernel>> PrepareUnary(const NodeDef& def, const UnaryInfo& info) {
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, info.kind), "");
  UnaryParams p;
  p.op = info.op;
  p.kind = info.kind;
  switch (info.op) {
    case Unary::kCelu:
      p.alpha = def.attr_float("alpha", 1.f);
      if (p.alpha == 0) return def.Fail(code::kInvalidParam, "attribute 'alpha' must not be 0");
      break;
    case Unary::kElu:
    case Unary::kThresholdedRelu:
    case Unary::kSwish:
      p.alpha = def.attr_float("alpha", 1.f);
      break;
    case Unary::kLeakyRelu:
      p.alpha = def.attr_float("alpha", 0.01f);
      break;
    case Unary::kHardSigmoid:
      p.alpha = def.attr_float("alpha", 0.2f);
      p.beta = def.attr_float("beta", 0.5f);
      break;
    case Unary::kSelu:
      p.alpha = def.attr_float("alpha", 1.67326319217681884765625f);
      p.gamma = def.attr_float("gamma", 1.05070102214813232421875f);
      break;
    case Unary::kShrink:
      p.alpha = def.attr_float("lambd", 0.5f);
      p.beta = def.attr_float("bias", 0.f);
      break;
    case Unary::kGelu: {
      std::string a = def.attr_string("approximate", "none");
      if (a != "none" && a != "tanh") {
        return def.Fail(code::kInvalidParam, "attribute 'approximate' must be \"none\" or ",
                        "\"tanh\", got \"", a, "\"");
      }
      p.tanh_gelu = a == "tanh";
      break;
    }
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
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kFloat), "");
  KILN_ASSIGN_OR_RETURN(TensorView * y, Out(def, ctx, 0, x->dims, DataType::kBool));
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
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kFloat), "");
  PredicateParams p;
  p.is_nan = is_nan;
  p.positive = def.attr_int("detect_positive", 1) != 0;
  p.negative = def.attr_int("detect_negative", 1) != 0;
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
  Kind kind = Kind::kNumeric;
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
        break;  // numeric ops (Prepare refuses bool)
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
        break;  // integer and logical ops (Prepare refuses floats)
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
        break;  // logical ops (Prepare refuses integers)
    }
    return a;
  }
}

Status RunFold(const NodeDef& def, const FoldParams& p, KernelContext& ctx) {
  std::vector<const TensorView*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(const TensorView* t, In(def, ctx, i));
    ins.push_back(t);
  }
  if (ins.empty()) return def.Fail(code::kInvalidParam, "no inputs");
  const DataType dt = ins[0]->dtype;
  KILN_RETURN_IF_ERROR(CheckType(def, "input 0", dt, p.kind), "");
  for (size_t i = 1; i < ins.size(); ++i) {
    if (ins[i]->dtype != dt) {
      return def.Fail(code::kInvalidParam, "input ", i, " is ", ir::Name(ins[i]->dtype),
                      " but input 0 is ", ir::Name(dt));
    }
  }
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, ins));
  KILN_ASSIGN_OR_RETURN(TensorView * out, Out(def, ctx, 0, bc.dims(), dt));
  DispatchAny(dt, [&](auto tag) {
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
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    KILN_RETURN_IF_ERROR(CheckPlanned(def, i, p.kind), "");
  }
  if (p.op == Fold::kMod || p.op == Fold::kFMod) {
    int64_t fmod = def.attr_int("fmod", 0);
    if (fmod != 0 && fmod != 1) {
      return def.Fail(code::kInvalidParam, "attribute 'fmod' must be 0 or 1, got ", fmod);
    }
    p.op = fmod == 1 ? Fold::kFMod : Fold::kMod;
  }
  if (p.op == Fold::kShiftLeft || p.op == Fold::kShiftRight) {
    std::string dir = def.attr_string("direction", "");
    if (dir != "LEFT" && dir != "RIGHT") {
      return def.Fail(code::kInvalidParam,
                      "attribute 'direction' must be \"LEFT\" or \"RIGHT\", got \"", dir, "\"");
    }
    p.op = dir == "LEFT" ? Fold::kShiftLeft : Fold::kShiftRight;
  }
  return Bind(def, p, RunFold);
}

// ---------------------------------------------------------------------------------------------
// Comparisons: two inputs of one type, bool out.

enum class Cmp { kEqual, kLess, kGreater, kLessOrEqual, kGreaterOrEqual };

struct CmpParams {
  Cmp op = Cmp::kEqual;
  Kind kind = Kind::kNumeric;
};

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

Status RunCompare(const NodeDef& def, const CmpParams& p, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* a, In(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* b, In(def, ctx, 1));
  KILN_RETURN_IF_ERROR(CheckType(def, "input 0", a->dtype, p.kind), "");
  if (b->dtype != a->dtype) {
    return def.Fail(code::kInvalidParam, "input 1 is ", ir::Name(b->dtype), " but input 0 is ",
                    ir::Name(a->dtype));
  }
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {a, b}));
  KILN_ASSIGN_OR_RETURN(TensorView * out, Out(def, ctx, 0, bc.dims(), DataType::kBool));
  bool* y = out->as<bool>();
  DispatchAny(a->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* as = a->as<const T>();
    const T* bs = b->as<const T>();
    for (int64_t k = 0; k < bc.size(); ++k) {
      y[k] = Compare(p.op, Load(as, bc.at(0, k)), Load(bs, bc.at(1, k)));
    }
  });
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareCompare(const NodeDef& def, CmpParams p) {
  for (size_t i = 0; i < 2; ++i) KILN_RETURN_IF_ERROR(CheckPlanned(def, i, p.kind), "");
  return Bind(def, p, RunCompare);
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
  KILN_ASSIGN_OR_RETURN(const TensorView* a, In(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* b, In(def, ctx, 1));
  KILN_RETURN_IF_ERROR(CheckType(def, "base", a->dtype, Kind::kNumeric), "");
  KILN_RETURN_IF_ERROR(CheckType(def, "exponent", b->dtype, Kind::kNumeric), "");
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {a, b}));
  KILN_ASSIGN_OR_RETURN(TensorView * out, Out(def, ctx, 0, bc.dims(), a->dtype));
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

Result<std::unique_ptr<Kernel>> PreparePow(const NodeDef& def) {
  for (size_t i = 0; i < 2; ++i) KILN_RETURN_IF_ERROR(CheckPlanned(def, i, Kind::kNumeric), "");
  return Bind(def, 0, RunPow);
}

// ---------------------------------------------------------------------------------------------
// PRelu: the slope broadcasts to X (unidirectionally).

Status RunPRelu(const NodeDef& def, const int& /*unused*/, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* s, In(def, ctx, 1));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kNumeric), "");
  if (s->dtype != x->dtype) {
    return def.Fail(code::kInvalidParam, "slope is ", ir::Name(s->dtype), " but X is ",
                    ir::Name(x->dtype));
  }
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {x, s}));
  if (bc.dims() != x->dims) {
    return def.Fail(code::kInvalidParam, "slope ", DimsString(s->dims), " does not broadcast to X ",
                    DimsString(x->dims));
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, Out(def, ctx, 0, x->dims, x->dtype));
  DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* xs = x->as<const T>();
    const T* ss = s->as<const T>();
    T* y = out->as<T>();
    for (int64_t k = 0; k < bc.size(); ++k) {
      auto v = Load(xs, k);
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
  KILN_ASSIGN_OR_RETURN(const TensorView* c, In(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(const TensorView* y, In(def, ctx, 2));
  KILN_RETURN_IF_ERROR(CheckType(def, "condition", c->dtype, Kind::kBool), "");
  KILN_RETURN_IF_ERROR(CheckType(def, "X", x->dtype, Kind::kAny), "");
  if (y->dtype != x->dtype) {
    return def.Fail(code::kInvalidParam, "Y is ", ir::Name(y->dtype), " but X is ",
                    ir::Name(x->dtype));
  }
  KILN_ASSIGN_OR_RETURN(Broadcaster bc, Broadcaster::Make(def, {c, x, y}));
  KILN_ASSIGN_OR_RETURN(TensorView * out, Out(def, ctx, 0, bc.dims(), x->dtype));
  const size_t es = ir::SizeOf(x->dtype);
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

Result<std::unique_ptr<Kernel>> PrepareWhere(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kBool), "");
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 1, Kind::kAny), "");
  return Bind(def, 0, RunWhere);
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
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kNumeric), "");
  const TensorView* bounds[2] = {nullptr, nullptr};
  if (!p.from_attrs) {
    for (size_t i = 1; i < 3; ++i) {
      const TensorView* b = i < ctx.num_inputs() ? ctx.input(i) : nullptr;
      if (b == nullptr) continue;
      const char* what = i == 1 ? "min" : "max";
      if (b->dtype != x->dtype) {
        return def.Fail(code::kInvalidParam, what, " is ", ir::Name(b->dtype), " but input is ",
                        ir::Name(x->dtype));
      }
      if (b->num_elements() != 1) {
        return def.Fail(code::kInvalidParam, what, " must be a scalar, got shape ",
                        DimsString(b->dims));
      }
      bounds[i - 1] = b;
    }
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, Out(def, ctx, 0, x->dims, x->dtype));
  const int64_t n = x->num_elements();
  DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    C lo = std::numeric_limits<C>::lowest(), hi = std::numeric_limits<C>::max();
    if (p.from_attrs) {
      lo = ClampTo<C>(p.min);
      hi = ClampTo<C>(p.max);
    }
    if (bounds[0]) lo = Load(bounds[0]->as<const T>(), 0);
    if (bounds[1]) hi = Load(bounds[1]->as<const T>(), 0);
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
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kNumeric), "");
  ClipParams p;
  if (def.opset < 11) {
    p.from_attrs = true;
    p.min = def.attr_float("min", std::numeric_limits<float>::lowest());
    p.max = def.attr_float("max", std::numeric_limits<float>::max());
  }
  return Bind(def, p, RunClip);
}

// ---------------------------------------------------------------------------------------------
// Cast, CastLike and BitCast.

// Converts every element of `x` into `y` (same element count).
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

struct CastParams {
  DataType to = DataType::kUndefined;  // kUndefined: the output's planned type (CastLike)
};

Status RunCast(const NodeDef& def, const CastParams& p, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kAny), "");
  KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, x->dims));
  if (p.to != DataType::kUndefined && y->dtype != p.to) {
    return def.Fail(code::kInvalidParam, "output is ", ir::Name(y->dtype), " but 'to' is ",
                    ir::Name(p.to));
  }
  KILN_RETURN_IF_ERROR(CheckType(def, "output", y->dtype, Kind::kAny), "");
  ConvertElements(*x, *y);
  return Status::Ok();
}

// The element type named by attribute 'to' (Cast, BitCast).
Result<DataType> TargetType(const NodeDef& def) {
  if (!def.has_attr("to")) return def.Fail(code::kInvalidParam, "attribute 'to' is required");
  int64_t to = def.attr_int("to", 0);
  DataType t = ir::FromOnnx(static_cast<int32_t>(to));
  if (t == DataType::kUndefined || t == DataType::kString) {
    return def.Fail(code::kFeatureUnsupported, "attribute 'to' = ", to,
                    " names a type Kiln does not support");
  }
  return t;
}

Result<std::unique_ptr<Kernel>> PrepareCast(const NodeDef& def, bool like) {
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kAny), "");
  CastParams p;
  if (like) {
    KILN_RETURN_IF_ERROR(CheckPlanned(def, 1, Kind::kAny), "");
  } else {
    KILN_ASSIGN_OR_RETURN(p.to, TargetType(def));
  }
  // 'saturate' and 'round_mode' only affect float8 targets, which Kiln does not have.
  return Bind(def, p, RunCast);
}

Status RunBitCast(const NodeDef& def, const CastParams& p, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kAny), "");
  if (ir::SizeOf(x->dtype) != ir::SizeOf(p.to)) {
    return def.Fail(code::kInvalidParam, "input is ", ir::Name(x->dtype), " and 'to' is ",
                    ir::Name(p.to), "; they must have the same bit width");
  }
  KILN_ASSIGN_OR_RETURN(TensorView * y, Out(def, ctx, 0, x->dims, p.to));
  if (x->bytes() != 0 && y->data != x->data) std::memmove(y->data, x->data, x->bytes());
  if (p.to == DataType::kBool) {
    // A bool byte must be 0 or 1; any non-zero pattern reads as true.
    auto* b = y->as<uint8_t>();
    for (int64_t i = 0; i < y->num_elements(); ++i) b[i] = b[i] != 0;
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareBitCast(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kAny), "");
  CastParams p;
  KILN_ASSIGN_OR_RETURN(p.to, TargetType(def));
  DataType in = PlannedType(def, 0);
  if (in != DataType::kUndefined && ir::SizeOf(in) != ir::SizeOf(p.to)) {
    return def.Fail(code::kInvalidParam, "input is ", ir::Name(in), " and 'to' is ", ir::Name(p.to),
                    "; they must have the same bit width");
  }
  return Bind(def, p, RunBitCast);
}

// ---------------------------------------------------------------------------------------------
// Identity and Dropout (inference).

Status RunIdentity(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kAny), "");
  return CopyToOutput(ctx, 0, *x);
}

// Reads a one-element tensor as a double; kInvalidParam naming `what` otherwise.
Result<double> ScalarValue(const NodeDef& def, const TensorView& t, const char* what) {
  if (t.num_elements() != 1 || !Accepts(Kind::kNumericOrBool, t.dtype)) {
    return def.Fail(code::kInvalidParam, what, " must be a numeric scalar, got ", ir::Name(t.dtype),
                    " ", DimsString(t.dims));
  }
  return ReadDoubles(t)[0];
}

struct DropoutParams {
  bool inputs = false;  // opset >= 12: ratio and training_mode are inputs
};

Status RunDropout(const NodeDef& def, const DropoutParams& p, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, In(def, ctx, 0));
  KILN_RETURN_IF_ERROR(CheckType(def, "input", x->dtype, Kind::kAny), "");
  if (p.inputs) {
    const TensorView* ratio = ctx.num_inputs() > 1 ? ctx.input(1) : nullptr;
    const TensorView* train = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
    double r = 0.5;
    if (ratio) {
      KILN_ASSIGN_OR_RETURN(r, ScalarValue(def, *ratio, "ratio"));
    }
    double t = 0;
    if (train) {
      KILN_ASSIGN_OR_RETURN(t, ScalarValue(def, *train, "training_mode"));
    }
    if (t != 0 && r != 0) {
      return def.Fail(code::kFeatureUnsupported,
                      "training_mode is true; Kiln runs Dropout in inference mode only");
    }
  }
  KILN_RETURN_IF_ERROR(CopyToOutput(ctx, 0, *x), "");
  if (ctx.num_outputs() > 1 && ctx.output_wanted(1)) {
    KILN_ASSIGN_OR_RETURN(TensorView * mask, ctx.Output(1, x->dims));
    const int64_t n = mask->num_elements();
    // The mask is bool from opset 10; Dropout-7 typed it like the input.
    if (!DispatchAny(mask->dtype, [&](auto tag) {
          using T = typename decltype(tag)::type;
          for (int64_t i = 0; i < n; ++i) Store(mask->as<T>(), i, ComputeT<T>(1));
        })) {
      return def.Fail(code::kInvalidParam, "mask output is ", ir::Name(mask->dtype));
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<Kernel>> PrepareDropout(const NodeDef& def) {
  KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kAny), "");
  DropoutParams p;
  p.inputs = def.opset >= 12;
  if (p.inputs) {
    // A constant training_mode = true with a non-zero ratio is training; refuse it early.
    const TensorView* train = def.constant(2);
    const TensorView* ratio = def.constant(1);
    if (train && def.input_given(2)) {
      KILN_ASSIGN_OR_RETURN(double t, ScalarValue(def, *train, "training_mode"));
      double r = 0.5;
      if (ratio && def.input_given(1)) {
        KILN_ASSIGN_OR_RETURN(r, ScalarValue(def, *ratio, "ratio"));
      }
      bool ratio_known = !def.input_given(1) || ratio != nullptr;
      if (t != 0 && ratio_known && r != 0) {
        return def.Fail(code::kFeatureUnsupported,
                        "training_mode is true; Kiln runs Dropout in inference mode only");
      }
    }
  }
  return Bind(def, p, RunDropout);
}

}  // namespace

void RegisterElementwiseKernels(KernelRegistry& r) {
  for (const UnaryInfo& info : kUnaryOps) {
    r.Register(kReferenceBackend, "", info.name,
               [info](const NodeDef& def) { return PrepareUnary(def, info); });
  }
  r.Register(kReferenceBackend, "", "IsNaN",
             [](const NodeDef& def) { return PreparePredicate(def, true); });
  r.Register(kReferenceBackend, "", "IsInf",
             [](const NodeDef& def) { return PreparePredicate(def, false); });

  struct FoldInfo {
    const char* name;
    Fold op;
    Kind kind;
    bool mean;
  };
  const FoldInfo folds[] = {
      {"Add", Fold::kAdd, Kind::kNumeric, false},
      {"Sub", Fold::kSub, Kind::kNumeric, false},
      {"Mul", Fold::kMul, Kind::kNumeric, false},
      {"Div", Fold::kDiv, Kind::kNumeric, false},
      {"Mod", Fold::kMod, Kind::kNumeric, false},
      {"Max", Fold::kMax, Kind::kNumeric, false},
      {"Min", Fold::kMin, Kind::kNumeric, false},
      {"Sum", Fold::kAdd, Kind::kNumeric, false},
      {"Mean", Fold::kAdd, Kind::kNumeric, true},
      {"And", Fold::kAnd, Kind::kBool, false},
      {"Or", Fold::kOr, Kind::kBool, false},
      {"Xor", Fold::kXor, Kind::kBool, false},
      {"BitwiseAnd", Fold::kBitAnd, Kind::kInteger, false},
      {"BitwiseOr", Fold::kBitOr, Kind::kInteger, false},
      {"BitwiseXor", Fold::kBitXor, Kind::kInteger, false},
      {"BitShift", Fold::kShiftLeft, Kind::kUnsigned, false},
  };
  for (const FoldInfo& f : folds) {
    FoldParams p{f.op, f.kind, f.mean};
    r.Register(kReferenceBackend, "", f.name,
               [p](const NodeDef& def) { return PrepareFold(def, p); });
  }

  const std::pair<const char*, CmpParams> compares[] = {
      {"Equal", {Cmp::kEqual, Kind::kNumericOrBool}},
      {"Less", {Cmp::kLess, Kind::kNumeric}},
      {"Greater", {Cmp::kGreater, Kind::kNumeric}},
      {"LessOrEqual", {Cmp::kLessOrEqual, Kind::kNumeric}},
      {"GreaterOrEqual", {Cmp::kGreaterOrEqual, Kind::kNumeric}},
  };
  for (const auto& [name, p] : compares) {
    CmpParams params = p;
    r.Register(kReferenceBackend, "", name,
               [params](const NodeDef& def) { return PrepareCompare(def, params); });
  }

  r.Register(kReferenceBackend, "", "Pow", PreparePow);
  r.Register(kReferenceBackend, "", "PRelu",
             [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               for (size_t i = 0; i < 2; ++i)
                 KILN_RETURN_IF_ERROR(CheckPlanned(def, i, Kind::kNumeric), "");
               return Bind(def, 0, RunPRelu);
             });
  r.Register(kReferenceBackend, "", "Where", PrepareWhere);
  r.Register(kReferenceBackend, "", "Clip", PrepareClip);
  r.Register(kReferenceBackend, "", "Cast",
             [](const NodeDef& def) { return PrepareCast(def, false); });
  r.Register(kReferenceBackend, "", "CastLike",
             [](const NodeDef& def) { return PrepareCast(def, true); });
  r.Register(kReferenceBackend, "", "BitCast", PrepareBitCast);
  r.Register(kReferenceBackend, "", "Identity",
             [](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               KILN_RETURN_IF_ERROR(CheckPlanned(def, 0, Kind::kAny), "");
               return MakeFunctionKernel(def, RunIdentity);
             });
  r.Register(kReferenceBackend, "", "Dropout", PrepareDropout);
}

}  // namespace kiln::kernels
