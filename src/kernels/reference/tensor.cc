// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the tensor family that move, reshape or generate data: Reshape,
// Transpose, Squeeze, Unsqueeze, Expand, Tile, DepthToSpace, SpaceToDepth, Concat, Split, Slice,
// Shape, Size, Constant, ConstantOfShape, Range, EyeLike, Trilu, CumSum, CumProd, Compress,
// ReverseSequence. The indexing and resampling ops are in tensor_index.cc. Data is moved in
// element-sized chunks, so every element type (bool, integers, the floats) takes one path.
// The ops' definitions (ir/ops/tensor.cc) check the nodes and give the output dims: these
// kernels write into the bound outputs and check only input values the dims do not reflect
// (an index, an axis given as an input).
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
#include "kernels/util.h"

namespace kiln::kernels {

// Defined in tensor_index.cc.
void RegisterTensorIndexKernels(KernelRegistry& r);

namespace {

constexpr int kBad = code::kInvalidParam;
constexpr int kUnsupported = code::kFeatureUnsupported;

// ---------------------------------------------------------------------------------------------
// Shared helpers.

// Output i holding a byte-for-byte copy of `src` (Reshape, Squeeze, ...), which may share its
// memory (in place).
Status CopyAs(const NodeDef& def, KernelContext& ctx, size_t i, const TensorView& src) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, i));
  // The one guard of the copy: a binding that does not hold the input would be overrun.
  if (out->bytes() != src.bytes()) {
    return def.Fail(code::kInternalError, "output ", i, " is bound with dims ",
                    DimsString(out->dims), " for an input of ", DimsString(src.dims));
  }
  if (out->data != src.data && src.bytes() != 0) std::memmove(out->data, src.data, src.bytes());
  return Status::Ok();
}

// dst[i] = src[offset of output element i], output dims[k] = in dims[perm[k]].
void Permute(const TensorView& src, const Dims& in_dims, const std::vector<int64_t>& perm,
             const TensorView& dst) {
  const size_t r = perm.size(), es = ElemSize(src);
  const Dims in_strides = Strides(in_dims);
  Dims out_dims(r), stride(r);
  for (size_t k = 0; k < r; ++k) {
    out_dims[k] = in_dims[static_cast<size_t>(perm[k])];
    stride[k] = in_strides[static_cast<size_t>(perm[k])];
  }
  const int64_t n = NumElements(out_dims);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0, rest = i;
    for (size_t k = r; k-- > 0;) {
      off += (rest % out_dims[k]) * stride[k];
      rest /= out_dims[k];
    }
    CopyElem(dst, i, src, off, es);
  }
}

// `axis` (the definition checked it against `rank`) made non-negative.
size_t AxisOf(int64_t axis, size_t rank) {
  return static_cast<size_t>(axis < 0 ? axis + static_cast<int64_t>(rank) : axis);
}

// ---------------------------------------------------------------------------------------------
// Reshaping: the data is unchanged, the bound output has the new dims.

Status RunReshape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  return CopyAs(def, ctx, 0, *x);
}

Status RunTranspose(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  std::vector<int64_t> perm = def.attr_ints("perm");
  if (!def.has_attr("perm")) {  // reverses the axes
    for (size_t i = x->rank(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  Permute(*x, x->dims, perm, *out);
  return Status::Ok();
}

Status RunExpand(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const std::vector<int64_t> index = BroadcastIndex(x->dims, out->dims);
  const size_t es = ElemSize(*x);
  for (size_t i = 0; i < index.size(); ++i) {
    CopyElem(*out, static_cast<int64_t>(i), *x, index[i], es);
  }
  return Status::Ok();
}

Status RunTile(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const Dims& dims = out->dims;
  const int64_t n = NumElements(dims);
  if (n == 0) return Status::Ok();
  const Dims in_strides = Strides(x->dims);
  const size_t es = ElemSize(*x);
  Dims idx(dims.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d) off += (idx[d] % x->dims[d]) * in_strides[d];
    CopyElem(*out, i, *x, off, es);
    NextIndex(idx, dims);
  }
  return Status::Ok();
}

Status RunDepthToSpace(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const int64_t b = def.attr_int("blocksize");
  const int64_t n = x->dims[0], c = x->dims[1] / (b * b), h = x->dims[2], w = x->dims[3];
  if (def.opset >= 11 && def.attr_string("mode") == "CRD") {
    Permute(*x, {n, c, b, b, h, w}, {0, 1, 4, 2, 5, 3}, *out);
  } else {
    Permute(*x, {n, b, b, c, h, w}, {0, 3, 4, 1, 5, 2}, *out);
  }
  return Status::Ok();
}

Status RunSpaceToDepth(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const int64_t b = def.attr_int("blocksize");
  const int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2] / b, w = x->dims[3] / b;
  Permute(*x, {n, c, h, b, w, b}, {0, 3, 5, 1, 2, 4}, *out);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Concat, Split, Slice.

Status RunConcat(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const Dims& dims = out->dims;
  const size_t a = AxisOf(def.attr_int("axis"), dims.size());
  const size_t es = ElemSize(*out);
  const int64_t outer = Product(dims, 0, a), inner = Product(dims, a + 1, dims.size());
  const int64_t out_row = dims[a] * inner;
  int64_t col = 0;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(const TensorView* t, RequiredInput(def, ctx, i));
    const int64_t row = t->dims[a] * inner;
    for (int64_t o = 0; o < outer && row > 0; ++o) {
      uint8_t* to = Bytes(*out) + static_cast<size_t>(o * out_row + col) * es;
      const uint8_t* from = Bytes(*t) + static_cast<size_t>(o * row) * es;
      if (to == from) continue;  // the memory plan put the input where the output holds it
      std::memcpy(to, from, static_cast<size_t>(row) * es);
    }
    col += row;
  }
  return Status::Ok();
}

Status RunSplit(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const size_t a = AxisOf(def.attr_int("axis"), x->rank());
  const size_t es = ElemSize(*x);
  const int64_t outer = Product(x->dims, 0, a), inner = Product(x->dims, a + 1, x->dims.size());
  const int64_t in_row = x->dims[a] * inner;
  std::vector<int64_t> sizes;  // only when the graph leaves an output out
  int64_t col = 0;
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    TensorView* out = ctx.output(i);
    if (out == nullptr && sizes.empty()) sizes = SplitSizes(def, ctx, x->dims[a]);
    const int64_t row = (out != nullptr ? out->dims[a] : sizes[i]) * inner;
    for (int64_t o = 0; o < outer && row > 0 && out != nullptr; ++o) {
      std::memcpy(Bytes(*out) + static_cast<size_t>(o * row) * es,
                  Bytes(*x) + static_cast<size_t>(o * in_row + col) * es,
                  static_cast<size_t>(row) * es);
    }
    col += row;
  }
  return Status::Ok();
}

Status RunSlice(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(SliceWindow w, ResolveSlice(def, ctx, x->dims));
  const Dims& dims = out->dims;
  const int64_t count = NumElements(dims);
  if (count == 0) return Status::Ok();
  const Dims strides = Strides(x->dims);
  const size_t es = ElemSize(*x);
  Dims idx(dims.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d) off += (w.first[d] + idx[d] * w.step[d]) * strides[d];
    CopyElem(*out, i, *x, off, es);
    NextIndex(idx, dims);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Generators and shape queries.

Status RunShape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const int64_t r = static_cast<int64_t>(x->rank());
  // The dims from `start` (opset 15), clamped as the definition clamps it; as many as bound.
  int64_t start = def.opset >= 15 ? def.attr_int("start") : 0;
  start = std::clamp<int64_t>(start < 0 ? start + r : start, 0, r);
  for (int64_t i = 0; i < out->num_elements(); ++i) {
    out->as<int64_t>()[i] = x->dims[static_cast<size_t>(start + i)];
  }
  return Status::Ok();
}

Status RunSize(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  *out->as<int64_t>() = x->num_elements();
  return Status::Ok();
}

Status RunConstant(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const std::vector<uint8_t> bytes = ConstantBytes(def);
  if (bytes.size() != out->bytes()) {
    return def.Fail(code::kInvalidParam, "the value has ", bytes.size(), " bytes for an output of ",
                    out->bytes());
  }
  if (!bytes.empty()) std::memcpy(out->data, bytes.data(), bytes.size());
  return Status::Ok();
}

Status RunConstantOfShape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const size_t es = ElemSize(*out);
  const ir::Tensor* v = def.attr_tensor("value");  // of the output's type (the definition's)
  const float zero = 0;
  const void* value = v != nullptr ? static_cast<const void*>(v->raw()) : &zero;
  for (int64_t i = 0; i < out->num_elements(); ++i) {
    std::memcpy(Bytes(*out) + static_cast<size_t>(i) * es, value, es);
  }
  return Status::Ok();
}

// Range computes in its inputs' type: any number, not bool.
Status CheckRange(const NodeDef& def) {
  if (def.input_given(0) && !DispatchNumeric(def.input_types[0], [](auto) {})) {
    return def.Fail(kUnsupported, "type ", Name(def.input_types[0]));
  }
  return Status::Ok();
}

Status RunRange(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* start_t, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* delta_t, RequiredInput(def, ctx, 2));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  DispatchNumeric(out->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    const C start = Load(start_t->as<const T>(), 0), delta = Load(delta_t->as<const T>(), 0);
    for (int64_t i = 0; i < out->num_elements(); ++i) {
      Store(out->as<T>(), i, static_cast<C>(start + static_cast<C>(i) * delta));
    }
  });
  return Status::Ok();
}

Status RunEyeLike(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  if (out->bytes() != 0) std::memset(out->data, 0, out->bytes());
  const int64_t k = def.attr_int("k"), rows = out->dims[0], cols = out->dims[1];
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < cols) StoreDouble(*out, i * cols + j, 1.0);
  }
  return Status::Ok();
}

Status RunTrilu(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const TensorView* kt = ctx.input(1);
  const int64_t k = kt != nullptr ? ReadInts(*kt)[0] : 0;  // a scalar (the definition's)
  const bool upper = def.attr_int("upper") != 0;
  const int64_t rows = x->dims[x->rank() - 2], cols = x->dims[x->rank() - 1];
  const size_t es = ElemSize(*x);
  for (int64_t i = 0; i < x->num_elements(); ++i) {
    const int64_t c = i % cols, r = (i / cols) % rows;
    const bool keep = upper ? c - r >= k : c - r <= k;
    if (keep) {
      CopyElem(*out, i, *x, i, es);
    } else {
      std::memset(Bytes(*out) + static_cast<size_t>(i) * es, 0, es);
    }
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// CumSum, CumProd.

Status RunCumulative(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* at, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  // The axis is an input value, which the definition may not have seen (the output's dims do
  // not depend on it).
  KILN_ASSIGN_OR_RETURN(int64_t raw_axis, ScalarInt(def, *at, "axis"));
  KILN_ASSIGN_OR_RETURN(int64_t axis,
                        CheckedAxis(def, raw_axis, static_cast<int64_t>(x->rank()), x->dims));
  const bool exclusive = def.attr_int("exclusive") != 0;
  const bool reverse = def.attr_int("reverse") != 0;
  const bool product = def.op_type == "CumProd";
  const size_t a = static_cast<size_t>(axis);
  const int64_t n = x->dims[a];
  const int64_t outer = Product(x->dims, 0, a), inner = Product(x->dims, a + 1, x->rank());
  const bool ok = DispatchNumeric(x->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    for (int64_t o = 0; o < outer; ++o) {
      for (int64_t i = 0; i < inner; ++i) {
        C acc = product ? C(1) : C(0);
        for (int64_t s = 0; s < n; ++s) {
          const int64_t j = reverse ? n - 1 - s : s;
          const int64_t e = (o * n + j) * inner + i;
          const C v = Load(x->as<const T>(), e);
          if (exclusive) Store(out->as<T>(), e, acc);
          acc = product ? static_cast<C>(acc * v) : static_cast<C>(acc + v);
          if (!exclusive) Store(out->as<T>(), e, acc);
        }
      }
    }
  });
  if (!ok) return def.Fail(kUnsupported, "type ", Name(x->dtype));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Compress, ReverseSequence.

// Compress's output length is the count of true conditions (kTraitDataDependentShape): it binds
// its output itself. Its shape function does not run on a loaded node, so the checks the
// addressing relies on stay here.
Status RunCompress(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* c, RequiredInput(def, ctx, 1));
  if (c->rank() != 1) return def.Fail(kBad, "condition must be 1-D, got ", DimsString(c->dims));
  const std::vector<double> cond = ReadDoubles(*c);
  const bool flat = !def.has_attr("axis");
  Dims in_dims = flat ? Dims{x->num_elements()} : x->dims;
  int64_t axis = 0;
  if (!flat) {
    KILN_ASSIGN_OR_RETURN(
        axis, CheckedAxis(def, def.attr_int("axis"), static_cast<int64_t>(x->rank()), x->dims));
  }
  const size_t a = static_cast<size_t>(axis);
  if (static_cast<int64_t>(cond.size()) > in_dims[a]) {
    return def.Fail(kBad, "condition ", DimsString(c->dims), " is longer than axis ", axis,
                    " of input ", DimsString(x->dims));
  }
  std::vector<int64_t> keep;
  for (size_t i = 0; i < cond.size(); ++i) {
    if (cond[i] != 0) keep.push_back(static_cast<int64_t>(i));
  }
  Dims dims = in_dims;
  dims[a] = static_cast<int64_t>(keep.size());
  KILN_ASSIGN_OR_RETURN(TensorView * out, ctx.DynamicOutput(0, dims));
  const size_t es = ElemSize(*x);
  const int64_t outer = Product(in_dims, 0, a), inner = Product(in_dims, a + 1, in_dims.size());
  const size_t chunk = static_cast<size_t>(inner) * es;
  for (int64_t o = 0; o < outer && chunk > 0; ++o) {
    for (size_t j = 0; j < keep.size(); ++j) {
      const int64_t dst = (o * static_cast<int64_t>(keep.size()) + static_cast<int64_t>(j));
      const int64_t src = o * in_dims[a] + keep[j];
      std::memcpy(Bytes(*out) + static_cast<size_t>(dst) * chunk,
                  Bytes(*x) + static_cast<size_t>(src) * chunk, chunk);
    }
  }
  return Status::Ok();
}

Status RunReverseSequence(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* l, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  const size_t ba = static_cast<size_t>(def.attr_int("batch_axis"));
  const size_t ta = static_cast<size_t>(def.attr_int("time_axis"));
  const std::vector<int64_t> lens = ReadInts(*l);
  const int64_t time = x->dims[ta];
  for (int64_t v : lens) {
    if (v < 0 || v > time) {
      return def.Fail(kBad, "sequence length ", v, " is outside [0, ", time, "]");
    }
  }
  const int64_t n = x->num_elements();
  if (n == 0) return Status::Ok();
  const Dims strides = Strides(x->dims);
  const size_t es = ElemSize(*x);
  Dims idx(x->rank(), 0);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t len = lens[static_cast<size_t>(idx[ba])], t = idx[ta];
    const int64_t src = t < len ? i + (len - 1 - 2 * t) * strides[ta] : i;
    CopyElem(*out, i, *x, src, es);
    NextIndex(idx, x->dims);
  }
  return Status::Ok();
}

}  // namespace

void RegisterTensorKernels(KernelRegistry& r) {
  // Squeeze and Unsqueeze move no data either: Reshape's kernel serves them.
  RegisterStateless(r, "Reshape", RunReshape);
  RegisterStateless(r, "Transpose", RunTranspose);
  RegisterStateless(r, "Squeeze", RunReshape);
  RegisterStateless(r, "Unsqueeze", RunReshape);
  RegisterStateless(r, "Expand", RunExpand);
  RegisterStateless(r, "Tile", RunTile);
  RegisterStateless(r, "DepthToSpace", RunDepthToSpace);
  RegisterStateless(r, "SpaceToDepth", RunSpaceToDepth);
  RegisterStateless(r, "Concat", RunConcat);
  RegisterStateless(r, "Split", RunSplit);
  RegisterStateless(r, "Slice", RunSlice);
  RegisterStateless(r, "Shape", RunShape);
  RegisterStateless(r, "Size", RunSize);
  RegisterStateless(r, "Constant", RunConstant);
  RegisterStateless(r, "ConstantOfShape", RunConstantOfShape);
  RegisterStateless(r, "Range", RunRange, CheckRange);
  RegisterStateless(r, "EyeLike", RunEyeLike);
  RegisterStateless(r, "Trilu", RunTrilu);
  RegisterStateless(r, "Compress", RunCompress);
  RegisterStateless(r, "ReverseSequence", RunReverseSequence);
  RegisterStateless(r, "CumSum", RunCumulative);
  RegisterStateless(r, "CumProd", RunCumulative);
  RegisterTensorIndexKernels(r);
}

}  // namespace kiln::kernels
