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

#include "ir/ops/nn.h"
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
  const TensorView* a = ctx.input(0);
  const TensorView* b = ctx.input(1);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  Dims ad = a->dims, bd = b->dims;
  if (ad.size() == 1) ad.insert(ad.begin(), 1);
  if (bd.size() == 1) bd.push_back(1);
  const int64_t m = ad[ad.size() - 2], k = ad.back(), n = bd.back();
  // Y's leading dims are A's and B's batch dims broadcast together.
  const Dims a_batch(ad.begin(), ad.end() - 2), b_batch(bd.begin(), bd.end() - 2);
  const Dims batch(y->dims.begin(),
                   y->dims.end() - (a->rank() > 1 ? 1 : 0) - (b->rank() > 1 ? 1 : 0));
  const std::vector<int64_t> ai = BroadcastIndex(a_batch, batch);
  const std::vector<int64_t> bi = BroadcastIndex(b_batch, batch);
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
  const TensorView* a = ctx.input(0);
  const TensorView* b = ctx.input(1);
  const TensorView* c = ctx.num_inputs() > 2 ? ctx.input(2) : nullptr;
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  const bool ta = def.attr_int("transA") != 0, tb = def.attr_int("transB") != 0;
  // Y is [M, N]; C broadcasts to it (the definition's rule).
  const int64_t m = y->dims[0], k = a->dims[!ta], n = y->dims[1];
  const std::vector<int64_t> ci = c ? BroadcastIndex(c->dims, y->dims) : std::vector<int64_t>();
  const double alpha = def.attr_float("alpha"), beta = def.attr_float("beta");
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

// The equation's term (ir/ops/nn.h) with its letters as label numbers.
EinsumTerm Labelled(const ir::EinsumTerm& t) {
  EinsumTerm out;
  for (char c : t.labels) out.labels.push_back(LabelOf(c));
  out.ellipsis = t.ellipsis;
  return out;
}

class EinsumKernel final : public Kernel {
 public:
  // The equation as the definition parsed and checked it (its output term made explicit).
  static Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def) {
    Result<ir::EinsumEquation> eq = ir::ParseEinsum(def.attr_string("equation"));
    if (!eq.ok()) return def.Fail(eq.status().code(), eq.status().message());
    auto k = std::unique_ptr<EinsumKernel>(new EinsumKernel(def));
    for (const ir::EinsumTerm& t : eq->inputs) k->inputs_.push_back(Labelled(t));
    k->output_ = Labelled(eq->output);
    return std::unique_ptr<Kernel>(std::move(k));
  }

  Status Run(KernelContext& ctx) const override {
    // The operands fit the equation (the definition's rules: ranks, label sizes that agree
    // or broadcast).
    const size_t num = inputs_.size();
    std::vector<const TensorView*> ops(num);
    for (size_t i = 0; i < num; ++i) ops[i] = ctx.input(i);
    KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def_, ctx, 0));
    // The rank "..." stands for: the largest over the operands (right-aligned, broadcast).
    size_t ell_rank = 0;
    for (size_t i = 0; i < num; ++i) {
      const EinsumTerm& t = inputs_[i];
      if (t.ellipsis >= 0) ell_rank = std::max(ell_rank, ops[i]->rank() - t.labels.size());
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
        // Across operands a dim of 1 broadcasts: a label's size is its largest.
        int64_t& s = size[static_cast<size_t>(dim_labels[i][d])];
        if (s < 0 || s == 1) s = ops[i]->dims[d];
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

// The elements move unchanged (or not at all, when Y shares X's memory).
Status RunFlatten(const NodeDef& def, KernelContext& ctx) {
  const TensorView* x = ctx.input(0);
  KILN_ASSIGN_OR_RETURN(TensorView * y, BoundOutput(def, ctx, 0));
  if (y->data != x->data && x->bytes() != 0) std::memmove(y->data, x->data, x->bytes());
  return Status::Ok();
}

}  // namespace nn_matmul
}  // namespace

void RegisterNnMatmulKernels(KernelRegistry& r) {
  using namespace nn_matmul;  // NOLINT: this file's kernels
  // The products take the numeric types their definitions allow; Flatten any but strings.
  RegisterStateless(r, "MatMul", RunMatMul);
  RegisterStateless(r, "Gemm", RunGemm);
  r.Register(kReferenceBackend, "", "Einsum", EinsumKernel::Prepare);
  RegisterStateless(r, "Flatten", RunFlatten);
}

}  // namespace kiln::kernels
