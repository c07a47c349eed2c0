// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Helpers shared by the reference kernel families (kernels/reference/*.cc): registering a
// stateless kernel, reading inputs, binding outputs and moving elements. The general helpers
// (types, dispatch, axes, broadcasting) are in kernels/util.h.
#pragma once

#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "kernels/kernel.h"
#include "kernels/registry.h"
#include "kernels/util.h"

namespace kiln::kernels {

// A Prepare check run before a stateless kernel is made (see RegisterStateless).
using CheckFn = Status (*)(const NodeDef& def);

// Registers a stateless ONNX-domain reference kernel; Prepare rejects string tensors with
// kFeatureUnsupported, then runs `check` (when given).
inline void RegisterStateless(KernelRegistry& r, const char* op, RunFn run,
                              CheckFn check = nullptr) {
  r.Register(kReferenceBackend, "", op,
             [run, check](const NodeDef& def) -> Result<std::unique_ptr<Kernel>> {
               for (const auto* types : {&def.input_types, &def.output_types}) {
                 for (DataType t : *types) {
                   if (t == DataType::kString) {
                     return def.Fail(code::kFeatureUnsupported, "string tensors are not supported");
                   }
                 }
               }
               if (check != nullptr) {
                 Status s = check(def);
                 if (!s.ok()) return s;
               }
               return MakeFunctionKernel(def, run);
             });
}

// ---------------------------------------------------------------------------------------------
// Inputs and outputs.

// Input i, failing with kInvalidParam when the op requires it and it is missing.
inline Result<const TensorView*> RequiredInput(const NodeDef& def, KernelContext& ctx, size_t i) {
  const TensorView* t = ctx.input(i);
  if (t == nullptr) return def.Fail(code::kInvalidParam, "required input ", i, " is missing");
  return t;
}

// An optional input that is absent or has no elements (ONNX's two ways of omitting one).
inline bool Omitted(const TensorView* t) { return t == nullptr || t->num_elements() == 0; }

// The one integer of a scalar or one-element tensor; kInvalidParam naming `what` otherwise.
inline Result<int64_t> ScalarInt(const NodeDef& def, const TensorView& t, const char* what) {
  if (t.num_elements() != 1) {
    return def.Fail(code::kInvalidParam, "'", what, "' must hold one value, got shape ",
                    DimsString(t.dims));
  }
  return ReadInts(t)[0];
}

// Stores `v` (one value per element) into the floating-point tensor `out`, rounding to its
// element type; kFeatureUnsupported for a non-float `out`.
inline Status WriteDoubles(const NodeDef& def, const TensorView& out,
                           const std::vector<double>& v) {
  bool ok = DispatchFloat(out.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* p = out.as<T>();
    for (size_t i = 0; i < v.size(); ++i) {
      Store(p, static_cast<int64_t>(i), static_cast<ComputeT<T>>(v[i]));
    }
  });
  if (ok) return Status::Ok();
  return def.Fail(code::kFeatureUnsupported, "output type ", ir::Name(out.dtype),
                  " is not supported; a floating-point type is required");
}

// ---------------------------------------------------------------------------------------------
// Elements and axes.

inline size_t ElemSize(const TensorView& t) { return ir::SizeOf(t.dtype); }

inline uint8_t* Bytes(const TensorView& t) { return static_cast<uint8_t*>(t.data); }

// dst[di] = src[si], for elements of `es` bytes.
inline void CopyElem(const TensorView& dst, int64_t di, const TensorView& src, int64_t si,
                     size_t es) {
  std::memcpy(Bytes(dst) + static_cast<size_t>(di) * es, Bytes(src) + static_cast<size_t>(si) * es,
              es);
}

// Stores `v` as element i of `t` (any element type), converted as static_cast does.
inline void StoreDouble(const TensorView& t, int64_t i, double v) {
  DispatchAny(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Store(t.as<T>(), i, static_cast<ComputeT<T>>(v));
  });
}

// Advances row-major `idx` over `dims`; false after the last element.
inline bool NextIndex(Dims& idx, const Dims& dims) {
  for (size_t d = idx.size(); d-- > 0;) {
    if (++idx[d] < dims[d]) return true;
    idx[d] = 0;
  }
  return false;
}

// `axes` made non-negative for `rank`; kInvalidParam for an axis out of range or repeated.
inline Result<std::vector<int64_t>> CheckedAxes(const NodeDef& def,
                                                const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(rank));
  for (int64_t a : axes) {
    auto n = NormalizeAxis(a, rank);
    if (!n) return def.Fail(code::kInvalidParam, "axis ", a, " is out of range for rank ", rank);
    if (seen[static_cast<size_t>(*n)]) {
      return def.Fail(code::kInvalidParam, "axes ", DimsString(axes), " repeat axis ", a);
    }
    seen[static_cast<size_t>(*n)] = true;
    out.push_back(*n);
  }
  return out;
}

// `axis` made non-negative for `rank`; kInvalidParam naming the input `dims` when out of range.
inline Result<int64_t> CheckedAxis(const NodeDef& def, int64_t axis, int64_t rank,
                                   const Dims& dims) {
  auto n = NormalizeAxis(axis, rank);
  if (!n) {
    return def.Fail(code::kInvalidParam, "axis ", axis, " is out of range for input ",
                    DimsString(dims));
  }
  return *n;
}

// The accumulator of a product of T: double for floats, modular uint64 for integers.
template <typename T>
using AccT = std::conditional_t<kIsFloat<T>, double, uint64_t>;

// Element i of `p` as an AccT<T> (a signed integer sign-extended, so products wrap as in T).
template <typename T>
AccT<T> LoadAcc(const T* p, int64_t i) {
  if constexpr (kIsFloat<T>) {
    return static_cast<double>(Load(p, i));
  } else {
    return static_cast<uint64_t>(p[i]);
  }
}

}  // namespace kiln::kernels
