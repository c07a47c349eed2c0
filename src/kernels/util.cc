// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "kernels/util.h"

#include <algorithm>
#include <cstring>

#include "kernels/low_precision_elements.h"

namespace kiln::kernels {

Dims Strides(const Dims& dims) {
  Dims s(dims.size(), 1);
  for (size_t i = dims.size(); i-- > 1;) s[i - 1] = s[i] * dims[i];
  return s;
}

std::optional<int64_t> NormalizeAxis(int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= rank) return std::nullopt;
  return axis < 0 ? axis + rank : axis;
}

int64_t Product(const Dims& dims, size_t first, size_t last) {
  int64_t n = 1;
  for (size_t i = first; i < last && i < dims.size(); ++i) n *= dims[i];
  return n;
}

std::optional<Dims> BroadcastDims(const std::vector<const Dims*>& shapes) {
  size_t rank = 0;
  for (const Dims* s : shapes) rank = std::max(rank, s->size());
  Dims out(rank, 1);
  for (const Dims* s : shapes) {
    for (size_t i = 0; i < s->size(); ++i) {
      int64_t d = (*s)[s->size() - 1 - i];
      int64_t& o = out[rank - 1 - i];
      if (d == o || d == 1) continue;
      if (o != 1) return std::nullopt;
      o = d;
    }
  }
  return out;
}

std::vector<int64_t> BroadcastIndex(const Dims& in, const Dims& out) {
  const int64_t n = NumElements(out);
  std::vector<int64_t> index(static_cast<size_t>(n));
  const size_t rank = out.size();
  // Stride of each output axis in the input (0 where the input is broadcast).
  Dims in_stride(rank, 0);
  const Dims s = Strides(in);
  for (size_t i = 0; i < in.size(); ++i) {
    size_t axis = rank - in.size() + i;
    in_stride[axis] = in[i] == 1 ? 0 : s[i];
  }
  Dims idx(rank, 0);
  int64_t pos = 0;
  for (int64_t k = 0; k < n; ++k) {
    index[static_cast<size_t>(k)] = pos;
    for (size_t d = rank; d-- > 0;) {
      pos += in_stride[d];
      if (++idx[d] < out[d]) break;
      pos -= in_stride[d] * out[d];
      idx[d] = 0;
    }
  }
  return index;
}

Result<TensorView*> BoundOutput(const NodeDef& def, KernelContext& ctx, size_t i) {
  if (TensorView* out = ctx.output(i)) return out;
  return def.Fail(code::kInternalError, "output ", i, " is not bound");
}

void StoredDims(const Dims& dims, int64_t block, Dims* out) {
  if (dims.size() == 4 && block > 0) {
    const int64_t b = dims[1] == 1 ? 1 : block;
    out->assign({dims[0], dims[1] / b, dims[2], dims[3], b});
  } else if (dims.size() == 4) {
    out->assign({dims[0], dims[2], dims[3], dims[1]});
  } else {
    out->assign(dims.begin(), dims.end());
  }
}

std::string DimsString(const Dims& dims) {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? "," : "") + std::to_string(dims[i]);
  return s + "]";
}

std::vector<int64_t> ReadInts(const TensorView& t) {
  std::vector<int64_t> v(static_cast<size_t>(t.num_elements()));
  if (ir::IsLowPrecision(t.dtype)) {
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = static_cast<int64_t>(LoadLowPrecision(t.dtype, t.data, static_cast<int64_t>(i)));
    }
    return v;
  }
  DispatchAny(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (!kIsFloat<T>) {
      for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<int64_t>(t.as<const T>()[i]);
    } else {
      for (size_t i = 0; i < v.size(); ++i) {
        v[i] = static_cast<int64_t>(Load(t.as<const T>(), static_cast<int64_t>(i)));
      }
    }
  });
  return v;
}

std::vector<double> ReadDoubles(const TensorView& t) {
  std::vector<double> v(static_cast<size_t>(t.num_elements()));
  if (ir::IsLowPrecision(t.dtype)) {
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = LoadLowPrecision(t.dtype, t.data, static_cast<int64_t>(i));
    }
    return v;
  }
  DispatchAny(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    for (size_t i = 0; i < v.size(); ++i) {
      v[i] = static_cast<double>(Load(t.as<const T>(), static_cast<int64_t>(i)));
    }
  });
  return v;
}

}  // namespace kiln::kernels
