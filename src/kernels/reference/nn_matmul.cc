// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the nn family's matrix products (MatMul, Gemm, Einsum) and Flatten.
// Floats accumulate in double; integers accumulate in uint64 and wrap like numpy's fixed-width
// integers (the result is the exact sum modulo 2^bits of the element type).
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {

void RegisterNnMatmulKernels(KernelRegistry& r);

namespace {
namespace nn_matmul {

template <typename T>
void StoreAcc(T* p, int64_t i, AccT<T> v) {
  if constexpr (kIsFloat<T>) {
    Store(p, i, static_cast<ComputeT<T>>(v));
  } else {
    p[i] = static_cast<T>(v);  // modulo 2^bits
  }
}

// Prepare check: every given input has one numeric (not bool) type Kiln stores.
Status CheckNumericInputs(const NodeDef& def) {
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (!def.input_given(i) || i >= def.input_types.size()) continue;
    DataType t = def.input_types[i];
    if (!ir::IsFloat(t) && !ir::IsInteger(t)) {
      return def.Fail(code::kFeatureUnsupported, "input ", i, " is ", ir::Name(t),
                      "; only numeric types are supported");
    }
  }
  return Status::Ok();
}

Status SameType(const NodeDef& def, const TensorView& a, const TensorView& b) {
  if (a.dtype == b.dtype) return Status::Ok();
  return def.Fail(code::kInvalidParam, "inputs have types ", ir::Name(a.dtype), " and ",
                  ir::Name(b.dtype), "; they must be the same");
}

// The product of a[m x k] and b[k x n], where element (i, j) of a is a[i * a_row + j * a_col]
// (likewise for b): emit(i, j, sum) for each output element. i-k-j order over a row of
// accumulators, so b is read along its rows.
template <typename T, typename Emit>
void MatMulBlock(const T* a, int64_t a_row, int64_t a_col, const T* b, int64_t b_row, int64_t b_col,
                 int64_t m, int64_t k, int64_t n, std::vector<AccT<T>>& acc, Emit&& emit) {
  acc.resize(static_cast<size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(acc.begin(), acc.end(), AccT<T>{});
    for (int64_t kk = 0; kk < k; ++kk) {
      const AccT<T> av = LoadAcc(a, i * a_row + kk * a_col);
      const T* brow = b + kk * b_row;
      if (b_col == 1) {
        for (int64_t j = 0; j < n; ++j) acc[static_cast<size_t>(j)] += av * LoadAcc(brow, j);
      } else {
        for (int64_t j = 0; j < n; ++j) {
          acc[static_cast<size_t>(j)] += av * LoadAcc(brow, j * b_col);
        }
      }
    }
    for (int64_t j = 0; j < n; ++j) emit(i, j, acc[static_cast<size_t>(j)]);
  }
}

// ---------------------------------------------------------------------------------------------
// MatMul: numpy.matmul (1-D operands promoted to matrices, batch dims broadcast).

Status RunMatMul(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* a, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* b, RequiredInput(def, ctx, 1));
  KILN_RETURN_IF_ERROR(SameType(def, *a, *b), "");
  if (a->rank() == 0 || b->rank() == 0) {
    return def.Fail(code::kInvalidParam, "inputs must have rank >= 1, got ", DimsString(a->dims),
                    " and ", DimsString(b->dims));
  }
  Dims ad = a->dims, bd = b->dims;
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  if (bd[bd.size() - 2] != k) {
    return def.Fail(code::kInvalidParam, "A ", DimsString(a->dims), " and B ", DimsString(b->dims),
                    " disagree on the inner dim (", k, " vs ", bd[bd.size() - 2], ")");
  }
  Dims a_batch(ad.begin(), ad.end() - 2), b_batch(bd.begin(), bd.end() - 2);
  std::optional<Dims> batch = BroadcastDims({&a_batch, &b_batch});
  if (!batch) {
    return def.Fail(code::kInvalidParam, "the batch dims of A ", DimsString(a->dims), " and B ",
                    DimsString(b->dims), " cannot be broadcast together");
  }
  Dims out = *batch;
  if (a->rank() > 1) out.push_back(m);
  if (b->rank() > 1) out.push_back(n);
  KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, out));
  const std::vector<int64_t> ai = BroadcastIndex(a_batch, *batch);
  const std::vector<int64_t> bi = BroadcastIndex(b_batch, *batch);
  bool ok = DispatchNumeric(a->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<AccT<T>> acc;
    for (size_t i = 0; i < ai.size(); ++i) {
      T* yp = y->as<T>() + static_cast<int64_t>(i) * m * n;
      MatMulBlock(a->as<const T>() + ai[i] * m * k, k, 1, b->as<const T>() + bi[i] * k * n, n, 1, m,
                  k, n, acc, [&](int64_t r, int64_t c, AccT<T> v) { StoreAcc(yp, r * n + c, v); });
    }
  });
  if (ok) return Status::Ok();
  return def.Fail(code::kFeatureUnsupported, "type ", ir::Name(a->dtype), " is not supported");
}

// ---------------------------------------------------------------------------------------------
// Gemm: alpha * op(A) * op(B) + beta * C, C broadcast unidirectionally to [M, N].

// A double converted to integer type T with truncation, saturating at T's range.
template <typename T>
T SaturatingCast(double v) {
  if (std::isnan(v)) return T{};
  if (v <= static_cast<double>(std::numeric_limits<T>::lowest())) {
    return std::numeric_limits<T>::lowest();
  }
  if (v >= static_cast<double>(std::numeric_limits<T>::max())) {
    return std::numeric_limits<T>::max();
  }
  return static_cast<T>(v);
}

Status RunGemm(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* a, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* b, RequiredInput(def, ctx, 1));
  const TensorView* c = ctx.input(2);
  KILN_RETURN_IF_ERROR(SameType(def, *a, *b), "");
  if (c) KILN_RETURN_IF_ERROR(SameType(def, *a, *c), "");
  if (a->rank() != 2 || b->rank() != 2) {
    return def.Fail(code::kInvalidParam, "A ", DimsString(a->dims), " and B ", DimsString(b->dims),
                    " must be matrices");
  }
  const bool ta = def.attr_int("transA", 0) != 0, tb = def.attr_int("transB", 0) != 0;
  const int64_t m = a->dims[ta], k = a->dims[!ta], n = b->dims[!tb];
  if (b->dims[tb] != k) {
    return def.Fail(code::kInvalidParam, "A ", DimsString(a->dims), " (transA=", ta, ") and B ",
                    DimsString(b->dims), " (transB=", tb, ") disagree on K (", k, " vs ",
                    b->dims[tb], ")");
  }
  const Dims out{m, n};
  std::vector<int64_t> ci;
  if (c) {
    bool ok = c->rank() <= 2;
    for (size_t i = 0; ok && i < c->rank(); ++i) {
      int64_t d = c->dims[c->rank() - 1 - i];
      ok = d == 1 || d == out[1 - i];
    }
    if (!ok) {
      return def.Fail(code::kInvalidParam, "C has shape ", DimsString(c->dims),
                      ", which does not broadcast to [M,N] = ", DimsString(out));
    }
    ci = BroadcastIndex(c->dims, out);
  }
  KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, out));
  const double alpha = def.attr_float("alpha", 1.0f), beta = def.attr_float("beta", 1.0f);
  bool ok = DispatchNumeric(a->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    std::vector<AccT<T>> acc;
    // op(A)(i, kk) = A[i * a_row + kk * a_col].
    const int64_t a_row = ta ? 1 : k, a_col = ta ? m : 1;
    const int64_t b_row = tb ? 1 : n, b_col = tb ? k : 1;
    T* yp = y->as<T>();
    const T* cp = c ? c->as<const T>() : nullptr;
    // Integral factors keep integer arithmetic exact (wrapping); others go through double and
    // truncate, as numpy's float factors do.
    const bool integral = alpha == std::trunc(alpha) && beta == std::trunc(beta) &&
                          std::fabs(alpha) < 9.2e18 && std::fabs(beta) < 9.2e18;
    MatMulBlock(a->as<const T>(), a_row, a_col, b->as<const T>(), b_row, b_col, m, k, n, acc,
                [&](int64_t r, int64_t col, AccT<T> v) {
                  const int64_t i = r * n + col;
                  const AccT<T> cv = cp ? LoadAcc(cp, ci[static_cast<size_t>(i)]) : AccT<T>{};
                  if constexpr (kIsFloat<T>) {
                    StoreAcc(yp, i, alpha * v + (cp ? beta * cv : 0.0));
                  } else if (integral) {
                    const uint64_t fa = static_cast<uint64_t>(static_cast<int64_t>(alpha));
                    const uint64_t fb = static_cast<uint64_t>(static_cast<int64_t>(beta));
                    StoreAcc(yp, i, fa * v + fb * cv);
                  } else {
                    double d = alpha * static_cast<double>(static_cast<T>(v)) +
                               (cp ? beta * static_cast<double>(static_cast<T>(cv)) : 0.0);
                    yp[i] = SaturatingCast<T>(d);
                  }
                });
  });
  if (ok) return Status::Ok();
  return def.Fail(code::kFeatureUnsupported, "type ", ir::Name(a->dtype), " is not supported");
}

// ---------------------------------------------------------------------------------------------
// Einsum.

// A label is a letter (0-51) or one of the dims "..." stands for (kEllipsis + position).
constexpr int kEllipsis = 52;

struct EinsumTerm {
  std::vector<int> labels;
  int ellipsis = -1;  // index in `labels` where "..." sits; -1 when absent
};

int LabelOf(char c) {
  return std::islower(static_cast<unsigned char>(c)) ? c - 'a' : 26 + (c - 'A');
}

Result<EinsumTerm> ParseTerm(const NodeDef& def, std::string_view text) {
  EinsumTerm t;
  for (size_t i = 0; i < text.size(); ++i) {
    if (std::isalpha(static_cast<unsigned char>(text[i]))) {
      t.labels.push_back(LabelOf(text[i]));
    } else if (text.substr(i, 3) == "..." && t.ellipsis < 0) {
      t.ellipsis = static_cast<int>(t.labels.size());
      i += 2;
    } else {
      return def.Fail(code::kInvalidParam, "einsum term \"", text, "\" has an unexpected '",
                      text[i], "'");
    }
  }
  return t;
}

class EinsumKernel final : public Kernel {
 public:
  static Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def) {
    KILN_RETURN_IF_ERROR(CheckNumericInputs(def), "");
    if (!def.has_attr("equation")) {
      return def.Fail(code::kInvalidParam, "attribute 'equation' is required");
    }
    std::string eq = def.attr_string("equation", "");
    eq.erase(std::remove_if(eq.begin(), eq.end(), [](unsigned char c) { return std::isspace(c); }),
             eq.end());
    auto k = std::unique_ptr<EinsumKernel>(new EinsumKernel(def));
    const size_t arrow = eq.find("->");
    std::string_view lhs = std::string_view(eq).substr(0, arrow);
    while (true) {
      size_t comma = lhs.find(',');
      KILN_ASSIGN_OR_RETURN(EinsumTerm term, ParseTerm(def, lhs.substr(0, comma)));
      k->inputs_.push_back(std::move(term));
      if (comma == std::string_view::npos) break;
      lhs.remove_prefix(comma + 1);
    }
    if (k->inputs_.size() != def.num_inputs()) {
      return def.Fail(code::kInvalidParam, "equation \"", eq, "\" has ", k->inputs_.size(),
                      " operand terms but the node has ", def.num_inputs(), " inputs");
    }
    std::vector<int> uses(kEllipsis, 0);
    bool any_ellipsis = false;
    for (const EinsumTerm& t : k->inputs_) {
      for (int l : t.labels) ++uses[static_cast<size_t>(l)];
      any_ellipsis |= t.ellipsis >= 0;
    }
    if (arrow != std::string::npos) {
      KILN_ASSIGN_OR_RETURN(k->output_, ParseTerm(def, std::string_view(eq).substr(arrow + 2)));
      std::vector<bool> seen(kEllipsis, false);
      for (int l : k->output_.labels) {
        char c = static_cast<char>(l < 26 ? 'a' + l : 'A' + (l - 26));
        if (uses[static_cast<size_t>(l)] == 0) {
          return def.Fail(code::kInvalidParam, "einsum output label '", c,
                          "' does not appear in any input");
        }
        if (seen[static_cast<size_t>(l)]) {
          return def.Fail(code::kInvalidParam, "einsum output label '", c, "' repeats");
        }
        seen[static_cast<size_t>(l)] = true;
      }
    } else {
      // Implicit output: "..." first, then the labels used once, in ASCII order (capitals first).
      if (any_ellipsis) k->output_.ellipsis = 0;
      for (int l = 26; l < kEllipsis; ++l) {
        if (uses[static_cast<size_t>(l)] == 1) k->output_.labels.push_back(l);
      }
      for (int l = 0; l < 26; ++l) {
        if (uses[static_cast<size_t>(l)] == 1) k->output_.labels.push_back(l);
      }
    }
    return std::unique_ptr<Kernel>(std::move(k));
  }

  Status Run(KernelContext& ctx) const override {
    const size_t num = inputs_.size();
    std::vector<const TensorView*> ops(num);
    for (size_t i = 0; i < num; ++i) {
      KILN_ASSIGN_OR_RETURN(ops[i], RequiredInput(def_, ctx, i));
      KILN_RETURN_IF_ERROR(SameType(def_, *ops[0], *ops[i]), "");
    }
    // The rank "..." stands for: the largest over the operands (right-aligned, broadcast).
    size_t ell_rank = 0;
    for (size_t i = 0; i < num; ++i) {
      const EinsumTerm& t = inputs_[i];
      const size_t n = t.labels.size(), r = ops[i]->rank();
      if (t.ellipsis >= 0 ? r < n : r != n) {
        return def_.Fail(code::kInvalidParam, "einsum operand ", i, " has shape ",
                         DimsString(ops[i]->dims), " but its term has ", n, " labels",
                         t.ellipsis >= 0 ? " and \"...\"" : "");
      }
      if (t.ellipsis >= 0) ell_rank = std::max(ell_rank, r - n);
    }
    // Each operand dim's label; the size of every label.
    const size_t num_labels = kEllipsis + ell_rank;
    std::vector<int64_t> size(num_labels, -1);
    std::vector<std::vector<int>> dim_labels(num);
    for (size_t i = 0; i < num; ++i) {
      const EinsumTerm& t = inputs_[i];
      const size_t r = ops[i]->rank(), ell = t.ellipsis >= 0 ? r - t.labels.size() : 0;
      for (size_t d = 0, j = 0; d < r; ++d) {
        bool in_ellipsis = t.ellipsis >= 0 && d >= static_cast<size_t>(t.ellipsis) &&
                           d < static_cast<size_t>(t.ellipsis) + ell;
        int label = in_ellipsis ? static_cast<int>(kEllipsis + ell_rank - ell +
                                                   (d - static_cast<size_t>(t.ellipsis)))
                                : t.labels[j++];
        dim_labels[i].push_back(label);
      }
      for (size_t d = 0; d < r; ++d) {
        const int64_t dim = ops[i]->dims[d];
        int64_t& s = size[static_cast<size_t>(dim_labels[i][d])];
        // A label repeated within one operand (a diagonal) needs equal dims; across operands a
        // dim of 1 broadcasts.
        bool repeated = std::find(dim_labels[i].begin(), dim_labels[i].begin() + d,
                                  dim_labels[i][d]) != dim_labels[i].begin() + d;
        if (s < 0 || (s == 1 && !repeated)) {
          s = dim;
        } else if (dim != s && (dim != 1 || repeated)) {
          return def_.Fail(code::kInvalidParam, "einsum operand ", i, " ", DimsString(ops[i]->dims),
                           ": dim ", d, " is ", dim, " but its label has size ", s, " elsewhere");
        }
      }
    }
    // Loop order: the output labels (row-major output), then the contracted ones.
    std::vector<int> order;
    for (size_t j = 0; j <= output_.labels.size(); ++j) {
      if (j == static_cast<size_t>(output_.ellipsis)) {
        for (size_t e = 0; e < ell_rank; ++e) order.push_back(static_cast<int>(kEllipsis + e));
      }
      if (j < output_.labels.size()) order.push_back(output_.labels[j]);
    }
    Dims out;
    for (int l : order) out.push_back(size[static_cast<size_t>(l)]);
    const size_t num_out = order.size();
    for (size_t l = 0; l < num_labels; ++l) {
      if (size[l] >= 0 && std::find(order.begin(), order.end(), static_cast<int>(l)) == order.end())
        order.push_back(static_cast<int>(l));
    }
    // stride[i][p]: how far operand i moves when the label at order[p] steps by one.
    std::vector<std::vector<int64_t>> stride(num, std::vector<int64_t>(order.size(), 0));
    for (size_t i = 0; i < num; ++i) {
      const Dims st = Strides(ops[i]->dims);
      for (size_t d = 0; d < ops[i]->rank(); ++d) {
        if (ops[i]->dims[d] == 1) continue;  // broadcast (or a step that never happens)
        size_t p = static_cast<size_t>(std::find(order.begin(), order.end(), dim_labels[i][d]) -
                                       order.begin());
        stride[i][p] += st[d];
      }
    }
    Dims sizes;
    for (int l : order) sizes.push_back(size[static_cast<size_t>(l)]);
    const int64_t inner = Product(sizes, num_out, sizes.size());
    KILN_ASSIGN_OR_RETURN(TensorView * y, ctx.Output(0, out));
    const int64_t outer = y->num_elements();
    bool ok = DispatchNumeric(ops[0]->dtype, [&](auto tag) {
      using T = typename decltype(tag)::type;
      std::vector<int64_t> idx(order.size(), 0), off(num, 0);
      for (int64_t o = 0; o < outer; ++o) {
        AccT<T> sum{};
        for (int64_t c = 0; c < inner; ++c) {
          AccT<T> prod = LoadAcc(ops[0]->as<const T>(), off[0]);
          for (size_t i = 1; i < num; ++i) prod *= LoadAcc(ops[i]->as<const T>(), off[i]);
          sum += prod;
          // Odometer step over all labels, innermost last.
          for (size_t p = order.size(); p-- > 0;) {
            for (size_t i = 0; i < num; ++i) off[i] += stride[i][p];
            if (++idx[p] < sizes[p]) break;
            for (size_t i = 0; i < num; ++i) off[i] -= stride[i][p] * sizes[p];
            idx[p] = 0;
          }
        }
        if (inner == 0) {
          // Nothing to sum; the odometer must still step over the output labels.
          for (size_t p = num_out; p-- > 0;) {
            for (size_t i = 0; i < num; ++i) off[i] += stride[i][p];
            if (++idx[p] < sizes[p]) break;
            for (size_t i = 0; i < num; ++i) off[i] -= stride[i][p] * sizes[p];
            idx[p] = 0;
          }
        }
        StoreAcc(y->as<T>(), o, sum);
      }
    });
    if (ok) return Status::Ok();
    return def_.Fail(code::kFeatureUnsupported, "type ", ir::Name(ops[0]->dtype),
                     " is not supported");
  }

 private:
  explicit EinsumKernel(const NodeDef& def) : def_(def) {}
  NodeDef def_;
  std::vector<EinsumTerm> inputs_;
  EinsumTerm output_;
};

// ---------------------------------------------------------------------------------------------
// Flatten: [prod(dims before axis), prod(dims from axis)].

Status RunFlatten(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const int64_t rank = static_cast<int64_t>(x->rank());
  int64_t axis = def.attr_int("axis", 1);
  if (axis < -rank || axis > rank) {
    return def.Fail(code::kInvalidParam, "attribute 'axis' = ", axis, " is out of range [", -rank,
                    ", ", rank, "] for input ", DimsString(x->dims));
  }
  const size_t split = static_cast<size_t>(axis < 0 ? axis + rank : axis);
  TensorView flat = *x;
  flat.dims = {Product(x->dims, 0, split), Product(x->dims, split, x->rank())};
  return CopyToOutput(ctx, 0, flat);
}

Result<std::unique_ptr<Kernel>> PrepareFlatten(const NodeDef& def) {
  if (!def.input_types.empty() && def.input_types[0] == DataType::kString) {
    return def.Fail(code::kFeatureUnsupported, "string tensors are not supported");
  }
  const int64_t axis = def.attr_int("axis", 1);
  if (axis < 0 && def.opset < 11) {
    return def.Fail(code::kInvalidParam, "a negative axis (", axis, ") needs opset 11");
  }
  return MakeFunctionKernel(def, RunFlatten);
}

}  // namespace nn_matmul
}  // namespace

void RegisterNnMatmulKernels(KernelRegistry& r) {
  using namespace nn_matmul;  // NOLINT: this file's kernels
  auto numeric = [](RunFn run) {
    return [run](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
      KILN_RETURN_IF_ERROR(CheckNumericInputs(def), "");
      return MakeFunctionKernel(def, run);
    };
  };
  r.Register(kReferenceBackend, "", "MatMul", numeric(RunMatMul));
  r.Register(kReferenceBackend, "", "Gemm", numeric(RunGemm));
  r.Register(kReferenceBackend, "", "Einsum", EinsumKernel::Prepare);
  r.Register(kReferenceBackend, "", "Flatten", PrepareFlatten);
}

}  // namespace kiln::kernels
