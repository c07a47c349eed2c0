// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by kernels: element types (float16/bfloat16 stored as uint16 and computed in
// float), type dispatch, strides, axes and numpy broadcasting.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>

#include "base/fp16.h"
#include "kernels/kernel.h"

namespace kiln::kernels {

// Storage types of float16 and bfloat16 (distinct types so dispatch can tell them apart).
struct Half {
  uint16_t bits;
};
struct BFloat16 {
  uint16_t bits;
};

inline float BFloat16ToFloat(uint16_t b) {
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}
inline uint16_t FloatToBFloat16(float f) {  // round to nearest even, NaN kept quiet
  uint32_t bits;
  std::memcpy(&bits, &f, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((bits >> 16) | 0x40);
  bits += 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<uint16_t>(bits >> 16);
}

// The type arithmetic happens in: float for the 16-bit floats, the type itself otherwise.
template <typename T>
struct Compute {
  using type = T;
};
template <>
struct Compute<Half> {
  using type = float;
};
template <>
struct Compute<BFloat16> {
  using type = float;
};
template <typename T>
using ComputeT = typename Compute<T>::type;

template <typename T>
inline ComputeT<T> Load(const T* p, int64_t i) {
  if constexpr (std::is_same_v<T, Half>) {
    return HalfToFloat(p[i].bits);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    return BFloat16ToFloat(p[i].bits);
  } else {
    return p[i];
  }
}
template <typename T>
inline void Store(T* p, int64_t i, ComputeT<T> v) {
  if constexpr (std::is_same_v<T, Half>) {
    p[i].bits = FloatToHalf(v);
  } else if constexpr (std::is_same_v<T, BFloat16>) {
    p[i].bits = FloatToBFloat16(v);
  } else {
    p[i] = v;
  }
}

template <typename T>
constexpr bool kIsFloat =
    std::is_floating_point_v<T> || std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>;

template <typename T>
struct TypeTag {
  using type = T;
};

// `x` rounded to floating-point type `t` (float32, float16, bfloat16; float64 unchanged) and
// widened back: what a kernel computing in double stores into a `t` output.
inline double RoundTo(DataType t, double x) {
  switch (t) {
    case DataType::kFloat32:
      return static_cast<float>(x);
    case DataType::kFloat16:
      return HalfToFloat(FloatToHalf(static_cast<float>(x)));
    case DataType::kBFloat16:
      return BFloat16ToFloat(FloatToBFloat16(static_cast<float>(x)));
    default:
      return x;
  }
}

// Stores `v` as element i of `p`: floats rounded; integers truncated toward zero and saturated
// to their type, NaN as 0; bool as v != 0.
template <typename T>
void StoreSaturating(T* p, int64_t i, double v) {
  if constexpr (kIsFloat<T>) {
    Store(p, i, static_cast<ComputeT<T>>(v));
  } else if constexpr (std::is_same_v<T, bool>) {
    p[i] = v != 0.0;
  } else {
    constexpr double lo = static_cast<double>(std::numeric_limits<T>::lowest());
    constexpr double hi = static_cast<double>(std::numeric_limits<T>::max());
    if (std::isnan(v)) {
      p[i] = T{0};
    } else if (v <= lo) {
      p[i] = std::numeric_limits<T>::lowest();
    } else if (v >= hi) {
      p[i] = std::numeric_limits<T>::max();
    } else {
      p[i] = static_cast<T>(v);
    }
  }
}

// Floats only (float32/64/16, bfloat16).
template <typename Fn>
bool DispatchFloat(DataType dtype, Fn&& fn) {
  switch (dtype) {
    case DataType::kFloat32:
      fn(TypeTag<float>{});
      return true;
    case DataType::kFloat64:
      fn(TypeTag<double>{});
      return true;
    case DataType::kFloat16:
      fn(TypeTag<Half>{});
      return true;
    case DataType::kBFloat16:
      fn(TypeTag<BFloat16>{});
      return true;
    default:
      return false;
  }
}
// Calls fn(TypeTag<T>{}) for the C++ type of `dtype`; returns false for kString/kUndefined.
template <typename Fn>
bool DispatchAny(DataType dtype, Fn&& fn) {
  if (DispatchFloat(dtype, fn)) return true;
  switch (dtype) {
    case DataType::kInt8:
      fn(TypeTag<int8_t>{});
      return true;
    case DataType::kUint8:
      fn(TypeTag<uint8_t>{});
      return true;
    case DataType::kInt16:
      fn(TypeTag<int16_t>{});
      return true;
    case DataType::kUint16:
      fn(TypeTag<uint16_t>{});
      return true;
    case DataType::kInt32:
      fn(TypeTag<int32_t>{});
      return true;
    case DataType::kUint32:
      fn(TypeTag<uint32_t>{});
      return true;
    case DataType::kInt64:
      fn(TypeTag<int64_t>{});
      return true;
    case DataType::kUint64:
      fn(TypeTag<uint64_t>{});
      return true;
    case DataType::kBool:
      fn(TypeTag<bool>{});
      return true;
    default:
      return false;
  }
}
// Numbers: floats and integers, not bool.
template <typename Fn>
bool DispatchNumeric(DataType dtype, Fn&& fn) {
  if (dtype == DataType::kBool) return false;
  return DispatchAny(dtype, std::forward<Fn>(fn));
}

// Row-major strides of `dims`.
Dims Strides(const Dims& dims);
// `axis` in [-rank, rank) made non-negative; nullopt when out of range.
std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank);
// Product of dims[first, last).
int64_t Product(const Dims& dims, size_t first, size_t last);
// Numpy broadcast of several shapes; nullopt when incompatible.
std::optional<Dims> BroadcastDims(const std::vector<const Dims*>& shapes);
// For each element of `out` (row-major), the flat index of the element of an input of dims
// `in` (broadcast to `out`) it reads. Size = NumElements(out).
std::vector<int64_t> BroadcastIndex(const Dims& in, const Dims& out);
// The dims of a channels-last rank-4 tensor (kiln_nhwc) in the order of its bytes: N, C, H, W ->
// N, H, W, C, or with channel blocks of `block` (kiln_cblock) N, C/block, H, W, block (N, 1, H,
// W, 1 for one channel: a layout-neutral operand's bytes); other ranks as they are. Reuses
// `out`'s capacity.
void StoredDims(const Dims& dims, int64_t block, Dims* out);
// Dims as "[1,3,224,224]" for messages.
std::string DimsString(const Dims& dims);

// Output i as the executor bound it (KernelContext::output). kInternalError naming the node
// when it is not bound: a caller that ran the kernel without applying its op's definition.
// For an optional output the graph may leave out, read ctx.output(i) and skip it when null.
Result<TensorView*> BoundOutput(const NodeDef& def, KernelContext& ctx, size_t i);
// Reads an integer tensor (int32/int64/..., also the sub-byte ones) as int64s.
std::vector<int64_t> ReadInts(const TensorView& t);
// Reads a float/integer tensor (of any type but string, the low-precision ones too) as doubles.
std::vector<double> ReadDoubles(const TensorView& t);

}  // namespace kiln::kernels
