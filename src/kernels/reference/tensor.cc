// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the tensor family that move, reshape or generate data: Reshape,
// Transpose, Squeeze, Unsqueeze, Expand, Tile, DepthToSpace, SpaceToDepth, Concat, Split, Slice,
// Shape, Size, Constant, ConstantOfShape, Range, EyeLike, Trilu, CumSum, CumProd, Compress,
// ReverseSequence. The indexing and resampling ops are in tensor_index.cc. Data is moved in
// element-sized chunks, so every element type (bool, integers, the floats) takes one path.
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

// Output i with `dims` holding a byte-for-byte copy of `src` (Reshape, Squeeze, ...).
Status CopyAs(const NodeDef& def, KernelContext& ctx, size_t i, const TensorView& src,
              const Dims& dims) {
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, i, dims));
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

// ---------------------------------------------------------------------------------------------
// Reshaping.

Status RunReshape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 1));
  const std::vector<int64_t> target = ReadInts(*s);
  const bool allow_zero = def.opset >= 14 && def.attr_int("allowzero", 0) == 1;
  Dims dims;
  std::optional<size_t> infer_at;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t v = target[i];
    if (v < -1 || (v == -1 && infer_at)) {
      return def.Fail(kBad, "invalid shape ", DimsString(target), " for input ",
                      DimsString(x->dims));
    }
    if (v == -1) infer_at = i;
    if (v == 0 && !allow_zero) {
      if (i >= x->rank()) {
        return def.Fail(kBad, "shape ", DimsString(target), " copies dim ", i, " that input ",
                        DimsString(x->dims), " does not have");
      }
      v = x->dims[i];
    }
    dims.push_back(v);
  }
  if (infer_at) {
    Dims others = dims;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(*infer_at));
    const int64_t known = CheckedCount(others).value_or(0);
    if (known == 0 || x->num_elements() % known != 0) {
      return def.Fail(kBad, "cannot reshape ", DimsString(x->dims), " to ", DimsString(target));
    }
    dims[*infer_at] = x->num_elements() / known;
  }
  if (CheckedCount(dims) != x->num_elements()) {
    return def.Fail(kBad, "cannot reshape ", DimsString(x->dims), " (", x->num_elements(),
                    " elements) to ", DimsString(target));
  }
  return CopyAs(def, ctx, 0, *x, dims);
}

Status CheckTranspose(const NodeDef& def) {
  if (!def.has_attr("perm")) return Status::Ok();
  std::vector<int64_t> perm = def.attr_ints("perm");
  std::vector<bool> seen(perm.size());
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(perm.size()) || seen[static_cast<size_t>(p)]) {
      return def.Fail(kBad, "perm ", DimsString(perm), " is not a permutation");
    }
    seen[static_cast<size_t>(p)] = true;
  }
  return Status::Ok();
}

Status RunTranspose(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  std::vector<int64_t> perm = def.attr_ints("perm");
  if (!def.has_attr("perm")) {
    for (size_t i = x->rank(); i-- > 0;) perm.push_back(static_cast<int64_t>(i));
  }
  if (perm.size() != x->rank()) {
    return def.Fail(kBad, "perm ", DimsString(perm), " does not fit input ", DimsString(x->dims));
  }
  Dims dims;
  for (int64_t p : perm) dims.push_back(x->dims[static_cast<size_t>(p)]);
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, dims));
  Permute(*x, x->dims, perm, *out);
  return Status::Ok();
}

// Squeeze's / Unsqueeze's axes: the attribute before opset 13, the input from it on.
std::optional<std::vector<int64_t>> AxesArg(const NodeDef& def, KernelContext& ctx) {
  if (def.opset < 13) {
    if (!def.has_attr("axes")) return std::nullopt;
    return def.attr_ints("axes");
  }
  const TensorView* t = ctx.input(1);
  if (t == nullptr) return std::nullopt;
  return ReadInts(*t);
}

Status RunSqueeze(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const int64_t r = static_cast<int64_t>(x->rank());
  std::vector<bool> drop(x->rank());
  if (auto axes = AxesArg(def, ctx)) {
    KILN_ASSIGN_OR_RETURN(std::vector<int64_t> norm, CheckedAxes(def, *axes, r));
    for (int64_t a : norm) {
      if (x->dims[static_cast<size_t>(a)] != 1) {
        return def.Fail(kBad, "cannot squeeze axis ", a, " of ", DimsString(x->dims),
                        ": its size is not 1");
      }
      drop[static_cast<size_t>(a)] = true;
    }
  } else {
    for (size_t i = 0; i < x->rank(); ++i) drop[i] = x->dims[i] == 1;
  }
  Dims dims;
  for (size_t i = 0; i < x->rank(); ++i) {
    if (!drop[i]) dims.push_back(x->dims[i]);
  }
  return CopyAs(def, ctx, 0, *x, dims);
}

Status RunUnsqueeze(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  auto axes = AxesArg(def, ctx);
  if (!axes) return def.Fail(kBad, "'axes' is required");
  const int64_t out_rank = static_cast<int64_t>(x->rank() + axes->size());
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> norm, CheckedAxes(def, *axes, out_rank));
  std::vector<bool> added(static_cast<size_t>(out_rank));
  for (int64_t a : norm) added[static_cast<size_t>(a)] = true;
  Dims dims;
  size_t next = 0;
  for (bool a : added) dims.push_back(a ? 1 : x->dims[next++]);
  return CopyAs(def, ctx, 0, *x, dims);
}

Status RunExpand(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 1));
  const Dims shape = ReadInts(*s);
  for (int64_t d : shape) {
    if (d < 0) return def.Fail(kBad, "shape ", DimsString(shape), " has a negative dim");
  }
  auto dims = BroadcastDims({&x->dims, &shape});
  if (!dims) {
    return def.Fail(kBad, "input ", DimsString(x->dims), " cannot be expanded to ",
                    DimsString(shape));
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, *dims));
  const std::vector<int64_t> index = BroadcastIndex(x->dims, *dims);
  const size_t es = ElemSize(*x);
  for (size_t i = 0; i < index.size(); ++i) {
    CopyElem(*out, static_cast<int64_t>(i), *x, index[i], es);
  }
  return Status::Ok();
}

Status RunTile(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* rt, RequiredInput(def, ctx, 1));
  KILN_ASSIGN_OR_RETURN(Dims dims, TileDims(def, *rt, x->dims));
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, dims));
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

Status CheckBlockSize(const NodeDef& def) {
  if (def.attr_int("blocksize", 0) < 1) {
    return def.Fail(kBad, "attribute 'blocksize' must be >= 1");
  }
  std::string mode = def.attr_string("mode", "DCR");
  if (def.op_type == "DepthToSpace" && mode != "DCR" && mode != "CRD") {
    return def.Fail(kUnsupported, "mode \"", mode, "\" is not supported");
  }
  return Status::Ok();
}

Status RunDepthToSpace(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const int64_t b = def.attr_int("blocksize", 1);
  if (x->rank() != 4 || x->dims[1] % (b * b) != 0) {
    return def.Fail(kBad, "input ", DimsString(x->dims), " must be 4-D with channels divisible by ",
                    b * b);
  }
  const int64_t n = x->dims[0], c = x->dims[1] / (b * b), h = x->dims[2], w = x->dims[3];
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, {n, c, h * b, w * b}));
  if (def.opset >= 11 && def.attr_string("mode", "DCR") == "CRD") {
    Permute(*x, {n, c, b, b, h, w}, {0, 1, 4, 2, 5, 3}, *out);
  } else {
    Permute(*x, {n, b, b, c, h, w}, {0, 3, 4, 1, 5, 2}, *out);
  }
  return Status::Ok();
}

Status RunSpaceToDepth(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const int64_t b = def.attr_int("blocksize", 1);
  if (x->rank() != 4 || x->dims[2] % b != 0 || x->dims[3] % b != 0) {
    return def.Fail(kBad, "input ", DimsString(x->dims),
                    " must be 4-D with height and width divisible by ", b);
  }
  const int64_t n = x->dims[0], c = x->dims[1], h = x->dims[2] / b, w = x->dims[3] / b;
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, {n, c * b * b, h, w}));
  Permute(*x, {n, c, h, b, w, b}, {0, 3, 5, 1, 2, 4}, *out);
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Concat, Split, Slice.

Status CheckConcat(const NodeDef& def) {
  if (!def.has_attr("axis")) return def.Fail(kBad, "attribute 'axis' is required");
  return Status::Ok();
}

Status RunConcat(const NodeDef& def, KernelContext& ctx) {
  if (ctx.num_inputs() == 0) return def.Fail(kBad, "has no inputs");
  std::vector<const TensorView*> ins;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    KILN_ASSIGN_OR_RETURN(const TensorView* t, RequiredInput(def, ctx, i));
    ins.push_back(t);
  }
  const Dims& first = ins[0]->dims;
  const int64_t r = static_cast<int64_t>(first.size());
  KILN_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(def, def.attr_int("axis", 0), r, first));
  Dims dims = first;
  dims[static_cast<size_t>(axis)] = 0;
  for (size_t i = 0; i < ins.size(); ++i) {
    const Dims& d = ins[i]->dims;
    bool ok = d.size() == first.size();
    for (size_t k = 0; ok && k < d.size(); ++k) {
      ok = static_cast<int64_t>(k) == axis || d[k] == first[k];
    }
    if (!ok || ins[i]->dtype != ins[0]->dtype) {
      return def.Fail(kBad, "input ", i, " ", DimsString(d), " does not fit input 0 ",
                      DimsString(first), " (only axis ", axis, " may differ)");
    }
    dims[static_cast<size_t>(axis)] += d[static_cast<size_t>(axis)];
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, dims));
  const size_t es = ElemSize(*out);
  const int64_t outer = Product(first, 0, static_cast<size_t>(axis));
  const int64_t inner = Product(first, static_cast<size_t>(axis) + 1, first.size());
  const int64_t out_row = dims[static_cast<size_t>(axis)] * inner;
  int64_t col = 0;
  for (const TensorView* t : ins) {
    const int64_t row = t->dims[static_cast<size_t>(axis)] * inner;
    for (int64_t o = 0; o < outer && row > 0; ++o) {
      std::memcpy(Bytes(*out) + static_cast<size_t>(o * out_row + col) * es,
                  Bytes(*t) + static_cast<size_t>(o * row) * es, static_cast<size_t>(row) * es);
    }
    col += row;
  }
  return Status::Ok();
}

Status RunSplit(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const int64_t r = static_cast<int64_t>(x->rank());
  KILN_ASSIGN_OR_RETURN(int64_t axis, CheckedAxis(def, def.attr_int("axis", 0), r, x->dims));
  const size_t a = static_cast<size_t>(axis);
  KILN_ASSIGN_OR_RETURN(std::vector<int64_t> sizes, SplitSizes(def, ctx, x->dims[a]));
  const size_t es = ElemSize(*x);
  const int64_t outer = Product(x->dims, 0, a), inner = Product(x->dims, a + 1, x->dims.size());
  const int64_t in_row = x->dims[a] * inner;
  int64_t col = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    Dims dims = x->dims;
    dims[a] = sizes[i];
    KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, i, dims));
    const int64_t row = sizes[i] * inner;
    for (int64_t o = 0; o < outer && row > 0; ++o) {
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
  KILN_ASSIGN_OR_RETURN(SliceWindow w, ResolveSlice(def, ctx, x->dims));
  const Dims& dims = w.dims;
  const Dims& first = w.first;
  const Dims& step = w.step;
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, dims));
  const int64_t count = NumElements(dims);
  if (count == 0) return Status::Ok();
  const Dims strides = Strides(x->dims);
  const size_t es = ElemSize(*x);
  Dims idx(dims.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t off = 0;
    for (size_t d = 0; d < dims.size(); ++d) off += (first[d] + idx[d] * step[d]) * strides[d];
    CopyElem(*out, i, *x, off, es);
    NextIndex(idx, dims);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Generators and shape queries.

Status RunShape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  const int64_t r = static_cast<int64_t>(x->rank());
  auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  const bool sliced = def.opset >= 15;
  const int64_t start = sliced ? clamp(def.attr_int("start", 0)) : 0;
  const int64_t end = sliced ? clamp(def.attr_int("end", r)) : r;
  const int64_t n = std::max<int64_t>(end - start, 0);
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, {n}));
  for (int64_t i = 0; i < n; ++i) out->as<int64_t>()[i] = x->dims[static_cast<size_t>(start + i)];
  return Status::Ok();
}

Status RunSize(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, {}));
  *out->as<int64_t>() = x->num_elements();
  return Status::Ok();
}

// The attribute that gives a Constant its value.
Result<std::string> ConstantForm(const NodeDef& def) {
  std::vector<std::string> given;
  for (const char* form : {"value", "value_float", "value_floats", "value_int", "value_ints",
                           "value_string", "value_strings", "sparse_value"}) {
    if (def.has_attr(form)) given.push_back(form);
  }
  if (given.size() != 1) return def.Fail(kBad, "exactly one value attribute must be set");
  return given[0];
}

Status CheckConstant(const NodeDef& def) {
  KILN_ASSIGN_OR_RETURN(std::string form, ConstantForm(def));
  DataType t = DataType::kUndefined;
  if (form == "value") {
    const ir::Tensor* v = def.attr_tensor("value");
    if (v == nullptr) return def.Fail(kBad, "attribute 'value' must be a tensor");
    t = v->dtype();
    if (ir::SizeOf(t) == 0) return def.Fail(kUnsupported, "a ", Name(t), " value");
    if (v->bytes() != static_cast<size_t>(v->num_elements()) * ir::SizeOf(t)) {
      return def.Fail(kBad, "attribute 'value' holds ", v->bytes(), " bytes for shape ",
                      DimsString(v->dims()));
    }
  } else if (form == "value_float" || form == "value_floats") {
    t = DataType::kFloat32;
  } else if (form == "value_int" || form == "value_ints") {
    t = DataType::kInt64;
  } else {
    return def.Fail(kUnsupported, "a Constant given by '", form, "' is not supported");
  }
  if (def.num_outputs() != 1 || def.output_types[0] != t) {
    return def.Fail(kBad, "the output type does not match the ", Name(t), " value");
  }
  return Status::Ok();
}

Status RunConstant(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::string form, ConstantForm(def));
  if (form == "value") {
    const ir::Tensor* v = def.attr_tensor("value");
    KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, v->dims()));
    if (v->bytes() != 0) std::memcpy(out->data, v->raw(), v->bytes());
  } else if (form == "value_float") {
    KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, {}));
    *out->as<float>() = def.attr_float(form, 0);
  } else if (form == "value_int") {
    KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, {}));
    *out->as<int64_t>() = def.attr_int(form, 0);
  } else if (form == "value_floats") {
    std::vector<float> v = def.attr_floats(form);
    KILN_ASSIGN_OR_RETURN(TensorView * out,
                          CheckedOutput(def, ctx, 0, {static_cast<int64_t>(v.size())}));
    if (!v.empty()) std::memcpy(out->data, v.data(), v.size() * sizeof(float));
  } else {
    std::vector<int64_t> v = def.attr_ints(form);
    KILN_ASSIGN_OR_RETURN(TensorView * out,
                          CheckedOutput(def, ctx, 0, {static_cast<int64_t>(v.size())}));
    if (!v.empty()) std::memcpy(out->data, v.data(), v.size() * sizeof(int64_t));
  }
  return Status::Ok();
}

Status CheckConstantOfShape(const NodeDef& def) {
  DataType t = DataType::kFloat32;
  if (def.has_attr("value")) {
    const ir::Tensor* v = def.attr_tensor("value");
    if (v == nullptr || v->num_elements() != 1 || ir::SizeOf(v->dtype()) == 0 ||
        v->bytes() != ir::SizeOf(v->dtype())) {
      return def.Fail(kBad, "attribute 'value' must be a one-element numeric or bool tensor");
    }
    t = v->dtype();
  }
  if (def.num_outputs() != 1 || def.output_types[0] != t) {
    return def.Fail(kBad, "the output type does not match the ", Name(t), " value");
  }
  return Status::Ok();
}

Status RunConstantOfShape(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* s, RequiredInput(def, ctx, 0));
  const Dims dims = ReadInts(*s);
  for (int64_t d : dims) {
    if (d < 0) return def.Fail(kBad, "shape ", DimsString(dims), " has a negative dim");
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, dims));
  const size_t es = ElemSize(*out);
  const ir::Tensor* v = def.attr_tensor("value");
  const float zero = 0;
  const void* value = v != nullptr ? static_cast<const void*>(v->raw()) : &zero;
  for (int64_t i = 0; i < out->num_elements(); ++i) {
    std::memcpy(Bytes(*out) + static_cast<size_t>(i) * es, value, es);
  }
  return Status::Ok();
}

Status RunRange(const NodeDef& def, KernelContext& ctx) {
  const TensorView* in[3];
  for (size_t i = 0; i < 3; ++i) {
    KILN_ASSIGN_OR_RETURN(in[i], RequiredInput(def, ctx, i));
    if (in[i]->num_elements() != 1 || in[i]->dtype != in[0]->dtype) {
      return def.Fail(kBad, "start, limit and delta must be scalars of one type");
    }
  }
  Status status = Status::Ok();
  bool ok = DispatchNumeric(in[0]->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    using C = ComputeT<T>;
    const C start = Load(in[0]->as<const T>(), 0), limit = Load(in[1]->as<const T>(), 0);
    const C delta = Load(in[2]->as<const T>(), 0);
    int64_t n = 0;
    if (delta == C(0)) {
      status = def.Fail(kBad, "delta is 0");
      return;
    }
    if constexpr (std::is_integral_v<C>) {
      // In 128 bits: limit - start may not fit the type.
      __int128 diff = static_cast<__int128>(limit) - static_cast<__int128>(start);
      __int128 d = delta, q = diff / d;
      if (diff % d != 0 && ((diff > 0) == (d > 0))) ++q;
      n = static_cast<int64_t>(std::max<__int128>(q, 0));
    } else {
      const double len = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                   static_cast<double>(delta));
      if (!(len < 9.0e18)) {
        status = def.Fail(kBad, "the range has no finite length");
        return;
      }
      n = std::max<int64_t>(static_cast<int64_t>(len), 0);
    }
    auto out = CheckedOutput(def, ctx, 0, {n});
    if (!out.ok()) {
      status = out.status();
      return;
    }
    for (int64_t i = 0; i < n; ++i) {
      Store((*out)->as<T>(), i, static_cast<C>(start + static_cast<C>(i) * delta));
    }
  });
  if (!ok) return def.Fail(kUnsupported, "type ", Name(in[0]->dtype));
  return status;
}

Status RunEyeLike(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  if (x->rank() != 2) return def.Fail(kBad, "input must be 2-D, got ", DimsString(x->dims));
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, x->dims));
  if (out->bytes() != 0) std::memset(out->data, 0, out->bytes());
  const int64_t k = def.attr_int("k", 0), rows = x->dims[0], cols = x->dims[1];
  for (int64_t i = 0; i < rows; ++i) {
    const int64_t j = i + k;
    if (j >= 0 && j < cols) StoreDouble(*out, i * cols + j, 1.0);
  }
  return Status::Ok();
}

Status RunTrilu(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  if (x->rank() < 2) return def.Fail(kBad, "input must have rank >= 2, got ", DimsString(x->dims));
  int64_t k = 0;
  if (const TensorView* kt = ctx.input(1)) {
    KILN_ASSIGN_OR_RETURN(k, ScalarInt(def, *kt, "k"));
  }
  const bool upper = def.attr_int("upper", 1) != 0;
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, x->dims));
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
  KILN_ASSIGN_OR_RETURN(int64_t raw_axis, ScalarInt(def, *at, "axis"));
  KILN_ASSIGN_OR_RETURN(int64_t axis,
                        CheckedAxis(def, raw_axis, static_cast<int64_t>(x->rank()), x->dims));
  const bool exclusive = def.attr_int("exclusive", 0) != 0;
  const bool reverse = def.attr_int("reverse", 0) != 0;
  const bool product = def.op_type == "CumProd";
  const size_t a = static_cast<size_t>(axis);
  const int64_t n = x->dims[a];
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, x->dims));
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
        axis, CheckedAxis(def, def.attr_int("axis", 0), static_cast<int64_t>(x->rank()), x->dims));
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
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, dims));
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

Status CheckReverseSequence(const NodeDef& def) {
  const int64_t b = def.attr_int("batch_axis", 1), t = def.attr_int("time_axis", 0);
  if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t) {
    return def.Fail(kBad, "batch_axis ", b, " and time_axis ", t, " must be 0 and 1");
  }
  return Status::Ok();
}

Status RunReverseSequence(const NodeDef& def, KernelContext& ctx) {
  KILN_ASSIGN_OR_RETURN(const TensorView* x, RequiredInput(def, ctx, 0));
  KILN_ASSIGN_OR_RETURN(const TensorView* l, RequiredInput(def, ctx, 1));
  const size_t ba = static_cast<size_t>(def.attr_int("batch_axis", 1));
  const size_t ta = static_cast<size_t>(def.attr_int("time_axis", 0));
  if (x->rank() < 2) return def.Fail(kBad, "input must have rank >= 2, got ", DimsString(x->dims));
  const std::vector<int64_t> lens = ReadInts(*l);
  const int64_t batch = x->dims[ba], time = x->dims[ta];
  if (l->rank() != 1 || static_cast<int64_t>(lens.size()) != batch) {
    return def.Fail(kBad, "sequence_lens ", DimsString(l->dims), " must be [", batch, "]");
  }
  for (int64_t v : lens) {
    if (v < 0 || v > time) {
      return def.Fail(kBad, "sequence length ", v, " is outside [0, ", time, "]");
    }
  }
  KILN_ASSIGN_OR_RETURN(TensorView * out, CheckedOutput(def, ctx, 0, x->dims));
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
  RegisterStateless(r, "Reshape", RunReshape);
  RegisterStateless(r, "Transpose", RunTranspose, CheckTranspose);
  RegisterStateless(r, "Squeeze", RunSqueeze);
  RegisterStateless(r, "Unsqueeze", RunUnsqueeze);
  RegisterStateless(r, "Expand", RunExpand);
  RegisterStateless(r, "Tile", RunTile);
  RegisterStateless(r, "DepthToSpace", RunDepthToSpace, CheckBlockSize);
  RegisterStateless(r, "SpaceToDepth", RunSpaceToDepth, CheckBlockSize);
  RegisterStateless(r, "Concat", RunConcat, CheckConcat);
  RegisterStateless(r, "Split", RunSplit);
  RegisterStateless(r, "Slice", RunSlice);
  RegisterStateless(r, "Shape", RunShape);
  RegisterStateless(r, "Size", RunSize);
  RegisterStateless(r, "Constant", RunConstant, CheckConstant);
  RegisterStateless(r, "ConstantOfShape", RunConstantOfShape, CheckConstantOfShape);
  RegisterStateless(r, "Range", RunRange);
  RegisterStateless(r, "EyeLike", RunEyeLike);
  RegisterStateless(r, "Trilu", RunTrilu);
  RegisterStateless(r, "Compress", RunCompress);
  RegisterStateless(r, "ReverseSequence", RunReverseSequence, CheckReverseSequence);
  RegisterStateless(r, "CumSum", RunCumulative);
  RegisterStateless(r, "CumProd", RunCumulative);
  RegisterTensorIndexKernels(r);
}

}  // namespace kiln::kernels
