// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the reductions (ReduceSum, ReduceMean, ReduceMax, ReduceMin, ReduceProd,
// ReduceL1, ReduceL2, ReduceLogSum, ReduceLogSumExp, ReduceSumSquare) and of ArgMax / ArgMin.
//
// Floats accumulate in double. Integer sums, products and means wrap modulo the type as numpy
// does with dtype=x.dtype; integer L2 / LogSum / LogSumExp are computed in double and converted
// back with truncation, saturating at the type's range. A reduction over no values yields the
// ONNX identity: 0 for sums and norms, 1 for products, -inf / +inf (the type's lowest / highest
// for integers, false / true for bool) for max / min, -inf for the log reductions, NaN for a
// float mean (0 for an integer one).
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

enum class ReduceOp { kL1, kL2, kLogSum, kLogSumExp, kMax, kMean, kMin, kProd, kSum, kSumSquare };

// Calls fn(in_index, out_index) for every element of a tensor of `dims` in row-major order,
// where out_index advances by out_stride[d] along axis d (0 along the reduced axes).
template <typename Fn>
void ForEachElement(const Dims& dims, const Dims& out_stride, Fn&& fn) {
  const int64_t n = NumElements(dims);
  const size_t rank = dims.size();
  Dims idx(rank, 0);
  int64_t o = 0;
  for (int64_t i = 0; i < n; ++i) {
    fn(i, o);
    for (size_t d = rank; d-- > 0;) {
      o += out_stride[d];
      if (++idx[d] < dims[d]) break;
      o -= out_stride[d] * dims[d];
      idx[d] = 0;
    }
  }
}

// `v` converted to integer type T: truncated toward zero, saturated at T's range, NaN -> 0.
template <typename T>
T SaturateToInt(double v) {
  if (std::isnan(v)) return T{0};
  constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
  constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
  if (v <= lo) return std::numeric_limits<T>::lowest();
  if (v >= hi) return std::numeric_limits<T>::max();
  return static_cast<T>(v);
}

// The reductions computed in double, fed (output index, value) pairs.
struct DoubleReducer {
  ReduceOp op;
  std::vector<double> acc;
  std::vector<double> shift;  // LogSumExp: the largest finite value of each output

  DoubleReducer(ReduceOp o, int64_t n) : op(o), acc(static_cast<size_t>(n), Init(o)) {}

  static double Init(ReduceOp op) {
    switch (op) {
      case ReduceOp::kProd:
        return 1.0;
      case ReduceOp::kMax:
        return -std::numeric_limits<double>::infinity();
      case ReduceOp::kMin:
        return std::numeric_limits<double>::infinity();
      default:
        return 0.0;
    }
  }

  void Add(int64_t o, double v) {
    double& a = acc[static_cast<size_t>(o)];
    switch (op) {
      case ReduceOp::kSum:
      case ReduceOp::kMean:
      case ReduceOp::kLogSum:
        a += v;
        break;
      case ReduceOp::kL1:
        a += std::fabs(v);
        break;
      case ReduceOp::kL2:
      case ReduceOp::kSumSquare:
        a += v * v;
        break;
      case ReduceOp::kProd:
        a *= v;
        break;
      case ReduceOp::kMax:
        if (!std::isnan(a) && (std::isnan(v) || v > a)) a = v;
        break;
      case ReduceOp::kMin:
        if (!std::isnan(a) && (std::isnan(v) || v < a)) a = v;
        break;
      case ReduceOp::kLogSumExp:
        a += std::exp(v - shift[static_cast<size_t>(o)]);
        break;
    }
  }

  double Result(int64_t o, int64_t count) const {
    const double a = acc[static_cast<size_t>(o)];
    switch (op) {
      case ReduceOp::kL2:
        return std::sqrt(a);
      case ReduceOp::kLogSum:
        return std::log(a);
      case ReduceOp::kMean:
        return a / static_cast<double>(count);
      case ReduceOp::kLogSumExp:
        return std::log(a) + shift[static_cast<size_t>(o)];
      default:
        return a;
    }
  }
};

// Integer sums, products and means, modulo 2^64 (and so modulo the type once narrowed back).
template <typename T>
void ReduceIntegerWrapping(ReduceOp op, const TensorView& x, const Dims& out_stride, int64_t count,
                           TensorView* y) {
  const int64_t n_out = y->num_elements();
  std::vector<uint64_t> acc(static_cast<size_t>(n_out), op == ReduceOp::kProd ? 1u : 0u);
  const T* in = x.as<const T>();
  ForEachElement(x.dims, out_stride, [&](int64_t i, int64_t o) {
    const T v = in[i];
    uint64_t u = static_cast<uint64_t>(v);  // two's complement for signed types
    if constexpr (std::is_signed_v<T>) {
      if (op == ReduceOp::kL1 && v < 0) u = 0 - u;
    }
    uint64_t& a = acc[static_cast<size_t>(o)];
    switch (op) {
      case ReduceOp::kProd:
        a *= u;
        break;
      case ReduceOp::kSumSquare:
        a += u * u;
        break;
      default:
        a += u;
        break;  // kSum, kMean, kL1
    }
  });
  T* out = y->as<T>();
  for (int64_t o = 0; o < n_out; ++o) {
    uint64_t a = acc[static_cast<size_t>(o)];
    if (op == ReduceOp::kMean) {
      if (count == 0) {
        a = 0;
      } else if constexpr (std::is_signed_v<T>) {
        a = static_cast<uint64_t>(static_cast<int64_t>(a) / count);  // truncates like numpy
      } else {
        a /= static_cast<uint64_t>(count);
      }
    }
    out[o] = static_cast<T>(a);
  }
}

// Max / min of integers and bool in the type itself (exact for 64-bit values).
template <typename T>
void ReduceExtremum(bool is_max, const TensorView& x, const Dims& out_stride, TensorView* y) {
  const int64_t n_out = y->num_elements();
  T init;
  if constexpr (std::is_same_v<T, bool>) {
    init = !is_max;
  } else {
    init = is_max ? std::numeric_limits<T>::lowest() : std::numeric_limits<T>::max();
  }
  T* out = y->as<T>();
  for (int64_t o = 0; o < n_out; ++o) out[o] = init;
  const T* in = x.as<const T>();
  ForEachElement(x.dims, out_stride, [&](int64_t i, int64_t o) {
    if (is_max ? in[i] > out[o] : in[i] < out[o]) out[o] = in[i];
  });
}

template <typename T>
void ReduceTyped(ReduceOp op, const TensorView& x, const Dims& out_stride, int64_t count,
                 TensorView* y) {
  if constexpr (!kIsFloat<T>) {
    if (op == ReduceOp::kMax || op == ReduceOp::kMin) {
      ReduceExtremum<T>(op == ReduceOp::kMax, x, out_stride, y);
      return;
    }
    if constexpr (!std::is_same_v<T, bool>) {
      if (op != ReduceOp::kL2 && op != ReduceOp::kLogSum && op != ReduceOp::kLogSumExp) {
        ReduceIntegerWrapping<T>(op, x, out_stride, count, y);
        return;
      }
    }
  }
  if constexpr (!std::is_same_v<T, bool>) {
    const int64_t n_out = y->num_elements();
    const T* in = x.as<const T>();
    DoubleReducer r(op, n_out);
    if (op == ReduceOp::kLogSumExp) {
      // Subtract the largest finite value so exp() cannot overflow; infinities are left to
      // exp() itself (+inf gives +inf, -inf contributes 0).
      r.shift.assign(static_cast<size_t>(n_out), -std::numeric_limits<double>::infinity());
      ForEachElement(x.dims, out_stride, [&](int64_t i, int64_t o) {
        const double v = static_cast<double>(Load(in, i));
        double& s = r.shift[static_cast<size_t>(o)];
        if (std::isfinite(v) && v > s) s = v;
      });
      for (double& s : r.shift) {
        if (!std::isfinite(s)) s = 0.0;
      }
    }
    ForEachElement(x.dims, out_stride,
                   [&](int64_t i, int64_t o) { r.Add(o, static_cast<double>(Load(in, i))); });
    T* out = y->as<T>();
    for (int64_t o = 0; o < n_out; ++o) {
      const double v = r.Result(o, count);
      if constexpr (kIsFloat<T>) {
        Store(out, o, static_cast<ComputeT<T>>(v));
      } else {
        out[o] = SaturateToInt<T>(v);
      }
    }
  }
}

// The opset from which the op takes its axes as input 1 instead of the 'axes' attribute.
int AxesInputSince(const std::string& op_type) { return op_type == "ReduceSum" ? 13 : 18; }

class ReduceKernel final : public Kernel {
 public:
  ReduceKernel(const NodeDef& def, ReduceOp op)
      : def_(def),
        op_(op),
        axes_from_input_(def.opset >= AxesInputSince(def.op_type)),
        attr_axes_(axes_from_input_ ? std::vector<int64_t>{} : def.attr_ints("axes")),
        noop_with_empty_axes_(axes_from_input_ && def.attr_int("noop_with_empty_axes") != 0) {}

  Status Run(KernelContext& ctx) const override {
    const TensorView* x = ctx.input(0);
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    std::vector<int64_t> axes = attr_axes_;
    if (axes_from_input_ && ctx.num_inputs() > 1 && ctx.input(1) != nullptr) {
      axes = ReadInts(*ctx.input(1));
    }
    // A computed axes input is checked here, on its values: out of range or repeated.
    const int64_t rank = static_cast<int64_t>(x->rank());
    std::vector<bool> reduced(x->rank(), axes.empty() && !noop_with_empty_axes_);
    for (int64_t axis : axes) {
      std::optional<int64_t> a = NormalizeAxis(axis, rank);
      if (!a) {
        return def_.Fail(code::kInvalidParam, "axis ", axis, " is out of range for input ",
                         DimsString(x->dims), " of rank ", rank);
      }
      if (reduced[static_cast<size_t>(*a)]) {
        return def_.Fail(code::kInvalidParam, "axis ", *a, " of input ", DimsString(x->dims),
                         " is named more than once in the axes");
      }
      reduced[static_cast<size_t>(*a)] = true;
    }
    // Output element of each input element: the row-major index over x's dims with the reduced
    // ones made 1 (keepdims only decides whether the output lists those 1s).
    Dims kept_dims(x->dims);
    int64_t count = 1;
    for (size_t d = 0; d < x->rank(); ++d) {
      if (reduced[d]) {
        count *= x->dims[d];
        kept_dims[d] = 1;
      }
    }
    if (NumElements(kept_dims) != y->num_elements()) {
      return def_.Fail(code::kInvalidParam, "reducing input ", DimsString(x->dims),
                       " does not give the output dims ", DimsString(y->dims));
    }
    Dims out_stride = Strides(kept_dims);
    for (size_t d = 0; d < x->rank(); ++d) {
      if (reduced[d]) out_stride[d] = 0;
    }
    DispatchAny(x->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      ReduceTyped<T>(op_, *x, out_stride, count, y);
    });
    return Status::Ok();
  }

 private:
  NodeDef def_;
  ReduceOp op_;
  bool axes_from_input_;
  std::vector<int64_t> attr_axes_;
  bool noop_with_empty_axes_;
};

Result<std::unique_ptr<Kernel>> MakeReduce(const NodeDef& def, ReduceOp op) {
  return std::unique_ptr<Kernel>(std::make_unique<ReduceKernel>(def, op));
}

// ArgMax / ArgMin: the index of the first (or, with select_last_index, last) extreme value along
// `axis`; NaN counts as the extreme for both, as numpy's argmax/argmin have it.
template <bool kMax>
Status RunArgReduce(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  // The definition checked the axis against the input's rank.
  const size_t a = static_cast<size_t>(
      NormalizeAxis(def.attr_int("axis"), static_cast<int64_t>(x->rank())).value_or(0));
  const bool last = def.attr_int("select_last_index") != 0;
  const int64_t outer = Product(x->dims, 0, a);
  const int64_t len = x->dims[a];
  const int64_t inner = Product(x->dims, a + 1, x->dims.size());
  if (len == 0 && outer * inner != 0) {
    return def.Fail(code::kInvalidParam, "cannot take the arg", kMax ? "max" : "min",
                    " of an empty axis ", a, " of input ", DimsString(x->dims));
  }
  int64_t* out = y->as<int64_t>();
  DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = x->as<const T>();
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t k = 0; k < inner; ++k) {
        const int64_t base = o * len * inner + k;
        auto best = Load(in, base);
        int64_t best_i = 0;
        for (int64_t i = 1; i < len; ++i) {
          const auto v = Load(in, base + i * inner);
          bool take;
          if constexpr (kIsFloat<T>) {
            if (std::isnan(best)) {
              take = last && std::isnan(v);
            } else if (std::isnan(v)) {
              take = true;
            } else {
              take = kMax ? v > best : v < best;
              take = take || (last && v == best);
            }
          } else {
            take = (kMax ? v > best : v < best) || (last && v == best);
          }
          if (take) {
            best = v;
            best_i = i;
          }
        }
        out[o * inner + k] = best_i;
      }
    }
  });
  return Status::Ok();
}

template <bool kMax>
Result<std::unique_ptr<Kernel>> MakeArgReduce(const NodeDef& def) {
  const DataType dtype = def.input_types.empty() ? DataType::kUndefined : def.input_types[0];
  if (!ir::IsFloat(dtype) && !ir::IsInteger(dtype)) {
    return def.Fail(code::kFeatureUnsupported, "input type ", ir::Name(dtype),
                    " is not supported; a numeric type is required");
  }
  return MakeFunctionKernel(def, RunArgReduce<kMax>);
}

}  // namespace

void RegisterReduceKernels(KernelRegistry& r) {
  const std::pair<const char*, ReduceOp> ops[] = {
      {"ReduceL1", ReduceOp::kL1},         {"ReduceL2", ReduceOp::kL2},
      {"ReduceLogSum", ReduceOp::kLogSum}, {"ReduceLogSumExp", ReduceOp::kLogSumExp},
      {"ReduceMax", ReduceOp::kMax},       {"ReduceMean", ReduceOp::kMean},
      {"ReduceMin", ReduceOp::kMin},       {"ReduceProd", ReduceOp::kProd},
      {"ReduceSum", ReduceOp::kSum},       {"ReduceSumSquare", ReduceOp::kSumSquare},
  };
  for (const auto& [name, op] : ops) {
    r.Register(kReferenceBackend, "", name,
               [op = op](const NodeDef& def) { return MakeReduce(def, op); });
  }
  r.Register(kReferenceBackend, "", "ArgMax", MakeArgReduce<true>);
  r.Register(kReferenceBackend, "", "ArgMin", MakeArgReduce<false>);
}

}  // namespace kiln::kernels
