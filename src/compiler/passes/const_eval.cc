// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/passes/const_eval.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <type_traits>
#include <variant>

#include "base/fp16.h"

namespace kiln::compiler {
namespace {

using ir::DataType;
using ir::Node;
using ir::Tensor;
using Dims = std::vector<int64_t>;
using Out = std::optional<Tensor>;

// Element count of `dims`; nullopt for a negative dim or on overflow.
std::optional<int64_t> Count(const Dims& dims) {
  int64_t n = 1;
  for (int64_t d : dims) {
    if (d < 0) return std::nullopt;
    if (d != 0 && n > INT64_MAX / d) return std::nullopt;
    n *= d;
  }
  return n;
}

int64_t Product(const Dims& dims, size_t first, size_t last) {
  int64_t n = 1;
  for (size_t i = first; i < last; ++i) n *= dims[i];
  return n;
}

Dims Strides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

// Unaligned-safe element access (a constant may be a region of a mapped file).
template <typename T>
T Load(const Tensor& t, int64_t i) {
  T v;
  std::memcpy(&v, t.raw() + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return v;
}

// Whether `t` holds as many bytes as its dims and element type need.
bool Valid(const Tensor& t) {
  size_t size = SizeOf(t.dtype());
  auto n = Count(t.dims());
  if (size == 0 || !n) return false;
  if (static_cast<uint64_t>(*n) > t.bytes() / size) return false;
  return *n == 0 || t.raw() != nullptr;
}

bool IsIntTensor(const Tensor& t) {
  return t.dtype() == DataType::kInt64 || t.dtype() == DataType::kInt32;
}

// For each element of a tensor of `out` dims, the source index base + sum(idx[d] * stride[d]).
std::vector<int64_t> StridedSource(const Dims& out, int64_t base, const Dims& stride) {
  const int64_t n = *Count(out);
  std::vector<int64_t> src(static_cast<size_t>(n));
  Dims idx(out.size(), 0);
  int64_t pos = base;
  for (int64_t k = 0; k < n; ++k) {
    src[static_cast<size_t>(k)] = pos;
    for (size_t d = out.size(); d-- > 0;) {
      pos += stride[d];
      if (++idx[d] < out[d]) break;
      pos -= stride[d] * idx[d];
      idx[d] = 0;
    }
  }
  return src;
}

// Numpy multidirectional broadcasting of two static shapes.
std::optional<Dims> BroadcastDims(const Dims& a, const Dims& b) {
  const size_t r = std::max(a.size(), b.size());
  Dims out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t db = i < r - b.size() ? 1 : b[i - (r - b.size())];
    if (da == db || db == 1) {
      out[i] = da;
    } else if (da == 1) {
      out[i] = db;
    } else {
      return std::nullopt;
    }
  }
  return out;
}

// For each element of the broadcast result `out`, the element of a tensor of `in` dims it
// reads (`in` has at most out's rank and broadcasts to it).
std::vector<int64_t> BroadcastSource(const Dims& in, const Dims& out) {
  const size_t offset = out.size() - in.size();
  Dims in_strides = Strides(in);
  Dims stride(out.size(), 0);
  for (size_t i = 0; i < in.size(); ++i) stride[offset + i] = in[i] == 1 ? 0 : in_strides[i];
  return StridedSource(out, 0, stride);
}

// A tensor of `dims` whose element i is element src[i] of `in` (any element type).
Tensor Remap(const Tensor& in, Dims dims, const std::vector<int64_t>& src) {
  const size_t size = SizeOf(in.dtype());
  std::vector<uint8_t> bytes(src.size() * size);
  for (size_t i = 0; i < src.size(); ++i) {
    std::memcpy(&bytes[i * size], in.raw() + src[i] * static_cast<int64_t>(size), size);
  }
  return Tensor::Copy(in.dtype(), std::move(dims), bytes.data(), bytes.size());
}

// `in`'s elements under new dims (same element count).
Tensor Relabel(const Tensor& in, Dims dims) {
  const size_t bytes = static_cast<size_t>(in.num_elements()) * SizeOf(in.dtype());
  return Tensor::Copy(in.dtype(), std::move(dims), in.raw(), bytes);
}

// Calls f(T{}) with the C++ element type of a float `dtype`; false for other types.
template <typename F>
bool DispatchFloat(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kFloat32:
      f(float{});
      return true;
    case DataType::kFloat64:
      f(double{});
      return true;
    default:
      return false;
  }
}

// DispatchFloat plus the integer types arithmetic takes.
template <typename F>
bool DispatchArith(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kInt32:
      f(int32_t{});
      return true;
    case DataType::kInt64:
      f(int64_t{});
      return true;
    default:
      return DispatchFloat(dtype, std::forward<F>(f));
  }
}

// DispatchArith plus the types comparisons also take (bool is read as its 0/1 byte).
template <typename F>
bool DispatchComparable(DataType dtype, F&& f) {
  switch (dtype) {
    case DataType::kInt8:
      f(int8_t{});
      return true;
    case DataType::kUint8:
    case DataType::kBool:
      f(uint8_t{});
      return true;
    default:
      return DispatchArith(dtype, std::forward<F>(f));
  }
}

// Two's-complement wrapping arithmetic for integers (no undefined overflow), IEEE for floats.
template <typename T>
T WrapAdd(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) + static_cast<U>(b)));
  } else {
    return a + b;
  }
}
template <typename T>
T WrapSub(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) - static_cast<U>(b)));
  } else {
    return a - b;
  }
}
template <typename T>
T WrapMul(T a, T b) {
  if constexpr (std::is_integral_v<T>) {
    using U = std::make_unsigned_t<T>;
    return static_cast<T>(static_cast<U>(static_cast<U>(a) * static_cast<U>(b)));
  } else {
    return a * b;
  }
}

// What an op's evaluation sees.
struct Eval {
  const Node& node;
  std::vector<const Tensor*> in;  // constant inputs; null where omitted
  size_t max_bytes;

  const Tensor* input(size_t i) const { return i < in.size() ? in[i] : nullptr; }
  // Whether inputs [0, n) are all present.
  bool Has(size_t n) const {
    if (in.size() < n) return false;
    return std::all_of(in.begin(), in.begin() + static_cast<std::ptrdiff_t>(n),
                       [](const Tensor* t) { return t != nullptr; });
  }
  // Whether a result of `dims` and `dtype` is within the byte budget.
  bool Fits(const Dims& dims, DataType dtype) const {
    auto n = Count(dims);
    const size_t size = SizeOf(dtype);
    return n && size != 0 && static_cast<uint64_t>(*n) <= max_bytes / size;
  }
};

// f(a, b, &r) -> bool over broadcast a (element TA) and b (element TB) into R elements.
template <typename TA, typename TB, typename R, typename F>
Out Binary(const Eval& e, const Tensor& a, const Tensor& b, DataType out_dtype, F f) {
  auto dims = BroadcastDims(a.dims(), b.dims());
  if (!dims || !e.Fits(*dims, out_dtype)) return std::nullopt;
  std::vector<int64_t> sa = BroadcastSource(a.dims(), *dims);
  std::vector<int64_t> sb = BroadcastSource(b.dims(), *dims);
  std::vector<R> out(sa.size());
  for (size_t i = 0; i < sa.size(); ++i) {
    if (!f(Load<TA>(a, sa[i]), Load<TB>(b, sb[i]), &out[i])) return std::nullopt;
  }
  return Tensor::FromVector(out_dtype, *dims, out);
}

// f(a, &r) -> bool elementwise.
template <typename T, typename R, typename F>
Out Unary(const Eval& e, const Tensor& a, DataType out_dtype, F f) {
  if (!e.Fits(a.dims(), out_dtype)) return std::nullopt;
  std::vector<R> out(static_cast<size_t>(a.num_elements()));
  for (size_t i = 0; i < out.size(); ++i) {
    if (!f(Load<T>(a, static_cast<int64_t>(i)), &out[i])) return std::nullopt;
  }
  return Tensor::FromVector(out_dtype, a.dims(), out);
}

// Axes from input `index` (opset >= input_since) or attribute `attr`; `given` says whether
// the node set them at all. False when the input is not an integer tensor.
bool ReadAxes(const Eval& e, size_t index, const char* attr, int input_since, Dims* axes,
              bool* given) {
  if (e.node.opset() >= input_since) {
    const Tensor* t = e.input(index);
    *given = t != nullptr;
    if (t == nullptr) return true;
    if (!IsIntTensor(*t)) return false;
    *axes = t->AsInt64s();
    return true;
  }
  *given = e.node.has_attr(attr);
  *axes = e.node.attr_ints(attr);
  return true;
}

// Normalises `axes` against `rank`; false for an axis out of range or repeated.
bool NormalizeAxes(Dims* axes, int64_t rank) {
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  for (int64_t& a : *axes) {
    auto n = NormalizeAxis(a, rank);
    if (!n || seen[static_cast<size_t>(*n)]) return false;
    seen[static_cast<size_t>(*n)] = true;
    a = *n;
  }
  return true;
}

// ---- sources of constants -------------------------------------------------------------------

Out EvalConstant(const Eval& e) {
  const auto& attrs = e.node.attrs();
  if (const Tensor* t = e.node.attr_tensor("value")) {
    if (!Valid(*t) || !e.Fits(t->dims(), t->dtype())) return std::nullopt;
    return *t;
  }
  if (auto it = attrs.find("value_float"); it != attrs.end()) {
    const auto* v = std::get_if<float>(&it->second);
    if (v == nullptr) return std::nullopt;
    return Tensor::FromVector(DataType::kFloat32, {}, std::vector<float>{*v});
  }
  if (auto it = attrs.find("value_floats"); it != attrs.end()) {
    const auto* v = std::get_if<std::vector<float>>(&it->second);
    if (v == nullptr || !e.Fits({static_cast<int64_t>(v->size())}, DataType::kFloat32)) {
      return std::nullopt;
    }
    return Tensor::FromVector(DataType::kFloat32, {static_cast<int64_t>(v->size())}, *v);
  }
  if (auto it = attrs.find("value_int"); it != attrs.end()) {
    const auto* v = std::get_if<int64_t>(&it->second);
    if (v == nullptr) return std::nullopt;
    return Tensor::FromVector(DataType::kInt64, {}, std::vector<int64_t>{*v});
  }
  if (auto it = attrs.find("value_ints"); it != attrs.end()) {
    const auto* v = std::get_if<std::vector<int64_t>>(&it->second);
    if (v == nullptr || !e.Fits({static_cast<int64_t>(v->size())}, DataType::kInt64)) {
      return std::nullopt;
    }
    return Tensor::FromVector(DataType::kInt64, {static_cast<int64_t>(v->size())}, *v);
  }
  return std::nullopt;  // strings and sparse values are not folded
}

Out EvalConstantOfShape(const Eval& e) {
  if (!e.Has(1) || e.in[0]->dtype() != DataType::kInt64 || e.in[0]->dims().size() > 1) {
    return std::nullopt;
  }
  Dims dims = e.in[0]->AsInt64s();
  Tensor fill = Tensor::FromVector(DataType::kFloat32, {}, std::vector<float>{0.0f});
  if (e.node.has_attr("value")) {
    const Tensor* v = e.node.attr_tensor("value");
    if (v == nullptr || !Valid(*v) || v->num_elements() != 1) return std::nullopt;
    fill = *v;
  }
  if (!e.Fits(dims, fill.dtype())) return std::nullopt;
  const size_t size = SizeOf(fill.dtype());
  const size_t n = static_cast<size_t>(*Count(dims));
  std::vector<uint8_t> bytes(n * size);
  for (size_t i = 0; i < n; ++i) std::memcpy(&bytes[i * size], fill.raw(), size);
  return Tensor::Copy(fill.dtype(), std::move(dims), bytes.data(), bytes.size());
}

template <typename T>
Out RangeOf(const Eval& e, DataType dtype) {
  const T start = Load<T>(*e.in[0], 0);
  const T limit = Load<T>(*e.in[1], 0);
  const T delta = Load<T>(*e.in[2], 0);
  if (delta == T{0}) return std::nullopt;
  int64_t n = 0;
  if constexpr (std::is_integral_v<T>) {
    int64_t diff;
    if (__builtin_sub_overflow(static_cast<int64_t>(limit), static_cast<int64_t>(start), &diff)) {
      return std::nullopt;  // far beyond the size budget anyway
    }
    const int64_t d = delta;
    if (d > 0 && diff > 0) n = (diff - 1) / d + 1;
    if (d < 0 && diff < 0) n = (diff + 1) / d + 1;
  } else {
    const double count = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                                   static_cast<double>(delta));
    if (!(count > 0)) {
      n = 0;  // also NaN
    } else if (count > static_cast<double>(e.max_bytes)) {
      return std::nullopt;
    } else {
      n = static_cast<int64_t>(count);
    }
  }
  if (!e.Fits({n}, dtype)) return std::nullopt;
  std::vector<T> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    if constexpr (std::is_integral_v<T>) {
      out[static_cast<size_t>(i)] = static_cast<T>(static_cast<int64_t>(start) + i * delta);
    } else {
      out[static_cast<size_t>(i)] = start + static_cast<T>(i) * delta;
    }
  }
  return Tensor::FromVector(dtype, {n}, out);
}

Out EvalRange(const Eval& e) {
  if (!e.Has(3)) return std::nullopt;
  const DataType dtype = e.in[0]->dtype();
  for (size_t i = 0; i < 3; ++i) {
    if (e.in[i]->dtype() != dtype || e.in[i]->num_elements() != 1) return std::nullopt;
  }
  Out out;
  DispatchArith(dtype, [&](auto tag) { out = RangeOf<decltype(tag)>(e, dtype); });
  return out;
}

// Shape and Size read the input's (static) shape, not its data.
Out EvalShape(const Eval& e) {
  const ir::Value* x = e.node.input(0);
  if (x == nullptr || !x->shape().rank_known()) return std::nullopt;
  const ir::Shape& shape = x->shape();
  const int64_t r = static_cast<int64_t>(shape.rank());
  int64_t start = 0, end = r;
  if (e.node.opset() >= 15) {
    auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
    start = clamp(e.node.attr_int("start", 0));
    end = clamp(e.node.attr_int("end", r));
  }
  Dims dims;
  for (int64_t i = start; i < end; ++i) {
    const ir::Dim& d = shape[static_cast<size_t>(i)];
    if (!d.known()) return std::nullopt;
    dims.push_back(d.value);
  }
  return Tensor::FromVector(DataType::kInt64, {static_cast<int64_t>(dims.size())}, dims);
}

Out EvalSize(const Eval& e) {
  const ir::Value* x = e.node.input(0);
  if (x == nullptr) return std::nullopt;
  auto n = x->shape().NumElements();
  if (!n) return std::nullopt;
  return Tensor::FromVector(DataType::kInt64, {}, std::vector<int64_t>{*n});
}

// ---- data movement (any element type) -------------------------------------------------------

Out EvalIdentity(const Eval& e) {
  if (!e.Has(1) || !e.Fits(e.in[0]->dims(), e.in[0]->dtype())) return std::nullopt;
  return *e.in[0];
}

Out EvalGather(const Eval& e) {
  if (!e.Has(2) || !IsIntTensor(*e.in[1])) return std::nullopt;
  const Tensor& data = *e.in[0];
  const Dims& dd = data.dims();
  const int64_t r = static_cast<int64_t>(dd.size());
  auto axis_or = NormalizeAxis(e.node.attr_int("axis", 0), r);
  if (!axis_or) return std::nullopt;
  const size_t axis = static_cast<size_t>(*axis_or);
  Dims dims(dd.begin(), dd.begin() + *axis_or);
  dims.insert(dims.end(), e.in[1]->dims().begin(), e.in[1]->dims().end());
  dims.insert(dims.end(), dd.begin() + *axis_or + 1, dd.end());
  if (!e.Fits(dims, data.dtype())) return std::nullopt;
  const int64_t outer = Product(dd, 0, axis);
  const int64_t dim = dd[axis];
  const int64_t inner = Product(dd, axis + 1, dd.size());
  const Dims indices = e.in[1]->AsInt64s();
  std::vector<int64_t> src;
  src.reserve(static_cast<size_t>(*Count(dims)));
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t k : indices) {
      const int64_t j = k < 0 ? k + dim : k;
      if (j < 0 || j >= dim) return std::nullopt;
      for (int64_t i = 0; i < inner; ++i) src.push_back((o * dim + j) * inner + i);
    }
  }
  return Remap(data, std::move(dims), src);
}

Out EvalUnsqueeze(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  Dims axes;
  bool given = false;
  if (!ReadAxes(e, 1, "axes", 13, &axes, &given) || !given) return std::nullopt;
  const Dims& in = e.in[0]->dims();
  const int64_t rank = static_cast<int64_t>(in.size() + axes.size());
  if (!NormalizeAxes(&axes, rank)) return std::nullopt;
  Dims dims;
  size_t next = 0;
  for (int64_t i = 0; i < rank; ++i) {
    if (std::find(axes.begin(), axes.end(), i) != axes.end()) {
      dims.push_back(1);
    } else {
      dims.push_back(in[next++]);
    }
  }
  return Relabel(*e.in[0], std::move(dims));
}

Out EvalSqueeze(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  Dims axes;
  bool given = false;
  if (!ReadAxes(e, 1, "axes", 13, &axes, &given)) return std::nullopt;
  const Dims& in = e.in[0]->dims();
  const int64_t rank = static_cast<int64_t>(in.size());
  if (!NormalizeAxes(&axes, rank)) return std::nullopt;
  Dims dims;
  for (int64_t i = 0; i < rank; ++i) {
    const bool listed = std::find(axes.begin(), axes.end(), i) != axes.end();
    const int64_t d = in[static_cast<size_t>(i)];
    if (listed && d != 1) return std::nullopt;
    const bool squeezed = axes.empty() ? d == 1 : listed;
    if (!squeezed) dims.push_back(d);
  }
  return Relabel(*e.in[0], std::move(dims));
}

Out EvalReshape(const Eval& e) {
  if (!e.Has(2) || e.in[1]->dtype() != DataType::kInt64) return std::nullopt;
  const Dims& in = e.in[0]->dims();
  const Dims shape = e.in[1]->AsInt64s();
  const bool allow_zero = e.node.opset() >= 14 && e.node.attr_int("allowzero", 0) != 0;
  Dims dims;
  std::optional<size_t> inferred;
  for (size_t i = 0; i < shape.size(); ++i) {
    int64_t d = shape[i];
    if (d == 0 && !allow_zero) {
      if (i >= in.size()) return std::nullopt;
      d = in[i];
    }
    if (d == -1) {
      if (inferred) return std::nullopt;
      inferred = i;
      d = 1;
    } else if (d < 0) {
      return std::nullopt;
    }
    dims.push_back(d);
  }
  const int64_t n = e.in[0]->num_elements();
  auto known = Count(dims);
  if (!known) return std::nullopt;
  if (inferred) {
    if (*known == 0 || n % *known != 0) return std::nullopt;
    dims[*inferred] = n / *known;
  } else if (*known != n) {
    return std::nullopt;
  }
  return Relabel(*e.in[0], std::move(dims));
}

Out EvalTranspose(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  const Dims& in = e.in[0]->dims();
  const size_t r = in.size();
  Dims perm(r);
  for (size_t i = 0; i < r; ++i) perm[i] = static_cast<int64_t>(r - 1 - i);
  perm = e.node.attr_ints("perm", perm);
  if (perm.size() != r) return std::nullopt;
  std::vector<bool> seen(r, false);
  for (int64_t p : perm) {
    if (p < 0 || p >= static_cast<int64_t>(r) || seen[static_cast<size_t>(p)]) {
      return std::nullopt;
    }
    seen[static_cast<size_t>(p)] = true;
  }
  const Dims in_strides = Strides(in);
  Dims dims(r), stride(r);
  for (size_t i = 0; i < r; ++i) {
    dims[i] = in[static_cast<size_t>(perm[i])];
    stride[i] = in_strides[static_cast<size_t>(perm[i])];
  }
  return Remap(*e.in[0], dims, StridedSource(dims, 0, stride));
}

Out EvalExpand(const Eval& e) {
  if (!e.Has(2) || e.in[1]->dtype() != DataType::kInt64) return std::nullopt;
  const Dims shape = e.in[1]->AsInt64s();
  if (std::any_of(shape.begin(), shape.end(), [](int64_t d) { return d < 0; })) {
    return std::nullopt;
  }
  auto dims = BroadcastDims(e.in[0]->dims(), shape);
  if (!dims || !e.Fits(*dims, e.in[0]->dtype())) return std::nullopt;
  return Remap(*e.in[0], *dims, BroadcastSource(e.in[0]->dims(), *dims));
}

Out EvalConcat(const Eval& e) {
  if (e.in.empty() || !e.Has(e.in.size()) || !e.node.has_attr("axis")) return std::nullopt;
  const Tensor& first = *e.in[0];
  const size_t r = first.dims().size();
  auto axis_or = NormalizeAxis(e.node.attr_int("axis", 0), static_cast<int64_t>(r));
  if (!axis_or) return std::nullopt;
  const size_t axis = static_cast<size_t>(*axis_or);
  Dims dims = first.dims();
  dims[axis] = 0;
  for (const Tensor* t : e.in) {
    if (t->dtype() != first.dtype() || t->dims().size() != r) return std::nullopt;
    for (size_t i = 0; i < r; ++i) {
      if (i != axis && t->dims()[i] != first.dims()[i]) return std::nullopt;
    }
    dims[axis] += t->dims()[axis];
  }
  if (!e.Fits(dims, first.dtype())) return std::nullopt;
  const size_t size = SizeOf(first.dtype());
  const int64_t outer = Product(dims, 0, axis);
  const int64_t inner = Product(dims, axis + 1, r);
  std::vector<uint8_t> bytes(static_cast<size_t>(*Count(dims)) * size);
  size_t pos = 0;
  for (int64_t o = 0; o < outer; ++o) {
    for (const Tensor* t : e.in) {
      const size_t block = static_cast<size_t>(t->dims()[axis] * inner) * size;
      if (block == 0) continue;
      std::memcpy(&bytes[pos], t->raw() + static_cast<size_t>(o) * block, block);
      pos += block;
    }
  }
  return Tensor::Copy(first.dtype(), std::move(dims), bytes.data(), bytes.size());
}

Out EvalSlice(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  const Tensor& data = *e.in[0];
  const Dims& in = data.dims();
  const int64_t r = static_cast<int64_t>(in.size());
  Dims starts, ends, axes, steps;
  if (e.node.opset() >= 10) {
    if (!e.Has(3)) return std::nullopt;
    for (size_t i = 1; i < 5; ++i) {
      if (e.input(i) != nullptr && !IsIntTensor(*e.input(i))) return std::nullopt;
    }
    starts = e.in[1]->AsInt64s();
    ends = e.in[2]->AsInt64s();
    if (e.input(3)) axes = e.input(3)->AsInt64s();
    if (e.input(4)) steps = e.input(4)->AsInt64s();
  } else {
    starts = e.node.attr_ints("starts");
    ends = e.node.attr_ints("ends");
    axes = e.node.attr_ints("axes");
  }
  if (axes.empty() && (e.node.opset() >= 10 ? e.input(3) == nullptr : !e.node.has_attr("axes"))) {
    for (size_t i = 0; i < starts.size(); ++i) axes.push_back(static_cast<int64_t>(i));
  }
  if (steps.empty() && e.input(4) == nullptr) steps.assign(starts.size(), 1);
  if (ends.size() != starts.size() || axes.size() != starts.size() ||
      steps.size() != starts.size() || !NormalizeAxes(&axes, r)) {
    return std::nullopt;
  }
  Dims dims = in, begin(in.size(), 0), step(in.size(), 1);
  for (size_t j = 0; j < axes.size(); ++j) {
    const size_t a = static_cast<size_t>(axes[j]);
    const int64_t dim = in[a];
    const int64_t s = steps[j];
    if (s == 0) return std::nullopt;
    int64_t st = starts[j] < 0 ? starts[j] + dim : starts[j];
    int64_t en = ends[j] < 0 ? ends[j] + dim : ends[j];
    int64_t count = 0;
    if (dim > 0 && s > 0) {
      st = std::clamp<int64_t>(st, 0, dim);
      en = std::clamp<int64_t>(en, 0, dim);
      if (en > st) count = (en - st - 1) / s + 1;
    } else if (dim > 0) {
      st = std::clamp<int64_t>(st, 0, dim - 1);
      en = std::clamp<int64_t>(en, -1, dim - 1);
      const int64_t magnitude = s == INT64_MIN ? INT64_MAX : -s;
      if (st > en) count = (st - en - 1) / magnitude + 1;
    }
    dims[a] = count;
    begin[a] = count > 0 ? st : 0;
    step[a] = s;
  }
  if (!e.Fits(dims, data.dtype())) return std::nullopt;
  const Dims in_strides = Strides(in);
  int64_t base = 0;
  Dims stride(in.size());
  for (size_t a = 0; a < in.size(); ++a) {
    base += begin[a] * in_strides[a];
    // A step only matters where more than one element is taken (and then it is < dim).
    stride[a] = dims[a] > 1 ? step[a] * in_strides[a] : 0;
  }
  return Remap(data, dims, StridedSource(dims, base, stride));
}

Out EvalWhere(const Eval& e) {
  if (!e.Has(3) || e.in[0]->dtype() != DataType::kBool) return std::nullopt;
  const Tensor& c = *e.in[0];
  const Tensor& x = *e.in[1];
  const Tensor& y = *e.in[2];
  if (x.dtype() != y.dtype()) return std::nullopt;
  auto cx = BroadcastDims(c.dims(), x.dims());
  if (!cx) return std::nullopt;
  auto dims = BroadcastDims(*cx, y.dims());
  if (!dims || !e.Fits(*dims, x.dtype())) return std::nullopt;
  const std::vector<int64_t> sc = BroadcastSource(c.dims(), *dims);
  const std::vector<int64_t> sx = BroadcastSource(x.dims(), *dims);
  const std::vector<int64_t> sy = BroadcastSource(y.dims(), *dims);
  const size_t size = SizeOf(x.dtype());
  std::vector<uint8_t> bytes(sc.size() * size);
  for (size_t i = 0; i < sc.size(); ++i) {
    const bool take_x = Load<uint8_t>(c, sc[i]) != 0;
    const uint8_t* src = take_x ? x.raw() + sx[i] * static_cast<int64_t>(size)
                                : y.raw() + sy[i] * static_cast<int64_t>(size);
    std::memcpy(&bytes[i * size], src, size);
  }
  return Tensor::Copy(x.dtype(), *dims, bytes.data(), bytes.size());
}

// ---- conversion -----------------------------------------------------------------------------

bool CastSupported(DataType t) {
  switch (t) {
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kFloat16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kInt8:
    case DataType::kUint8:
    case DataType::kBool:
      return true;
    default:
      return false;
  }
}

template <typename T>
void Store(std::vector<uint8_t>& bytes, size_t i, T v) {
  std::memcpy(&bytes[i * sizeof(T)], &v, sizeof(T));
}

// A float converted to an integer type truncates toward zero; NaN, infinities and values out
// of the target's range are undefined in ONNX, so they are not folded.
std::optional<int64_t> FloatToInt(double d, DataType to) {
  if (!std::isfinite(d)) return std::nullopt;
  const double t = std::trunc(d);
  double lo = -9223372036854775808.0, hi = 9223372036854775807.0;
  if (to == DataType::kInt32) lo = INT32_MIN, hi = INT32_MAX;
  if (to == DataType::kInt8) lo = INT8_MIN, hi = INT8_MAX;
  if (to == DataType::kUint8) lo = 0, hi = UINT8_MAX;
  // 2^63 itself is not an int64; hi rounds up to it for int64, hence < for that case.
  if (t < lo || (to == DataType::kInt64 ? t >= hi : t > hi)) return std::nullopt;
  return static_cast<int64_t>(t);
}

Out EvalCast(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  const Tensor& x = *e.in[0];
  const DataType to = ir::FromOnnx(static_cast<int32_t>(e.node.attr_int("to", 0)));
  if (!CastSupported(x.dtype()) || !CastSupported(to) || !e.Fits(x.dims(), to)) {
    return std::nullopt;
  }
  const bool from_float = ir::IsFloat(x.dtype());
  const std::vector<double> fv = from_float ? x.AsDoubles() : std::vector<double>{};
  const std::vector<int64_t> iv = from_float ? std::vector<int64_t>{} : x.AsInt64s();
  const size_t n = static_cast<size_t>(x.num_elements());
  std::vector<uint8_t> bytes(n * SizeOf(to));
  for (size_t i = 0; i < n; ++i) {
    if (to == DataType::kFloat32 || to == DataType::kFloat64 || to == DataType::kFloat16) {
      const double d = from_float ? fv[i] : static_cast<double>(iv[i]);
      if (to == DataType::kFloat64) {
        Store(bytes, i, d);
      } else if (to == DataType::kFloat32) {
        Store(bytes, i, static_cast<float>(d));
      } else {
        Store(bytes, i, FloatToHalf(static_cast<float>(d)));
      }
      continue;
    }
    if (to == DataType::kBool) {
      Store(bytes, i, static_cast<uint8_t>(from_float ? fv[i] != 0.0 : iv[i] != 0));
      continue;
    }
    int64_t v = 0;
    if (from_float) {
      auto converted = FloatToInt(fv[i], to);
      if (!converted) return std::nullopt;
      v = *converted;
    } else {
      v = iv[i];
    }
    // Integer narrowing wraps (two's complement), as numpy's astype does.
    switch (to) {
      case DataType::kInt64:
        Store(bytes, i, v);
        break;
      case DataType::kInt32:
        Store(bytes, i, static_cast<int32_t>(v));
        break;
      case DataType::kInt8:
        Store(bytes, i, static_cast<int8_t>(v));
        break;
      default:  // kUint8
        Store(bytes, i, static_cast<uint8_t>(v));
        break;
    }
  }
  return Tensor::Copy(to, x.dims(), bytes.data(), bytes.size());
}

// ---- arithmetic -----------------------------------------------------------------------------

enum class ArithOp { kAdd, kSub, kMul, kDiv };

template <ArithOp kOp>
Out EvalArith(const Eval& e) {
  if (!e.Has(2) || e.in[0]->dtype() != e.in[1]->dtype()) return std::nullopt;
  const DataType dtype = e.in[0]->dtype();
  Out out;
  DispatchArith(dtype, [&](auto tag) {
    using T = decltype(tag);
    out = Binary<T, T, T>(e, *e.in[0], *e.in[1], dtype, [](T a, T b, T* r) {
      if constexpr (kOp == ArithOp::kAdd) {
        *r = WrapAdd(a, b);
      } else if constexpr (kOp == ArithOp::kSub) {
        *r = WrapSub(a, b);
      } else if constexpr (kOp == ArithOp::kMul) {
        *r = WrapMul(a, b);
      } else if constexpr (std::is_integral_v<T>) {
        // Integer division truncates toward zero (C++ and ONNX agree); x/0 and MIN/-1 are
        // undefined, so not folded.
        if (b == 0 || (a == std::numeric_limits<T>::min() && b == T{-1})) return false;
        *r = static_cast<T>(a / b);
      } else {
        *r = a / b;
      }
      return true;
    });
  });
  return out;
}

Out EvalNeg(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  const DataType dtype = e.in[0]->dtype();
  Out out;
  DispatchArith(dtype, [&](auto tag) {
    using T = decltype(tag);
    out = Unary<T, T>(e, *e.in[0], dtype, [](T a, T* r) {
      if constexpr (std::is_integral_v<T>) {
        *r = WrapSub(T{0}, a);  // -MIN wraps to MIN
      } else {
        *r = -a;
      }
      return true;
    });
  });
  return out;
}

template <bool kMax>
Out EvalMinMax(const Eval& e) {
  if (e.in.empty() || !e.Has(e.in.size())) return std::nullopt;
  const DataType dtype = e.in[0]->dtype();
  if (!DispatchArith(dtype, [](auto) {})) return std::nullopt;
  for (const Tensor* t : e.in) {
    if (t->dtype() != dtype) return std::nullopt;
  }
  Out acc = *e.in[0];
  if (!e.Fits(acc->dims(), dtype)) return std::nullopt;
  for (size_t i = 1; i < e.in.size() && acc; ++i) {
    Out next;
    DispatchArith(dtype, [&](auto tag) {
      using T = decltype(tag);
      next = Binary<T, T, T>(e, *acc, *e.in[i], dtype, [](T a, T b, T* r) {
        if constexpr (!std::is_integral_v<T>) {
          if (std::isnan(a) || std::isnan(b)) {
            *r = std::numeric_limits<T>::quiet_NaN();
            return true;
          }
        }
        *r = kMax ? std::max(a, b) : std::min(a, b);
        return true;
      });
    });
    acc = std::move(next);
  }
  return acc;
}

enum class CompareOp { kEqual, kLess, kGreater };

template <CompareOp kOp>
Out EvalCompare(const Eval& e) {
  if (!e.Has(2) || e.in[0]->dtype() != e.in[1]->dtype()) return std::nullopt;
  const bool is_bool = e.in[0]->dtype() == DataType::kBool;
  if (is_bool && kOp != CompareOp::kEqual) return std::nullopt;
  Out out;
  DispatchComparable(e.in[0]->dtype(), [&](auto tag) {
    using T = decltype(tag);
    out = Binary<T, T, uint8_t>(e, *e.in[0], *e.in[1], DataType::kBool,
                                [is_bool](T a, T b, uint8_t* r) {
                                  if (kOp == CompareOp::kEqual) {
                                    *r = is_bool ? ((a != 0) == (b != 0)) : (a == b);
                                  } else if (kOp == CompareOp::kLess) {
                                    *r = a < b;
                                  } else {
                                    *r = a > b;
                                  }
                                  return true;
                                });
  });
  return out;
}

Out EvalNot(const Eval& e) {
  if (!e.Has(1) || e.in[0]->dtype() != DataType::kBool) return std::nullopt;
  return Unary<uint8_t, uint8_t>(e, *e.in[0], DataType::kBool, [](uint8_t a, uint8_t* r) {
    *r = a == 0;
    return true;
  });
}

enum class FloatOp { kSqrt, kReciprocal };

template <FloatOp kOp>
Out EvalFloatUnary(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  const DataType dtype = e.in[0]->dtype();
  Out out;
  DispatchFloat(dtype, [&](auto tag) {
    using T = decltype(tag);
    out = Unary<T, T>(e, *e.in[0], dtype, [](T a, T* r) {
      *r = kOp == FloatOp::kSqrt ? std::sqrt(a) : T{1} / a;
      return true;
    });
  });
  return out;
}

Out EvalPow(const Eval& e) {
  if (!e.Has(2)) return std::nullopt;
  const DataType dtype = e.in[0]->dtype();
  Out out;
  DispatchFloat(dtype, [&](auto base_tag) {
    using T = decltype(base_tag);
    DispatchArith(e.in[1]->dtype(), [&](auto exp_tag) {
      using E = decltype(exp_tag);
      out = Binary<T, E, T>(e, *e.in[0], *e.in[1], dtype, [](T a, E b, T* r) {
        *r = static_cast<T>(std::pow(static_cast<double>(a), static_cast<double>(b)));
        return true;
      });
    });
  });
  return out;
}

template <bool kProd>
Out EvalReduce(const Eval& e) {
  if (!e.Has(1)) return std::nullopt;
  const Tensor& x = *e.in[0];
  const DataType dtype = x.dtype();
  if (dtype != DataType::kInt64 && dtype != DataType::kInt32) return std::nullopt;
  Dims axes;
  bool given = false;
  if (!ReadAxes(e, 1, "axes", kProd ? 18 : 13, &axes, &given)) return std::nullopt;
  const Dims& in = x.dims();
  const int64_t r = static_cast<int64_t>(in.size());
  if (!NormalizeAxes(&axes, r)) return std::nullopt;
  if (axes.empty()) {
    if (e.node.attr_int("noop_with_empty_axes", 0) != 0) return EvalIdentity(e);
    for (int64_t i = 0; i < r; ++i) axes.push_back(i);
  }
  const bool keepdims = e.node.attr_int("keepdims", 1) != 0;
  Dims kept = in;  // the result's dims with reduced axes kept as 1
  for (int64_t a : axes) kept[static_cast<size_t>(a)] = 1;
  Dims dims;
  for (size_t i = 0; i < in.size(); ++i) {
    const bool reduced = std::find(axes.begin(), axes.end(), static_cast<int64_t>(i)) != axes.end();
    if (keepdims || !reduced) dims.push_back(kept[i]);
  }
  if (!e.Fits(dims, dtype)) return std::nullopt;
  const Dims kept_strides = Strides(kept);
  Dims stride(in.size());
  for (size_t i = 0; i < in.size(); ++i) stride[i] = kept[i] == 1 ? 0 : kept_strides[i];
  const std::vector<int64_t> dst = StridedSource(in, 0, stride);
  Out out;
  DispatchArith(dtype, [&](auto tag) {
    using T = decltype(tag);
    std::vector<T> acc(static_cast<size_t>(*Count(dims)), kProd ? T{1} : T{0});
    for (size_t k = 0; k < dst.size(); ++k) {
      T& a = acc[static_cast<size_t>(dst[k])];
      const T v = Load<T>(x, static_cast<int64_t>(k));
      a = kProd ? WrapMul(a, v) : WrapAdd(a, v);
    }
    out = Tensor::FromVector(dtype, dims, acc);
  });
  return out;
}

// ---- the table ------------------------------------------------------------------------------

struct OpEntry {
  Out (*fn)(const Eval&);
  bool needs_constant_inputs;  // false: reads only the input's type (Shape, Size)
};

const std::map<std::string, OpEntry>& Table() {
  static const auto* table = new std::map<std::string, OpEntry>{
      {"Add", {EvalArith<ArithOp::kAdd>, true}},
      {"Cast", {EvalCast, true}},
      {"Concat", {EvalConcat, true}},
      {"Constant", {EvalConstant, true}},
      {"ConstantOfShape", {EvalConstantOfShape, true}},
      {"Div", {EvalArith<ArithOp::kDiv>, true}},
      {"Equal", {EvalCompare<CompareOp::kEqual>, true}},
      {"Expand", {EvalExpand, true}},
      {"Gather", {EvalGather, true}},
      {"Greater", {EvalCompare<CompareOp::kGreater>, true}},
      {"Identity", {EvalIdentity, true}},
      {"Less", {EvalCompare<CompareOp::kLess>, true}},
      {"Max", {EvalMinMax<true>, true}},
      {"Min", {EvalMinMax<false>, true}},
      {"Mul", {EvalArith<ArithOp::kMul>, true}},
      {"Neg", {EvalNeg, true}},
      {"Not", {EvalNot, true}},
      {"Pow", {EvalPow, true}},
      {"Range", {EvalRange, true}},
      {"Reciprocal", {EvalFloatUnary<FloatOp::kReciprocal>, true}},
      {"ReduceProd", {EvalReduce<true>, true}},
      {"ReduceSum", {EvalReduce<false>, true}},
      {"Reshape", {EvalReshape, true}},
      {"Shape", {EvalShape, false}},
      {"Size", {EvalSize, false}},
      {"Slice", {EvalSlice, true}},
      {"Sqrt", {EvalFloatUnary<FloatOp::kSqrt>, true}},
      {"Squeeze", {EvalSqueeze, true}},
      {"Sub", {EvalArith<ArithOp::kSub>, true}},
      {"Transpose", {EvalTranspose, true}},
      {"Unsqueeze", {EvalUnsqueeze, true}},
      {"Where", {EvalWhere, true}},
  };
  return *table;
}

}  // namespace

bool CanEvaluate(const std::string& op_type) { return Table().count(op_type) != 0; }

std::optional<std::vector<Tensor>> EvaluateNode(const Node& node, size_t max_bytes) {
  if (!node.domain().empty() || node.outputs().size() != 1) return std::nullopt;
  auto it = Table().find(node.op_type());
  if (it == Table().end()) return std::nullopt;
  Eval e{node, {}, max_bytes};
  if (it->second.needs_constant_inputs) {
    for (const ir::Value* v : node.inputs()) {
      if (v == nullptr) {
        e.in.push_back(nullptr);
        continue;
      }
      if (v->constant() == nullptr || !Valid(*v->constant())) return std::nullopt;
      e.in.push_back(v->constant());
    }
  }
  Out out = it->second.fn(e);
  if (!out || out->bytes() > max_bytes) return std::nullopt;
  return std::vector<Tensor>{std::move(*out)};
}

}  // namespace kiln::compiler
