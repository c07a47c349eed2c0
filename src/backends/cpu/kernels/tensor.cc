// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CPU backend's data-movement kernels: Transpose, Concat, Split, Slice, Gather, Expand,
// Tile, DepthToSpace and SpaceToDepth for every 1, 2, 4 or 8-byte element type, and the
// building blocks of tensor_internal.h they and resize_pad.cc share. The ops' definitions
// (ir/ops/tensor.cc) check the nodes and give the bound outputs' dims; each kernel checks only
// the input values the reference kernel (kernels/reference/tensor.cc, tensor_index.cc) checks
// (Gather's indices), with the same error codes, then moves whole contiguous runs (memcpy) where
// the layout allows, blocks the 2-D transposes for the cache, and splits the work with
// KernelContext::ParallelFor.
// Reshape, Squeeze, Unsqueeze and Flatten stay with the reference kernels: they are one memmove.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "backends/cpu/kernels/families.h"
#include "backends/cpu/kernels/tensor_internal.h"
#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace tensor_internal {
namespace {

using kernels::NumElements;
using kernels::Product;

// Element i (may be negative) of N bytes from `base`.
template <size_t N>
inline uint8_t* At(uint8_t* base, int64_t i) {
  return base + static_cast<ptrdiff_t>(i) * static_cast<ptrdiff_t>(N);
}
template <size_t N>
inline const uint8_t* At(const uint8_t* base, int64_t i) {
  return base + static_cast<ptrdiff_t>(i) * static_cast<ptrdiff_t>(N);
}

// Elements are moved as N-byte memcpys, which GCC turns into plain loads and stores (and
// vectorises where it can) without assuming the bytes' declared type.
template <size_t N>
void FillN(uint8_t* dst, int64_t n, const uint8_t* value) {
  uint8_t v[N];
  std::memcpy(v, value, N);
  for (int64_t i = 0; i < n; ++i) std::memcpy(At<N>(dst, i), v, N);
}

template <size_t N>
void GatherStridedN(uint8_t* dst, const uint8_t* src, int64_t n, int64_t stride) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(At<N>(dst, i), At<N>(src, i * stride), N);
}

template <size_t N>
void GatherIndexedN(uint8_t* dst, const uint8_t* src, const int64_t* index, int64_t n) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(At<N>(dst, i), At<N>(src, index[i]), N);
}

// Calls fn(std::integral_constant<size_t, N>) for es = N in {1, 2, 4, 8}; false otherwise.
template <typename Fn>
bool BySize(size_t es, Fn&& fn) {
  switch (es) {
    case 1:
      fn(std::integral_constant<size_t, 1>{});
      return true;
    case 2:
      fn(std::integral_constant<size_t, 2>{});
      return true;
    case 4:
      fn(std::integral_constant<size_t, 4>{});
      return true;
    case 8:
      fn(std::integral_constant<size_t, 8>{});
      return true;
    default:
      return false;
  }
}

// A row-major index over `dims` that tracks its offset under two sets of strides (one for the
// source, one for the destination).
class Odometer {
 public:
  Odometer(const Dims& dims, const Dims& a, const Dims& b)
      : dims_(dims), a_(a), b_(b), idx_(dims.size(), 0) {}
  // Moves to flat index i.
  void Seek(int64_t i) {
    off_a_ = off_b_ = 0;
    for (size_t k = dims_.size(); k-- > 0;) {
      idx_[k] = i % dims_[k];
      i /= dims_[k];
      off_a_ += idx_[k] * a_[k];
      off_b_ += idx_[k] * b_[k];
    }
  }
  void Next() {
    for (size_t k = dims_.size(); k-- > 0;) {
      off_a_ += a_[k];
      off_b_ += b_[k];
      if (++idx_[k] < dims_[k]) return;
      off_a_ -= a_[k] * dims_[k];
      off_b_ -= b_[k] * dims_[k];
      idx_[k] = 0;
    }
  }
  int64_t a() const { return off_a_; }
  int64_t b() const { return off_b_; }

 private:
  const Dims& dims_;
  const Dims& a_;
  const Dims& b_;
  Dims idx_;
  int64_t off_a_ = 0, off_b_ = 0;
};

// dst[a * ds + b] = src[b * ss + a] for a < na, b < nb: one cache block of a 2-D transpose.
template <size_t N>
void TransposeBlockN(const uint8_t* src, uint8_t* dst, int64_t na, int64_t nb, int64_t ss,
                     int64_t ds) {
  for (int64_t a = 0; a < na; ++a) {
    for (int64_t b = 0; b < nb; ++b) {
      std::memcpy(At<N>(dst, a * ds + b), At<N>(src, b * ss + a), N);
    }
  }
}

// The 4-byte block: 4x4 sub-blocks transposed in SSE2 registers.
void TransposeBlock4(const uint8_t* src, uint8_t* dst, int64_t na, int64_t nb, int64_t ss,
                     int64_t ds) {
  int64_t a = 0;
#if defined(__SSE2__)
  for (; a + 4 <= na; a += 4) {
    int64_t b = 0;
    for (; b + 4 <= nb; b += 4) {
      const uint8_t* s = At<4>(src, b * ss + a);
      const size_t sr = static_cast<size_t>(ss) * 4;
      const __m128i r0 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s));
      const __m128i r1 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + sr));
      const __m128i r2 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 2 * sr));
      const __m128i r3 = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 3 * sr));
      const __m128i t0 = _mm_unpacklo_epi32(r0, r1), t1 = _mm_unpacklo_epi32(r2, r3);
      const __m128i t2 = _mm_unpackhi_epi32(r0, r1), t3 = _mm_unpackhi_epi32(r2, r3);
      uint8_t* d = At<4>(dst, a * ds + b);
      const size_t dr = static_cast<size_t>(ds) * 4;
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d), _mm_unpacklo_epi64(t0, t1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + dr), _mm_unpackhi_epi64(t0, t1));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 2 * dr), _mm_unpacklo_epi64(t2, t3));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(d + 3 * dr), _mm_unpackhi_epi64(t2, t3));
    }
    for (; b < nb; ++b) {
      for (int64_t k = a; k < a + 4; ++k) {
        std::memcpy(At<4>(dst, k * ds + b), At<4>(src, b * ss + k), 4);
      }
    }
  }
#endif
  TransposeBlockN<4>(At<4>(src, a), At<4>(dst, a * ds), na - a, nb, ss, ds);
}

void TransposeBlock(const uint8_t* src, uint8_t* dst, int64_t na, int64_t nb, int64_t ss,
                    int64_t ds, size_t es) {
  if (es == 4) return TransposeBlock4(src, dst, na, nb, ss, ds);
  const bool ok =
      BySize(es, [&](auto n) { TransposeBlockN<decltype(n)::value>(src, dst, na, nb, ss, ds); });
  if (ok) return;
  for (int64_t a = 0; a < na; ++a) {
    for (int64_t b = 0; b < nb; ++b) {
      std::memcpy(dst + static_cast<size_t>(a * ds + b) * es,
                  src + static_cast<size_t>(b * ss + a) * es, es);
    }
  }
}

// The 2-D transpose out[batch][a][b] = in[batch][b][a] repeated over `batch_dims`, where `a`
// is the input's innermost axis (size na, output stride os) and `b` the output's innermost
// (size nb, input stride is); batch axis k has input stride bin[k] and output stride bout[k].
void Transpose2D(KernelContext& ctx, const uint8_t* in, uint8_t* out, size_t es, int64_t na,
                 int64_t nb, int64_t is, int64_t os, const Dims& batch_dims, const Dims& bin,
                 const Dims& bout) {
  const int64_t side = es >= 8 ? 32 : 64;
  const int64_t ablocks = (na + side - 1) / side, bblocks = (nb + side - 1) / side;
  const int64_t per_batch = ablocks * bblocks;
  const int64_t units = NumElements(batch_dims) * per_batch;
  const int64_t grain =
      std::max<int64_t>(1, kGrainBytes / (side * side * static_cast<int64_t>(es)));
  ctx.ParallelFor(units, grain, [&](int64_t begin, int64_t end) {
    Odometer od(batch_dims, bin, bout);
    int64_t batch = begin / per_batch;
    od.Seek(batch);
    for (int64_t u = begin; u < end; ++u) {
      if (u / per_batch != batch) {
        od.Next();
        ++batch;
      }
      const int64_t rest = u % per_batch;
      const int64_t a0 = rest / bblocks * side, b0 = rest % bblocks * side;
      TransposeBlock(in + static_cast<size_t>(od.a() + b0 * is + a0) * es,
                     out + static_cast<size_t>(od.b() + a0 * os + b0) * es, std::min(side, na - a0),
                     std::min(side, nb - b0), is, os, es);
    }
  });
}

}  // namespace

Status RequireMovable(const NodeDef& def) {
  auto movable = [](DataType t) {
    const size_t s = ir::SizeOf(t);
    return s == 1 || s == 2 || s == 4 || s == 8;
  };
  for (size_t i = 0; i < def.num_inputs(); ++i) {
    if (def.input_given(i) && !movable(def.input_types[i])) {
      return def.Fail(code::kFeatureUnsupported, "input ", i, " of type ",
                      ir::Name(def.input_types[i]), " is not supported");
    }
  }
  for (size_t i = 0; i < def.num_outputs(); ++i) {
    if (def.output_used(i) && !movable(def.output_types[i])) {
      return def.Fail(code::kFeatureUnsupported, "output ", i, " of type ",
                      ir::Name(def.output_types[i]), " is not supported");
    }
  }
  return Status::Ok();
}

Result<std::unique_ptr<kernels::Kernel>> PrepareReference(const kernels::KernelRegistry& registry,
                                                          const NodeDef& def) {
  return registry.Create(kernels::kReferenceBackend, def);
}

void Fill(void* dst, int64_t n, const void* value, size_t es) {
  if (n <= 0) return;
  auto* d = static_cast<uint8_t*>(dst);
  const auto* v = static_cast<const uint8_t*>(value);
  if (std::all_of(v, v + es, [](uint8_t b) { return b == 0; }) || es == 1) {
    std::memset(d, v[0], static_cast<size_t>(n) * es);
    return;
  }
  if (BySize(es, [&](auto size) { FillN<decltype(size)::value>(d, n, v); })) return;
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + static_cast<size_t>(i) * es, v, es);
}

void GatherStrided(void* dst, const void* src, int64_t n, int64_t stride, size_t es) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (stride == 1) {
    if (n > 0) std::memcpy(d, s, static_cast<size_t>(n) * es);
    return;
  }
  if (stride == 0) return Fill(d, n, s, es);
  if (BySize(es, [&](auto size) { GatherStridedN<decltype(size)::value>(d, s, n, stride); })) {
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(d + static_cast<size_t>(i) * es,
                s + static_cast<ptrdiff_t>(i * stride) * static_cast<ptrdiff_t>(es), es);
  }
}

void GatherIndexed(void* dst, const void* src, const int64_t* index, int64_t n, size_t es) {
  auto* d = static_cast<uint8_t*>(dst);
  const auto* s = static_cast<const uint8_t*>(src);
  if (BySize(es, [&](auto size) { GatherIndexedN<decltype(size)::value>(d, s, index, n); })) {
    return;
  }
  for (int64_t i = 0; i < n; ++i) {
    std::memcpy(d + static_cast<size_t>(i) * es, s + static_cast<size_t>(index[i]) * es, es);
  }
}

void ParallelCopy(KernelContext& ctx, void* dst, const void* src, size_t bytes) {
  if (bytes == 0) return;
  const int64_t total = static_cast<int64_t>(bytes);
  const int64_t units = (total + kGrainBytes - 1) / kGrainBytes;
  ctx.ParallelFor(units, 1, [&](int64_t begin, int64_t end) {
    const int64_t b = begin * kGrainBytes, e = std::min(total, end * kGrainBytes);
    std::memcpy(static_cast<uint8_t*>(dst) + b, static_cast<const uint8_t*>(src) + b,
                static_cast<size_t>(e - b));
  });
}

void CopyStrided(KernelContext& ctx, const void* in, void* out, size_t es, const Dims& dims,
                 const Dims& strides, int64_t base) {
  const auto* src = static_cast<const uint8_t*>(in);
  auto* dst = static_cast<uint8_t*>(out);
  // Drop size-1 axes; merge an axis into the one before when they stay adjacent in `in`.
  Dims d, s;
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] == 0) return;
    if (dims[k] == 1) continue;
    if (!d.empty() && s.back() == strides[k] * dims[k]) {
      d.back() *= dims[k];
      s.back() = strides[k];
    } else {
      d.push_back(dims[k]);
      s.push_back(strides[k]);
    }
  }
  if (d.empty()) {
    std::memcpy(dst, src + static_cast<size_t>(base) * es, es);
    return;
  }
  const int64_t n = d.back(), step = s.back();
  d.pop_back();
  s.pop_back();
  const Dims no_strides(d.size(), 0);  // the odometer's second offset is not needed here
  const int64_t rows = NumElements(d);
  // Long rows are cut into pieces so one row can be shared among threads.
  const int64_t es64 = static_cast<int64_t>(es);
  const int64_t piece = n * es64 <= kGrainBytes ? n : std::max<int64_t>(1, kGrainBytes / es64);
  const int64_t pieces = (n + piece - 1) / piece;
  const int64_t grain = std::max<int64_t>(1, kGrainBytes / (piece * es64));
  ctx.ParallelFor(rows * pieces, grain, [&](int64_t begin, int64_t end) {
    Odometer od(d, s, no_strides);
    int64_t row = begin / pieces;
    od.Seek(row);
    for (int64_t u = begin; u < end; ++u) {
      if (u / pieces != row) {
        od.Next();
        ++row;
      }
      const int64_t j = (u - row * pieces) * piece, count = std::min(piece, n - j);
      GatherStrided(dst + static_cast<size_t>(row * n + j) * es,
                    src + static_cast<ptrdiff_t>(base + od.a() + j * step) * es64, count, step, es);
    }
  });
}

PermutePlan PlanPermute(const Dims& in_dims, const std::vector<int64_t>& perm, size_t es) {
  PermutePlan plan;
  plan.es = es;
  // Keep the axes of size > 1 (an empty tensor has nothing to move).
  std::vector<int64_t> kept_at(in_dims.size(), -1);
  Dims kd;
  for (size_t i = 0; i < in_dims.size(); ++i) {
    if (in_dims[i] == 0) return plan;  // kEmpty
    if (in_dims[i] == 1) continue;
    kept_at[i] = static_cast<int64_t>(kd.size());
    kd.push_back(in_dims[i]);
  }
  std::vector<int64_t> p;
  for (int64_t a : perm) {
    if (kept_at[static_cast<size_t>(a)] >= 0) p.push_back(kept_at[static_cast<size_t>(a)]);
  }
  // Runs of input axes that stay adjacent (in order) in the output become one axis.
  std::vector<std::pair<int64_t, int64_t>> groups;  // [first, last] input axis, output order
  for (int64_t a : p) {
    if (!groups.empty() && a == groups.back().second + 1) {
      groups.back().second = a;
    } else {
      groups.emplace_back(a, a);
    }
  }
  const size_t r = groups.size();
  std::vector<size_t> by_first(r);
  for (size_t g = 0; g < r; ++g) by_first[g] = g;
  std::sort(by_first.begin(), by_first.end(),
            [&](size_t x, size_t y) { return groups[x].first < groups[y].first; });
  Dims gd(r);                  // the merged input dims
  std::vector<int64_t> gp(r);  // the merged permutation
  for (size_t j = 0; j < r; ++j) {
    const auto [first, last] = groups[by_first[j]];
    gd[j] = Product(kd, static_cast<size_t>(first), static_cast<size_t>(last) + 1);
    gp[by_first[j]] = static_cast<int64_t>(j);
  }
  plan.bytes = static_cast<size_t>(NumElements(kd)) * es;
  if (r <= 1) {
    plan.kind = PermutePlan::Kind::kCopy;
    return plan;
  }
  const Dims in_strides = kernels::Strides(gd);
  plan.od.resize(r);
  plan.os.resize(r);
  for (size_t k = 0; k < r; ++k) {
    plan.od[k] = gd[static_cast<size_t>(gp[k])];
    plan.os[k] = in_strides[static_cast<size_t>(gp[k])];
  }
  if (gp.back() == static_cast<int64_t>(r) - 1) {  // contiguous runs of the innermost axis
    plan.kind = PermutePlan::Kind::kStrided;
    return plan;
  }
  const Dims out_strides = kernels::Strides(plan.od);
  const size_t q = static_cast<size_t>(
      std::find(gp.begin(), gp.end(), static_cast<int64_t>(r) - 1) - gp.begin());
  for (size_t k = 0; k + 1 < r; ++k) {
    if (k == q) continue;
    plan.bd.push_back(plan.od[k]);
    plan.bin.push_back(plan.os[k]);
    plan.bout.push_back(out_strides[k]);
  }
  plan.kind = PermutePlan::Kind::kTranspose2D;
  plan.na = gd[r - 1];
  plan.nb = plan.od[r - 1];
  plan.is = plan.os[r - 1];
  plan.out_stride_a = out_strides[q];
  return plan;
}

void RunPermute(KernelContext& ctx, const PermutePlan& plan, const void* in, void* out) {
  switch (plan.kind) {
    case PermutePlan::Kind::kEmpty:
      return;
    case PermutePlan::Kind::kCopy:
      return ParallelCopy(ctx, out, in, plan.bytes);
    case PermutePlan::Kind::kStrided:
      return CopyStrided(ctx, in, out, plan.es, plan.od, plan.os, 0);
    case PermutePlan::Kind::kTranspose2D:
      return Transpose2D(ctx, static_cast<const uint8_t*>(in), static_cast<uint8_t*>(out), plan.es,
                         plan.na, plan.nb, plan.is, plan.out_stride_a, plan.bd, plan.bin,
                         plan.bout);
  }
}

void Permute(KernelContext& ctx, const void* in, const Dims& in_dims,
             const std::vector<int64_t>& perm, void* out, size_t es) {
  RunPermute(ctx, PlanPermute(in_dims, perm, es), in, out);
}

}  // namespace tensor_internal

namespace {

using kernels::BoundOutput;
using kernels::DataType;
using kernels::Dims;
using kernels::DimsString;
using kernels::ElemSize;
using kernels::Kernel;
using kernels::KernelContext;
using kernels::KernelRegistry;
using kernels::NodeDef;
using kernels::NumElements;
using kernels::Product;
using kernels::ReadInts;
using kernels::RequiredInput;
using kernels::ResolveSlice;
using kernels::RunFn;
using kernels::SliceWindow;
using kernels::SplitSizes;
using kernels::TensorView;
using tensor_internal::CopyStrided;
using tensor_internal::GatherIndexed;
using tensor_internal::kGrainBytes;
using tensor_internal::Permute;
using tensor_internal::PermutePlan;
using tensor_internal::PlanPermute;
using tensor_internal::PrepareReference;
using tensor_internal::RequireMovable;
using tensor_internal::RunPermute;

constexpr int kBad = code::kInvalidParam;

// ---------------------------------------------------------------------------------------------
// Transpose, DepthToSpace, SpaceToDepth.

// `axis` (the definition checked it against `rank`) made non-negative.
size_t AxisOf(int64_t axis, size_t rank) {
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

// The permutation Transpose, DepthToSpace or SpaceToDepth applies to an input of `dims`: the
// dims it views the input as and the axis order it writes.
struct PermuteView {
  Dims dims;
  std::vector<int64_t> perm;
};
using ViewFn = PermuteView (*)(const NodeDef& def, const Dims& dims);

PermuteView TransposeView(const NodeDef& def, const Dims& dims) {
  PermuteView v{dims, def.attr_ints("perm")};
  if (!def.has_attr("perm")) {  // reverses the axes
    for (size_t i = dims.size(); i-- > 0;) v.perm.push_back(static_cast<int64_t>(i));
  }
  return v;
}

PermuteView DepthToSpaceView(const NodeDef& def, const Dims& dims) {
  const int64_t b = def.attr_int("blocksize");
  const int64_t n = dims[0], c = dims[1] / (b * b), h = dims[2], w = dims[3];
  if (def.opset >= 11 && def.attr_string("mode") == "CRD") {
    return {{n, c, b, b, h, w}, {0, 1, 4, 2, 5, 3}};
  }
  return {{n, b, b, c, h, w}, {0, 3, 4, 1, 5, 2}};
}

PermuteView SpaceToDepthView(const NodeDef& def, const Dims& dims) {
  const int64_t b = def.attr_int("blocksize");
  const int64_t n = dims[0], c = dims[1], h = dims[2] / b, w = dims[3] / b;
  return {{n, c, h, b, w, b}, {0, 3, 5, 1, 2, 4}};
}

// Transpose, DepthToSpace and SpaceToDepth: the permutation planned at Prepare when the input
// dims are known at load (a run then only moves data), else planned per run.
class PermuteKernel final : public Kernel {
 public:
  PermuteKernel(const NodeDef& def, ViewFn view) : def_(def), view_(view) {
    const Dims& dims = def.input_dims[0];
    const bool known = def.input_ranked(0);
    if (known && std::all_of(dims.begin(), dims.end(), [](int64_t d) { return d >= 0; })) {
      in_dims_ = dims;
      const PermuteView v = view_(def_, dims);
      plan_ = PlanPermute(v.dims, v.perm, ir::SizeOf(def.input_types[0]));
    }
  }

  Status Run(KernelContext& ctx) const override {
    KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def_, ctx, 0));
    KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def_, ctx, 0));
    if (plan_ && x->dims == in_dims_) {
      RunPermute(ctx, *plan_, x->data, out->data);
    } else {
      const PermuteView v = view_(def_, x->dims);
      Permute(ctx, x->data, v.dims, v.perm, out->data, ElemSize(*x));
    }
    return Status::Ok();
  }

 private:
  NodeDef def_;
  ViewFn view_;
  Dims in_dims_;                     // the dims plan_ is for
  std::optional<PermutePlan> plan_;  // none when the input dims are known only at run time
};

// ---------------------------------------------------------------------------------------------
// Concat and Split.

// One input's (Concat) or output's (Split) part of each row of the joined tensor; a Split
// output the graph leaves out has no data (its part is skipped).
struct Part {
  uint8_t* data;
  int64_t row_bytes;
};

// What Concat and Split fill each run, kept per execution slot (kernels::MakeScratchKernel).
struct PartsScratch final : kernels::KernelState {
  std::vector<Part> parts;
  std::vector<int64_t> start;  // CopyParts: each part's first byte in a row of `joined`
  std::vector<int64_t> sizes;  // Split: the sizes when the graph leaves an output out
};

// Copies between `joined` (`outer` rows, each the parts' row_bytes side by side) and the parts
// (s.parts): into `joined` (Concat) or out of it (Split). Chunks are byte ranges of `joined`,
// so a few large parts are split as well as many small rows.
void CopyParts(KernelContext& ctx, uint8_t* joined, PartsScratch& s, int64_t outer,
               bool into_joined) {
  const std::vector<Part>& parts = s.parts;
  std::vector<int64_t>& start = s.start;
  start.assign(parts.size() + 1, 0);
  for (size_t i = 0; i < parts.size(); ++i) start[i + 1] = start[i] + parts[i].row_bytes;
  const int64_t row = start.back(), total = outer * row;
  if (total == 0) return;
  const int64_t units = (total + kGrainBytes - 1) / kGrainBytes;
  ctx.ParallelFor(units, 1, [&](int64_t begin, int64_t end) {
    int64_t pos = begin * kGrainBytes;
    const int64_t stop = std::min(total, end * kGrainBytes);
    int64_t o = pos / row, c = pos % row;
    // The part holding column c: the last start <= c (an empty part's start equals the next).
    size_t i =
        static_cast<size_t>(std::upper_bound(start.begin(), start.end(), c) - start.begin()) - 1;
    while (pos < stop) {
      const int64_t off = c - start[i];
      const int64_t n = std::min(stop - pos, parts[i].row_bytes - off);
      if (parts[i].data != nullptr) {
        uint8_t* part = parts[i].data + static_cast<size_t>(o * parts[i].row_bytes + off);
        if (into_joined) {
          std::memcpy(joined + pos, part, static_cast<size_t>(n));
        } else {
          std::memcpy(part, joined + pos, static_cast<size_t>(n));
        }
      }
      pos += n;
      c += n;
      if (c == start[i + 1]) {
        do {
          ++i;
        } while (i < parts.size() && parts[i].row_bytes == 0);
        if (i == parts.size()) {
          i = 0;
          while (parts[i].row_bytes == 0) ++i;
          c = 0;
          ++o;
        }
      }
    }
  });
}

Status RunConcat(const NodeDef& def, KernelContext& ctx, PartsScratch& s) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const Dims& dims = out->dims;
  const size_t a = AxisOf(def.attr_int("axis"), dims.size());
  const int64_t es = static_cast<int64_t>(ElemSize(*out));
  const int64_t outer = Product(dims, 0, a), inner = Product(dims, a + 1, dims.size());
  s.parts.clear();
  auto* joined = static_cast<uint8_t*>(out->data);
  int64_t at = 0;  // the input's first byte in a row of the output
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(const TensorView* t, RequiredInput(def, ctx, i));
    const int64_t row_bytes = t->dims[a] * inner * es;
    // An input the memory plan put where the output holds it (one row) is already in place.
    const bool in_place = outer == 1 && t->data == joined + at;
    s.parts.push_back({in_place ? nullptr : static_cast<uint8_t*>(t->data), row_bytes});
    at += row_bytes;
  }
  CopyParts(ctx, static_cast<uint8_t*>(out->data), s, outer, /*into_joined=*/true);
  return Status::Ok();
}

Status RunSplit(const NodeDef& def, KernelContext& ctx, PartsScratch& s) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const size_t a = AxisOf(def.attr_int("axis"), x->rank());
  const int64_t es = static_cast<int64_t>(ElemSize(*x));
  const int64_t outer = Product(x->dims, 0, a), inner = Product(x->dims, a + 1, x->dims.size());
  s.sizes.clear();  // filled only when the graph leaves an output out
  s.parts.clear();
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    TensorView* out = ctx.output(i);
    if (out == nullptr && s.sizes.empty()) s.sizes = SplitSizes(def, ctx, x->dims[a]);
    const int64_t size = out != nullptr ? out->dims[a] : s.sizes[i];
    s.parts.push_back(
        {out != nullptr ? static_cast<uint8_t*>(out->data) : nullptr, size * inner * es});
  }
  CopyParts(ctx, static_cast<uint8_t*>(x->data), s, outer, /*into_joined=*/false);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Slice, Expand, Tile: strided views of the input.

Status RunSlice(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->num_elements() == 0) return Status::Ok();
  KILN_ASSIGN_OR_RETURN(SliceWindow w, ResolveSlice(def, ctx, x->dims));
  const Dims& dims = out->dims;
  const Dims& first = w.first;
  const Dims& step = w.step;
  const Dims in_strides = kernels::Strides(x->dims);
  Dims strides(dims.size());
  int64_t base = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    base += first[d] * in_strides[d];
    // A step beyond the axis only ever takes one element (and could overflow the product).
    strides[d] = dims[d] == 1 ? 0 : step[d] * in_strides[d];
  }
  CopyStrided(ctx, x->data, out->data, ElemSize(*x), dims, strides, base);
  return Status::Ok();
}

Status RunExpand(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->num_elements() == 0) return Status::Ok();
  const Dims& dims = out->dims;
  const Dims in_strides = kernels::Strides(x->dims);
  const size_t lead = dims.size() - x->rank();
  Dims strides(dims.size(), 0);
  for (size_t i = 0; i < x->rank(); ++i) {
    if (x->dims[i] != 1) strides[lead + i] = in_strides[i];
  }
  CopyStrided(ctx, x->data, out->data, ElemSize(*x), dims, strides, 0);
  return Status::Ok();
}

Status RunTile(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->num_elements() == 0) return Status::Ok();
  const Dims& dims = out->dims;
  // Output axis i of size repeats * x dim is the pair (repeat, position): strides (0, in). The
  // output is not empty, so no x dim is 0.
  const Dims in_strides = kernels::Strides(x->dims);
  Dims view, strides;
  for (size_t i = 0; i < x->rank(); ++i) {
    view.insert(view.end(), {dims[i] / x->dims[i], x->dims[i]});
    strides.insert(strides.end(), {0, in_strides[i]});
  }
  CopyStrided(ctx, x->data, out->data, ElemSize(*x), view, strides, 0);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Gather.

Status RunGather(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const size_t a = AxisOf(def.attr_int("axis"), x->rank());
  const int64_t n = x->dims[a];
  std::vector<int64_t> idx = ReadInts(*it);
  for (int64_t& v : idx) {
    if (v < -n || v >= n) {
      return def.Fail(kBad, "index ", v, " is out of range [", -n, ", ", n - 1, "] for data ",
                      DimsString(x->dims));
    }
    if (v < 0) v += n;
  }
  if (out->num_elements() == 0) return Status::Ok();
  const size_t es = ElemSize(*x);
  const int64_t inner = Product(x->dims, a + 1, x->rank());
  const int64_t outer = Product(x->dims, 0, a), m = static_cast<int64_t>(idx.size());
  const auto* src = static_cast<const uint8_t*>(x->data);
  auto* dst = static_cast<uint8_t*>(out->data);
  const int64_t row_bytes = inner * static_cast<int64_t>(es);
  const int64_t grain = std::max<int64_t>(1, kGrainBytes / row_bytes);
  ctx.ParallelFor(outer * m, grain, [&](int64_t begin, int64_t end) {
    if (inner == 1) {  // single elements: an indexed gather per run of one outer index
      for (int64_t u = begin; u < end;) {
        const int64_t o = u / m, j = u % m, count = std::min(end - u, m - j);
        GatherIndexed(dst + static_cast<size_t>(u) * es, src + static_cast<size_t>(o * n) * es,
                      idx.data() + j, count, es);
        u += count;
      }
      return;
    }
    for (int64_t u = begin; u < end; ++u) {
      const int64_t o = u / m, j = u % m;
      std::memcpy(dst + static_cast<size_t>(u * row_bytes),
                  src + static_cast<size_t>((o * n + idx[static_cast<size_t>(j)]) * row_bytes),
                  static_cast<size_t>(row_bytes));
    }
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Registration.

// Registers `run` for `op` on the cpu backend. Prepare first prepares the reference kernel (so
// attribute and type checks are exactly the reference's, with its error codes), then declines
// element types other than 1, 2, 4 and 8 bytes.
// Registers the cpu kernel `make(def)` of data-movement op `op`, for the nodes whose reference
// kernel prepares (its checks are the ones the cpu kernel agrees with) and that RequireMovable
// accepts.
template <typename Make>
void RegisterMovable(KernelRegistry& registry, const char* op, Make make) {
  registry.Register("cpu", "", op,
                    [&registry, make](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
                      KILN_ASSIGN_OR_RETURN(auto reference, PrepareReference(registry, def));
                      KILN_RETURN_IF_ERROR(RequireMovable(def), "");
                      return std::unique_ptr<Kernel>(make(def));
                    });
}

void RegisterMovement(KernelRegistry& registry, const char* op, RunFn run) {
  RegisterMovable(registry, op,
                  [run](const NodeDef& def) { return kernels::MakeFunctionKernel(def, run); });
}

void RegisterParts(KernelRegistry& registry, const char* op,
                   kernels::ScratchRunFn<PartsScratch> run) {
  RegisterMovable(registry, op,
                  [run](const NodeDef& def) { return kernels::MakeScratchKernel(def, run); });
}

void RegisterPermute(KernelRegistry& registry, const char* op, ViewFn view) {
  RegisterMovable(registry, op, [view](const NodeDef& def) {
    return std::make_unique<PermuteKernel>(def, view);
  });
}

}  // namespace

void RegisterCpuTensorKernels(kernels::KernelRegistry& registry) {
  RegisterPermute(registry, "Transpose", TransposeView);
  RegisterPermute(registry, "DepthToSpace", DepthToSpaceView);
  RegisterPermute(registry, "SpaceToDepth", SpaceToDepthView);
  RegisterParts(registry, "Concat", RunConcat);
  RegisterParts(registry, "Split", RunSplit);
  RegisterMovement(registry, "Slice", RunSlice);
  RegisterMovement(registry, "Expand", RunExpand);
  RegisterMovement(registry, "Tile", RunTile);
  RegisterMovement(registry, "Gather", RunGather);
}

}  // namespace kiln::cpu
