// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the tensor family that index or resample: Gather, GatherElements,
// GatherND, ScatterND, ScatterElements, OneHot, NonZero, TopK, NonMaxSuppression, Pad,
// CenterCropPad, Resize, Upsample (registered from RegisterTensorKernels in tensor.cc). Data is
// moved in element-sized chunks, so every element type takes one path; interpolation computes
// in double. The ops' definitions (ir/ops/tensor.cc) check the nodes and give the output dims
// (TopK's k, OneHot's depth, Pad's and Resize's sizes are the bound dims); the kernels check
// only index values, and the data-dependent NonZero and NonMaxSuppression bind their outputs.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "kernels/attrs.h"
#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/resize_plan.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

constexpr int kBad = code::kInvalidParam;
constexpr int kUnsupported = code::kFeatureUnsupported;

// ---------------------------------------------------------------------------------------------
// Indexing: Gather*, Scatter*, OneHot, NonZero.

// Index v into an axis of size n (negative counts from the end); nullopt when out of range.
std::optional<int64_t> WrapIndex(int64_t v, int64_t n) {
  if (v < -n || v >= n) return std::nullopt;
  return v < 0 ? v + n : v;
}

Status BadIndex(const NodeDef& def, int64_t v, int64_t n, const Dims& data) {
  return def.Fail(kBad, "index ", v, " is out of range [", -n, ", ", n - 1, "] for data ",
                  DimsString(data));
}

// `axis` (the definition checked it against `rank`) made non-negative.
size_t AxisOf(int64_t axis, size_t rank) {
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

Status RunGather(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const size_t a = AxisOf(def.attr_int("axis"), x->rank());
  const int64_t n = x->dims[a];
  std::vector<int64_t> idx = ReadInts(*it);
  for (int64_t& v : idx) {
    auto w = WrapIndex(v, n);
    if (!w) return BadIndex(def, v, n, x->dims);
    v = *w;
  }
  const size_t chunk = static_cast<size_t>(Product(x->dims, a + 1, x->rank())) * ElemSize(*x);
  const int64_t outer = Product(x->dims, 0, a), m = static_cast<int64_t>(idx.size());
  for (int64_t o = 0; o < outer && chunk > 0; ++o) {
    for (int64_t j = 0; j < m; ++j) {
      std::memcpy(Bytes(*out) + static_cast<size_t>(o * m + j) * chunk,
                  Bytes(*x) + static_cast<size_t>(o * n + idx[static_cast<size_t>(j)]) * chunk,
                  chunk);
    }
  }
  return Status::Ok();
}

// For each element of `idx` (row-major), the flat offset into `data` it addresses along `axis`.
Result<std::vector<int64_t>> ElementOffsets(const NodeDef& def, const TensorView& data,
                                            const TensorView& idx, int64_t axis) {
  const std::vector<int64_t> v = ReadInts(idx);
  std::vector<int64_t> offs(v.size());
  const Dims strides = Strides(data.dims);
  const int64_t n = data.dims[static_cast<size_t>(axis)];
  Dims pos(idx.rank(), 0);
  for (size_t i = 0; i < v.size(); ++i) {
    auto w = WrapIndex(v[i], n);
    if (!w) return BadIndex(def, v[i], n, data.dims);
    int64_t off = 0;
    for (size_t d = 0; d < pos.size(); ++d) {
      off += (static_cast<int64_t>(d) == axis ? *w : pos[d]) * strides[d];
    }
    offs[i] = off;
    NextIndex(pos, idx.dims);
  }
  return offs;
}

Status RunGatherElements(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const int64_t axis = static_cast<int64_t>(AxisOf(def.attr_int("axis"), x->rank()));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> offs, ElementOffsets(def, *x, *it, axis));
  const size_t es = ElemSize(*x);
  for (size_t i = 0; i < offs.size(); ++i) CopyElem(*out, static_cast<int64_t>(i), *x, offs[i], es);
  return Status::Ok();
}

// GatherND / ScatterND addressing: the flat element offset of each index tuple's slice.
struct NdIndex {
  std::vector<int64_t> offsets;  // one per tuple
  int64_t slice = 1;             // elements per slice
};

// The definition checked that the index tuples (idx's last dim, k) fit data after `b` batch
// dims; the index values are checked here.
Result<NdIndex> NdOffsets(const NodeDef& def, const TensorView& data, const TensorView& idx,
                          int64_t b) {
  const int64_t k = idx.dims.back();
  const std::vector<int64_t> v = ReadInts(idx);
  const Dims strides = Strides(data.dims);
  NdIndex out;
  out.slice = Product(data.dims, static_cast<size_t>(b + k), data.rank());
  const int64_t tuples = k == 0 ? 0 : static_cast<int64_t>(v.size()) / k;
  const int64_t per_batch = Product(idx.dims, static_cast<size_t>(b), idx.rank() - 1);
  const int64_t batch_stride = Product(data.dims, static_cast<size_t>(b), data.rank());
  for (int64_t t = 0; t < tuples; ++t) {
    int64_t off = per_batch == 0 ? 0 : (t / per_batch) * batch_stride;
    for (int64_t j = 0; j < k; ++j) {
      const size_t axis = static_cast<size_t>(b + j);
      const int64_t raw = v[static_cast<size_t>(t * k + j)];
      auto w = WrapIndex(raw, data.dims[axis]);
      if (!w) return BadIndex(def, raw, data.dims[axis], data.dims);
      off += *w * strides[axis];
    }
    out.offsets.push_back(off);
  }
  return out;
}

Status RunGatherNd(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const int64_t b = def.opset >= 12 ? def.attr_int("batch_dims") : 0;
  KILN_ASSIGN_OR_RETURN(NdIndex nd, NdOffsets(def, *x, *it, b));
  const size_t chunk = static_cast<size_t>(nd.slice) * ElemSize(*x);
  for (size_t t = 0; t < nd.offsets.size() && chunk > 0; ++t) {
    std::memcpy(Bytes(*out) + t * chunk,
                Bytes(*x) + static_cast<size_t>(nd.offsets[t]) * ElemSize(*x), chunk);
  }
  return Status::Ok();
}

enum class Reduction { kNone, kAdd, kMul, kMax, kMin };

// The reduction (from opset 16; the definition checked it is one of the opset's).
Reduction GetReduction(const NodeDef& def) {
  if (def.opset < 16) return Reduction::kNone;
  const std::string r = def.attr_string("reduction");
  if (r == "add") return Reduction::kAdd;
  if (r == "mul") return Reduction::kMul;
  if (r == "max") return Reduction::kMax;
  if (r == "min") return Reduction::kMin;
  return Reduction::kNone;
}

// d[i] = s[j] combined with d[i] by `red`.
template <typename T>
void Combine(T* d, int64_t i, const T* s, int64_t j, Reduction red) {
  using C = ComputeT<T>;
  if (red == Reduction::kNone) {
    d[i] = s[j];
    return;
  }
  const C a = Load(d, i), b = Load(s, j);
  C v = a;
  switch (red) {
    case Reduction::kAdd:
      v = static_cast<C>(a + b);
      break;
    case Reduction::kMul:
      v = static_cast<C>(a * b);
      break;
    case Reduction::kMax:
      v = std::max(a, b);
      break;
    case Reduction::kMin:
      v = std::min(a, b);
      break;
    case Reduction::kNone:
      break;
  }
  Store(d, i, v);
}

// out = data, then updates[u] combined into out[dst(u)] for every update element in order.
Status Scatter(const NodeDef& def, KernelContext& ctx, const TensorView& data,
               const TensorView& upd, const std::vector<int64_t>& dst_of_update) {
  const Reduction red = GetReduction(def);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->data != data.data && data.bytes() != 0) std::memcpy(out->data, data.data, data.bytes());
  DispatchAny(data.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t u = 0; u < dst_of_update.size(); ++u) {
      Combine(out->as<T>(), dst_of_update[u], upd.as<const T>(), static_cast<int64_t>(u), red);
    }
  });
  return Status::Ok();
}

Status RunScatterNd(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(const TensorView* up, RequiredInput(def, ctx, 2));
  std::vector<int64_t> dst;
  if (it->dims.back() == 0) {  // every index tuple addresses the whole of data
    for (int64_t t = 0; t < Product(it->dims, 0, it->rank() - 1); ++t) {
      for (int64_t e = 0; e < x->num_elements(); ++e) dst.push_back(e);
    }
  } else {
    KILN_ASSIGN_OR_RETURN(NdIndex nd, NdOffsets(def, *x, *it, 0));
    for (int64_t off : nd.offsets) {
      for (int64_t e = 0; e < nd.slice; ++e) dst.push_back(off + e);
    }
  }
  return Scatter(def, ctx, *x, *up, dst);
}

Status RunScatterElements(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(const TensorView* up, RequiredInput(def, ctx, 2));
  const int64_t axis = static_cast<int64_t>(AxisOf(def.attr_int("axis"), x->rank()));
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> offs, ElementOffsets(def, *x, *it, axis));
  return Scatter(def, ctx, *x, *up, offs);
}

Status RunOneHot(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* it, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* vt, RequiredInput(def, ctx, 2));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  // The new axis holds `depth` (input 1) positions; values is [off, on] of the output's type.
  const size_t axis = AxisOf(def.attr_int("axis"), it->rank() + 1);
  const int64_t depth = out->dims[axis];
  const std::vector<double> idx = ReadDoubles(*it);
  const size_t es = ElemSize(*vt);
  const int64_t outer = Product(it->dims, 0, axis);
  const int64_t inner = Product(it->dims, axis, it->rank());
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t d = 0; d < depth; ++d) {
      for (int64_t i = 0; i < inner; ++i) {
        double v = std::trunc(idx[static_cast<size_t>(o * inner + i)]);
        if (v < 0) v += static_cast<double>(depth);
        const bool on = v == static_cast<double>(d);
        CopyElem(*out, (o * depth + d) * inner + i, *vt, on ? 1 : 0, es);
      }
    }
  }
  return Status::Ok();
}

Status RunNonZero(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  // A scalar counts as a one-element 1-D tensor (as onnxruntime does).
  const Dims dims = x->rank() == 0 ? Dims{1} : x->dims;
  std::vector<int64_t> hits;
  DispatchAny(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int64_t i = 0; i < x->num_elements(); ++i) {
      if (Load(x->as<const T>(), i) != ComputeT<T>(0)) hits.push_back(i);
    }
  });
  const int64_t n = static_cast<int64_t>(hits.size()), r = static_cast<int64_t>(dims.size());
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.DynamicOutput(0, {r, n}));
  const Dims strides = Strides(dims);
  for (int64_t j = 0; j < n; ++j) {
    int64_t rest = hits[static_cast<size_t>(j)];
    for (int64_t d = 0; d < r; ++d) {
      out->as<int64_t>()[d * n + j] = rest / strides[static_cast<size_t>(d)];
      rest %= strides[static_cast<size_t>(d)];
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// TopK.

// Whether a orders strictly before b when taking the largest (or smallest) values; NaN counts
// as larger than every number.
template <typename C>
bool Before(C a, C b, bool largest) {
  if constexpr (std::is_floating_point_v<C>) {
    const bool na = std::isnan(a), nb = std::isnan(b);
    if (na || nb) return largest ? na && !nb : !na && nb;
  }
  return largest ? a > b : a < b;
}

// TopK compares numbers (ONNX allows no other type); its outputs hold k (the bound dim) of the
// axis's values, always sorted (which `sorted` = 0 allows too).
Status CheckTopK(const NodeDef& def) {
  if (def.input_given(0) && !DispatchNumeric(def.input_types[0], [](auto) {})) {
    return def.Fail(kUnsupported, "type ", Name(def.input_types[0]));
  }
  return Status::Ok();
}

Status RunTopK(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * values, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * indices, BoundOutput(def, ctx, 1));
  const size_t a = AxisOf(def.attr_int("axis"), x->rank());
  const int64_t n = x->dims[a], k = values->dims[a];
  const bool largest = def.opset < 11 || def.attr_int("largest") != 0;
  const int64_t outer = Product(x->dims, 0, a), inner = Product(x->dims, a + 1, x->rank());
  DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* in = x->as<const T>();
    std::vector<int64_t> order(static_cast<size_t>(n));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        const int64_t base = o * n * inner + i;
        for (int64_t j = 0; j < n; ++j) order[static_cast<size_t>(j)] = j;
        std::stable_sort(order.begin(), order.end(), [&](int64_t p, int64_t q) {
          return Before(Load(in, base + p * inner), Load(in, base + q * inner), largest);
        });
        for (int64_t j = 0; j < k; ++j) {
          const int64_t dst = (o * k + j) * inner + i, src = order[static_cast<size_t>(j)];
          values->as<T>()[dst] = in[base + src * inner];
          indices->as<int64_t>()[dst] = src;
        }
      }
    }
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// NonMaxSuppression.

template <typename C>
bool Suppresses(const C* a, const C* b, bool center, C iou_threshold) {
  // Each box as [min, max] along x and y, computed in the boxes' own precision.
  auto span = [center](const C* p, int axis, C& lo, C& hi) {
    if (center) {
      const C half = p[2 + axis] / C(2);
      lo = p[axis] - half;
      hi = p[axis] + half;
    } else {
      lo = std::min(p[1 - axis], p[3 - axis]);
      hi = std::max(p[1 - axis], p[3 - axis]);
    }
  };
  C ax0, ax1, bx0, bx1, ay0, ay1, by0, by1;
  span(a, 0, ax0, ax1);
  span(b, 0, bx0, bx1);
  const C ix0 = std::max(ax0, bx0), ix1 = std::min(ax1, bx1);
  if (ix1 <= ix0) return false;
  span(a, 1, ay0, ay1);
  span(b, 1, by0, by1);
  const C iy0 = std::max(ay0, by0), iy1 = std::min(ay1, by1);
  if (iy1 <= iy0) return false;
  const C inter = (ix1 - ix0) * (iy1 - iy0);
  if (inter <= 0) return false;
  const C area_a = (ax1 - ax0) * (ay1 - ay0), area_b = (bx1 - bx0) * (by1 - by0);
  const C uni = area_a + area_b - inter;
  if (area_a <= 0 || area_b <= 0 || uni <= 0) return false;
  return inter / uni > iou_threshold;
}

// NonMaxSuppression's output count depends on the scores (kTraitDataDependentShape): it binds
// its output itself, and as its shape function does not run on a loaded node, the checks its
// addressing relies on stay here.
Status CheckNms(const NodeDef& def) {
  const int64_t c = def.attr_int("center_point_box");
  if (c != 0 && c != 1) return def.Fail(kBad, "center_point_box must be 0 or 1, got ", c);
  return Status::Ok();
}

Status RunNms(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* boxes, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* scores, RequiredInput(def, ctx, 1));
  if (boxes->rank() != 3 || boxes->dims[2] != 4 || scores->rank() != 3 ||
      scores->dims[0] != boxes->dims[0] || scores->dims[2] != boxes->dims[1] ||
      scores->dtype != boxes->dtype) {
    return def.Fail(kBad, "boxes ", DimsString(boxes->dims), " must be [batches, boxes, 4] and ",
                    "scores ", DimsString(scores->dims), " [batches, classes, boxes]");
  }
  int64_t max_out = 0;
  double iou = 0, score_min = 0;
  bool has_score_min = false;
  if (!Omitted(ctx.input(2))) max_out = std::max<int64_t>(ReadInts(*ctx.input(2))[0], 0);
  if (!Omitted(ctx.input(3))) iou = ReadDoubles(*ctx.input(3))[0];
  if (!Omitted(ctx.input(4))) {
    score_min = ReadDoubles(*ctx.input(4))[0];
    has_score_min = true;
  }
  const bool center = def.attr_int("center_point_box") == 1;
  const int64_t batches = boxes->dims[0], classes = scores->dims[1], nb = boxes->dims[1];
  std::vector<int64_t> selected;  // (batch, class, box) triples
  const bool ok = DispatchFloat(boxes->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    std::vector<C> bx(static_cast<size_t>(boxes->num_elements()));
    for (size_t i = 0; i < bx.size(); ++i) bx[i] = Load(boxes->as<const T>(), int64_t(i));
    for (int64_t b = 0; b < batches; ++b) {
      const C* bb = bx.data() + b * nb * 4;
      for (int64_t c = 0; c < classes; ++c) {
        std::vector<std::pair<C, int64_t>> cand;
        for (int64_t i = 0; i < nb; ++i) {
          const C s = Load(scores->as<const T>(), (b * classes + c) * nb + i);
          if (!has_score_min || s > static_cast<C>(score_min)) cand.emplace_back(s, i);
        }
        // Highest score first; ties by lower box index.
        std::stable_sort(cand.begin(), cand.end(),
                         [](const auto& p, const auto& q) { return p.first > q.first; });
        std::vector<int64_t> kept;
        for (const auto& [s, i] : cand) {
          if (static_cast<int64_t>(kept.size()) >= max_out) break;
          bool keep = true;
          for (int64_t j : kept) {
            if (Suppresses(bb + i * 4, bb + j * 4, center, static_cast<C>(iou))) {
              keep = false;
              break;
            }
          }
          if (!keep) continue;
          kept.push_back(i);
          selected.insert(selected.end(), {b, c, i});
        }
      }
    }
  });
  if (!ok) return def.Fail(kUnsupported, "type ", Name(boxes->dtype));
  const int64_t n = static_cast<int64_t>(selected.size() / 3);
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.DynamicOutput(0, {n, 3}));
  if (!selected.empty()) std::memcpy(out->data, selected.data(), selected.size() * 8);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Pad and CenterCropPad.

// Output element i of `dims` reads input element sum(map[d][idx[d]] * stride[d]), or `fill`
// where any map entry is -1.
void Remap(const TensorView& x, const std::vector<std::vector<int64_t>>& map, const Dims& dims,
           const std::vector<uint8_t>& fill, const TensorView& out) {
  const int64_t n = NumElements(dims);
  if (n == 0) return;
  const Dims strides = Strides(x.dims);
  const size_t es = ElemSize(x);
  Dims idx(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    bool inside = true;
    for (size_t d = 0; d < dims.size() && inside; ++d) {
      const int64_t s = map[d][static_cast<size_t>(idx[d])];
      inside = s >= 0;
      off += s * strides[d];
    }
    if (inside) {
      CopyElem(out, i, x, off, es);
    } else {
      std::memcpy(Bytes(out) + static_cast<size_t>(i) * es, fill.data(), es);
    }
    NextIndex(idx, dims);
  }
}

// Identity maps for `dims`.
std::vector<std::vector<int64_t>> IdentityMaps(const Dims& dims) {
  std::vector<std::vector<int64_t>> map(dims.size());
  for (size_t d = 0; d < dims.size(); ++d) {
    for (int64_t i = 0; i < dims[d]; ++i) map[d].push_back(i);
  }
  return map;
}

Status RunPad(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->num_elements() == 0) return Status::Ok();
  KILN_ASSIGN_OR_RETURN(PadWindow w, ResolvePad(def, ctx, *x, out->dims));
  Remap(*x, w.map, out->dims, w.fill, *out);
  return Status::Ok();
}

Status RunCenterCropPad(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->num_elements() == 0) return Status::Ok();
  // Every axis whose size changes is cropped or padded to the bound size (input 1 gave it).
  auto map = IdentityMaps(x->dims);
  for (size_t a = 0; a < x->rank(); ++a) {
    const int64_t dim = x->dims[a], want = out->dims[a];
    if (want == dim) continue;
    // Crop keeps the centre (an odd extra element goes from the end); pad centres the input
    // the same way.
    const int64_t shift = want < dim ? (dim - want) / 2 : -((want - dim) / 2);
    map[a].assign(static_cast<size_t>(want), -1);
    for (int64_t o = 0; o < want; ++o) {
      const int64_t src = o + shift;
      if (src >= 0 && src < dim) map[a][static_cast<size_t>(o)] = src;
    }
  }
  Remap(*x, map, out->dims, std::vector<uint8_t>(ElemSize(*x), 0), *out);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Resize and Upsample.

using Doubles = std::vector<double>;

// Nearest: copies elements (any type); extrapolated positions get the extrapolation value.
Status ResizeNearest(const ResizeMode& m, const TensorView& x, const ResizePlan& plan,
                     const TensorView& out) {
  std::vector<std::vector<int64_t>> map(x.rank());
  for (size_t d = 0; d < x.rank(); ++d) {
    AxisTaps p = PlanResizeAxis(m, x.dims[d], plan.out[d], plan.scale[d], plan.roi_start[d],
                                plan.roi_end[d]);
    for (int64_t y = 0; y < plan.out[d]; ++y) {
      const size_t at = static_cast<size_t>(y * p.count);
      const int64_t src = p.weight[at] != 0 ? p.index[at] : p.index[at + 1];
      map[d].push_back(p.extrapolated[static_cast<size_t>(y)] ? -1 : src);
    }
  }
  std::vector<uint8_t> fill(ElemSize(x), 0);
  StoreDouble(TensorView{x.dtype, {1}, fill.data()}, 0, m.extrapolation);
  Remap(x, map, plan.out, fill, out);
  return Status::Ok();
}

// Linear and cubic: separable, one axis at a time, in double.
void ResizeInterpolate(const ResolvedResize& r, const TensorView& x, const TensorView& out) {
  const ResizeMode& m = r.mode;
  const ResizePlan& plan = r.plan;
  std::vector<double> cur = ReadDoubles(x);
  Dims dims = x.dims;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (r.Identity(dims, d)) continue;
    const AxisTaps p =
        PlanResizeAxis(m, dims[d], plan.out[d], plan.scale[d], plan.roi_start[d], plan.roi_end[d]);
    const int64_t outer = Product(dims, 0, d), inner = Product(dims, d + 1, dims.size());
    const int64_t in_n = dims[d], out_n = plan.out[d];
    std::vector<double> next(static_cast<size_t>(outer * out_n * inner));
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t y = 0; y < out_n; ++y) {
        for (int64_t i = 0; i < inner; ++i) {
          double v = m.extrapolation;
          if (!p.extrapolated[static_cast<size_t>(y)]) {
            v = 0;
            for (int64_t t = 0; t < p.count; ++t) {
              const size_t k = static_cast<size_t>(y * p.count + t);
              v += p.weight[k] * cur[static_cast<size_t>((o * in_n + p.index[k]) * inner + i)];
            }
          }
          next[static_cast<size_t>((o * out_n + y) * inner + i)] = v;
        }
      }
    }
    cur.swap(next);
    dims[d] = out_n;
  }
  DispatchNumeric(x.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < cur.size(); ++i) {
      double v = cur[i];
      if constexpr (!kIsFloat<T>) {  // round half to even, saturate
        v = std::nearbyint(v);
        v = std::clamp(v, static_cast<double>(std::numeric_limits<T>::lowest()),
                       static_cast<double>(std::numeric_limits<T>::max()));
        out.as<T>()[i] = v >= static_cast<double>(std::numeric_limits<T>::max())
                             ? std::numeric_limits<T>::max()
                             : static_cast<T>(v);
      } else {
        Store(out.as<T>(), static_cast<int64_t>(i), static_cast<ComputeT<T>>(v));
      }
    }
  });
}

Status RunResample(const ResolvedResize& r, const TensorView& x, const TensorView& out) {
  if (out.num_elements() == 0) return Status::Ok();
  if (r.mode.mode == "nearest") return ResizeNearest(r.mode, x, r.plan, out);
  ResizeInterpolate(r, x, out);
  return Status::Ok();
}

// Linear and cubic resizes interpolate numbers; nearest moves any element.
Status CheckResize(const NodeDef& def) {
  const DataType t = def.input_given(0) ? def.input_types[0] : DataType::kUndefined;
  if (def.attr_string("mode") != "nearest" && !IsFloat(t) && !IsInteger(t)) {
    return def.Fail(kUnsupported, def.attr_string("mode"), " resize of ", Name(t));
  }
  return Status::Ok();
}

// Resize (every opset) and Upsample: kernels/resize_plan.h resolves the node.
Status RunResize(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(ResolvedResize r, ResolveResize(def, ctx, *x, out->dims));
  return RunResample(r, *x, *out);
}

}  // namespace

void RegisterTensorIndexKernels(KernelRegistry& r) {
  RegisterStateless(r, "Gather", RunGather);
  RegisterStateless(r, "GatherElements", RunGatherElements);
  RegisterStateless(r, "GatherND", RunGatherNd);
  RegisterStateless(r, "ScatterND", RunScatterNd);
  RegisterStateless(r, "ScatterElements", RunScatterElements);
  RegisterStateless(r, "OneHot", RunOneHot);
  RegisterStateless(r, "NonZero", RunNonZero);
  RegisterStateless(r, "TopK", RunTopK, CheckTopK);
  RegisterStateless(r, "NonMaxSuppression", RunNms, CheckNms);
  RegisterStateless(r, "Pad", RunPad);
  RegisterStateless(r, "CenterCropPad", RunCenterCropPad);
  RegisterStateless(r, "Resize", RunResize, CheckResize);
  RegisterStateless(r, "Upsample", RunResize, CheckResize);
}

}  // namespace kiln::kernels
