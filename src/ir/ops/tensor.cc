// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Tensor ops: reshaping (Reshape, Transpose, Squeeze, Expand, Tile, DepthToSpace ...), joining
// and slicing (Concat, Split, Slice, Compress), indexing (Gather*, Scatter*, TopK, ArgMax ...),
// generators (Shape, Size, Constant, ConstantOfShape, Range, EyeLike) and resampling (Pad,
// CenterCropPad, Resize, Upsample).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "ir/ops/infer_util.h"

namespace kiln::ir {
namespace {

// Longest shape/axes list whose length is trusted from a declared dim alone (ranks above this
// are not real tensors; the cap keeps hostile dims from sizing allocations).
constexpr int64_t kMaxListLength = 64;

constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
constexpr int64_t kInt64Min = std::numeric_limits<int64_t>::min();

// ---------------------------------------------------------------------------------------------
// Shared helpers.

std::string Join(const std::vector<std::string>& v) {
  std::string s;
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += v[i];
  }
  return s;
}

int64_t Rank(const Shape& s) { return static_cast<int64_t>(s.rank()); }

Shape UnknownDims(size_t rank) { return Shape(std::vector<Dim>(rank)); }

std::vector<int64_t> Iota(int64_t n) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[static_cast<size_t>(i)] = i;
  return v;
}

// Output 0 gets input 0's dtype and `shape`.
Status SetLikeInput(InferenceContext& ctx, Shape shape) {
  ctx.set_output(0, ctx.input_dtype(0), std::move(shape));
  return Status::Ok();
}

// An integer list that an op takes as an attribute in older opsets and as an input in newer
// ones. `length` is known when the values are, or when a computed input has a static length.
struct IntList {
  bool present = false;
  std::optional<std::vector<int64_t>> values;
  std::optional<int64_t> length;
};

IntList FromAttr(const InferenceContext& node, const char* name) {
  IntList l;
  if (!node.has_attr(name)) return l;
  l.present = true;
  l.values = node.attr_ints(name);
  l.length = static_cast<int64_t>(l.values->size());
  return l;
}

IntList FromInput(const InferenceContext& ctx, size_t i) {
  IntList l;
  if (!ctx.has_input(i)) return l;
  l.present = true;
  l.values = ctx.input_ints(i);
  const Shape& s = ctx.input_shape(i);
  if (l.values) {
    l.length = static_cast<int64_t>(l.values->size());
  } else if (s.rank_known() && s.rank() == 0) {
    l.length = 1;
  } else if (s.rank_known() && s.rank() == 1 && s[0].known() && s[0].value <= kMaxListLength) {
    l.length = s[0].value;  // (a longer list would describe an impossible rank: left unknown)
  }
  return l;
}

// The attribute below opset `input_since`, input `input` from it on.
IntList Versioned(const InferenceContext& ctx, const char* attr, int input_since, size_t input) {
  return ctx.opset() >= input_since ? FromInput(ctx, input) : FromAttr(ctx, attr);
}

Status CheckIntInput(const InferenceContext& ctx, size_t i, const char* what) {
  if (ctx.has_input(i) && !IsInteger(ctx.input_dtype(i))) {
    return ctx.Fail("'", what, "' is ", Name(ctx.input_dtype(i)),
                    "; an integer tensor is required");
  }
  return Status::Ok();
}

Status CheckIndices(const InferenceContext& ctx, size_t i) {
  DataType t = ctx.input_dtype(i);
  if (t != DataType::kInt32 && t != DataType::kInt64) {
    return ctx.Fail("indices are ", Name(t), "; int32 or int64 is required");
  }
  return Status::Ok();
}

Status CheckScalar(const InferenceContext& ctx, size_t i, const char* what) {
  if (ctx.has_input(i) && ctx.input_shape(i).rank_known() && ctx.input_shape(i).rank() != 0) {
    return ctx.Fail("'", what, "' must be a scalar, got shape ", ctx.input_shape(i).ToString());
  }
  return Status::Ok();
}

// Fails unless string attribute `attr` is one of `allowed`.
Status CheckOneOf(const InferenceContext& ctx, const char* attr,
                  const std::vector<std::string>& allowed) {
  std::string v = ctx.attr_string(attr);
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return Status::Ok();
  return ctx.Fail("attribute '", attr, "' is \"", v, "\"; opset ", ctx.opset(), " allows ",
                  Join(allowed));
}

Result<int64_t> Axis(const InferenceContext& ctx, int64_t axis, int64_t rank,
                     const char* what = "axis") {
  auto a = NormalizeAxis(axis, rank);
  if (!a) return ctx.Fail(what, " ", axis, " is out of range for rank ", rank);
  return *a;
}

Result<int64_t> AxisAttr(const InferenceContext& ctx, int64_t rank) {
  return Axis(ctx, ctx.attr_int("axis"), rank);
}

// Normalised, duplicate-free axes.
Result<std::vector<int64_t>> NormalizeAxes(const InferenceContext& ctx,
                                           const std::vector<int64_t>& axes, int64_t rank) {
  std::vector<int64_t> out;
  std::vector<bool> seen(static_cast<size_t>(std::max<int64_t>(rank, 0)));
  for (int64_t a : axes) {
    KILN_ASSIGN_OR_RETURN(int64_t n, Axis(ctx, a, rank));
    if (seen[static_cast<size_t>(n)]) return ctx.Fail("axes ", IntsStr(axes), " repeat axis ", a);
    seen[static_cast<size_t>(n)] = true;
    out.push_back(n);
  }
  return out;
}

// d * f for f >= 0; fails when the product overflows (no tensor has such a dim).
Result<Dim> MulDim(const InferenceContext& ctx, const Dim& d, int64_t f) {
  if (f == 1 || !d.known()) return f == 1 ? d : Dim::Unknown();
  int64_t v = 0;
  if (__builtin_mul_overflow(d.value, f, &v))
    return ctx.Fail("a dim of ", d.value, " times ", f, " overflows");
  return Dim::Known(v);
}

Result<Dim> DivDim(const InferenceContext& ctx, const Dim& d, int64_t f, const char* what) {
  if (f == 1 || !d.known()) return f == 1 ? d : Dim::Unknown();
  if (d.value % f != 0) return ctx.Fail(what, " ", d.value, " is not divisible by ", f);
  return Dim::Known(d.value / f);
}

// Merges `b` into `a` for dims that must agree; false on a known conflict. Known beats a
// symbol, a symbol beats unknown.
bool MergeDim(Dim& a, const Dim& b) {
  if (a.known() && b.known()) return a.value == b.value;
  if (!a.known() && (b.known() || a.symbol.empty())) a = b;
  return true;
}

// ---------------------------------------------------------------------------------------------
// Reshape.

// A product of dims as a known factor times named symbols; `opaque` when an unnamed unknown dim
// (or overflow) makes it unknowable.
struct DimProduct {
  int64_t known = 1;
  std::vector<std::string> symbols;
  bool opaque = false;
};

DimProduct Product(const std::vector<Dim>& dims) {
  DimProduct p;
  for (const Dim& d : dims) {
    if (!d.known()) {
      if (d.symbol.empty()) p.opaque = true;
      p.symbols.push_back(d.symbol);
    } else if (d.value != 0 && p.known > kInt64Max / d.value) {
      p.opaque = true;
    } else {
      p.known *= d.value;
    }
  }
  return p;
}

// The dim Reshape's -1 stands for: the input's elements over the other target dims. Symbols
// cancel, so [N,3,4] -> [-1,12] gives N.
Result<Dim> InferredDim(const InferenceContext& ctx, const Shape& in,
                        const std::vector<Dim>& others, const std::vector<int64_t>& target) {
  if (!in.rank_known()) return Dim::Unknown();
  DimProduct num = Product(in.dims()), den = Product(others);
  if (den.known == 0) {  // x * 0 = n has no single answer (numpy refuses it too)
    return ctx.Fail("cannot reshape ", in.ToString(), " to ", IntsStr(target),
                    ": the -1 is ambiguous beside a dim of 0");
  }
  if (num.opaque || den.opaque) return Dim::Unknown();
  for (const std::string& s : den.symbols) {
    auto it = std::find(num.symbols.begin(), num.symbols.end(), s);
    if (it == num.symbols.end()) return Dim::Unknown();
    num.symbols.erase(it);
  }
  if (num.known % den.known != 0) {
    if (!num.symbols.empty()) return Dim::Unknown();
    return ctx.Fail("cannot reshape ", in.ToString(), " (", num.known, " elements) to ",
                    IntsStr(target), ": ", num.known, " is not divisible by ", den.known);
  }
  int64_t q = num.known / den.known;
  if (num.symbols.empty()) return Dim::Known(q);
  if (num.symbols.size() == 1 && q == 1) return Dim::Symbol(num.symbols[0]);
  return Dim::Unknown();
}

// The input dim a 0 in the target copies.
Result<Dim> CopiedDim(const InferenceContext& ctx, const Shape& in, size_t i,
                      const std::vector<int64_t>& target) {
  if (!in.rank_known()) return Dim::Unknown();
  if (i >= in.rank()) {
    return ctx.Fail("shape ", IntsStr(target), " has 0 at index ", i, ", which copies a dim the ",
                    "input ", in.ToString(), " does not have (set allowzero=1 for a real 0)");
  }
  return in[i];
}

Result<Shape> ReshapeTarget(const InferenceContext& ctx, const Shape& in,
                            const std::vector<int64_t>& target, bool allow_zero) {
  std::vector<Dim> dims;
  std::optional<size_t> infer_at;
  bool has_zero = false;
  for (size_t i = 0; i < target.size(); ++i) {
    int64_t v = target[i];
    if (v < -1) return ctx.Fail("shape ", IntsStr(target), " has ", v, " at index ", i);
    if (v == -1 && infer_at) return ctx.Fail("shape ", IntsStr(target), " has more than one -1");
    if (v == -1) infer_at = i;
    has_zero |= v == 0;
    Dim d = v == -1 ? Dim::Unknown() : Dim::Known(v);
    if (v == 0 && !allow_zero) {
      KILN_ASSIGN_OR_RETURN(d, CopiedDim(ctx, in, i, target));
    }
    dims.push_back(d);
  }
  if (allow_zero && has_zero && infer_at) {
    return ctx.Fail("shape ", IntsStr(target), " has both 0 and -1, which allowzero=1 forbids");
  }
  if (infer_at) {
    std::vector<Dim> others = dims;
    others.erase(others.begin() + static_cast<std::ptrdiff_t>(*infer_at));
    KILN_ASSIGN_OR_RETURN(dims[*infer_at], InferredDim(ctx, in, others, target));
  }
  Shape out(std::move(dims));
  auto n_in = in.NumElements(), n_out = out.NumElements();
  if (n_in && out.IsStatic() && (!n_out || *n_in != *n_out)) {  // !n_out: the count overflows
    return ctx.Fail("cannot reshape ", in.ToString(), " (", *n_in, " elements) to ",
                    IntsStr(target));
  }
  return out;
}

Status Reshape(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "shape"), "");
  IntList shape = FromInput(ctx, 1);
  if (!shape.values) {
    return SetLikeInput(ctx,
                        shape.length ? UnknownDims(static_cast<size_t>(*shape.length)) : Shape());
  }
  bool allow_zero = ctx.opset() >= 14 && ctx.attr_int("allowzero") == 1;
  KILN_ASSIGN_OR_RETURN(Shape out,
                        ReshapeTarget(ctx, ctx.input_shape(0), *shape.values, allow_zero));
  return SetLikeInput(ctx, std::move(out));
}

// ---------------------------------------------------------------------------------------------
// Other reshaping ops.

Status Transpose(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  std::vector<int64_t> perm = ctx.attr_ints("perm");
  if (!ctx.has_attr("perm")) {
    if (!in.rank_known()) return SetLikeInput(ctx, Shape());
    for (int64_t i = Rank(in) - 1; i >= 0; --i) perm.push_back(i);
  }
  int64_t n = static_cast<int64_t>(perm.size());
  if (in.rank_known() && n != Rank(in)) {
    return ctx.Fail("perm ", IntsStr(perm), " has ", n, " entries but the input ", in.ToString(),
                    " has rank ", in.rank());
  }
  std::vector<bool> seen(perm.size());
  for (int64_t p : perm) {
    if (p < 0 || p >= n || seen[static_cast<size_t>(p)]) {
      return ctx.Fail("perm ", IntsStr(perm), " is not a permutation of 0..", n - 1);
    }
    seen[static_cast<size_t>(p)] = true;
  }
  if (!in.rank_known()) return SetLikeInput(ctx, UnknownDims(perm.size()));
  std::vector<Dim> dims;
  for (int64_t p : perm) dims.push_back(in[static_cast<size_t>(p)]);
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

Status SqueezeAll(InferenceContext& ctx, const Shape& in) {
  if (!in.IsStatic()) return SetLikeInput(ctx, Shape());  // which dims are 1 is unknown
  std::vector<Dim> dims;
  for (const Dim& d : in.dims()) {
    if (d.value != 1) dims.push_back(d);
  }
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

Status Squeeze(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "axes"), "");
  const Shape& in = ctx.input_shape(0);
  IntList axes = Versioned(ctx, "axes", 13, 1);
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  if (!axes.present) return SqueezeAll(ctx, in);
  if (!axes.values) {
    bool rank_known = axes.length && *axes.length <= Rank(in);
    return SetLikeInput(ctx, rank_known ? UnknownDims(in.rank() - *axes.length) : Shape());
  }
  KILN_ASSIGN_OR_RETURN(auto norm, NormalizeAxes(ctx, *axes.values, Rank(in)));
  std::vector<bool> drop(in.rank());
  for (int64_t a : norm) {
    const Dim& d = in[static_cast<size_t>(a)];
    if (d.known() && d.value != 1) {
      return ctx.Fail("cannot squeeze axis ", a, " of ", in.ToString(), ": its size is ", d.value);
    }
    drop[static_cast<size_t>(a)] = true;
  }
  std::vector<Dim> dims;
  for (size_t i = 0; i < in.rank(); ++i) {
    if (!drop[i]) dims.push_back(in[i]);
  }
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

Status Unsqueeze(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "axes"), "");
  const Shape& in = ctx.input_shape(0);
  IntList axes = Versioned(ctx, "axes", 13, 1);
  if (!axes.present) return ctx.Fail("'axes' is required");
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  if (!axes.values) {
    return SetLikeInput(ctx, axes.length ? UnknownDims(in.rank() + *axes.length) : Shape());
  }
  int64_t out_rank = Rank(in) + static_cast<int64_t>(axes.values->size());
  KILN_ASSIGN_OR_RETURN(auto norm, NormalizeAxes(ctx, *axes.values, out_rank));
  std::vector<bool> added(static_cast<size_t>(out_rank));
  for (int64_t a : norm) added[static_cast<size_t>(a)] = true;
  std::vector<Dim> dims;
  size_t next = 0;
  for (bool a : added) dims.push_back(a ? Dim::Known(1) : in[next++]);
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

Status Expand(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "shape"), "");
  const Shape& in = ctx.input_shape(0);
  IntList shape = FromInput(ctx, 1);
  if (!shape.values) {
    if (!in.rank_known() || !shape.length) return SetLikeInput(ctx, Shape());
    return SetLikeInput(ctx, UnknownDims(std::max(in.rank(), static_cast<size_t>(*shape.length))));
  }
  for (int64_t v : *shape.values) {
    if (v < 0) return ctx.Fail("shape ", IntsStr(*shape.values), " has a negative dim");
  }
  auto out = Broadcast(in, Shape::Of(*shape.values));
  if (!out) {
    return ctx.Fail("input ", in.ToString(), " cannot be expanded to ", IntsStr(*shape.values));
  }
  return SetLikeInput(ctx, std::move(*out));
}

Status Tile(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "repeats"), "");
  const Shape& in = ctx.input_shape(0);
  IntList reps = FromInput(ctx, 1);
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  if (reps.length && *reps.length != Rank(in)) {
    return ctx.Fail("repeats has ", *reps.length, " entries but the input ", in.ToString(),
                    " has rank ", in.rank());
  }
  if (!reps.values) return SetLikeInput(ctx, UnknownDims(in.rank()));
  std::vector<Dim> dims = in.dims();
  for (size_t i = 0; i < dims.size(); ++i) {
    int64_t r = (*reps.values)[i];
    if (r < 0) return ctx.Fail("repeats ", IntsStr(*reps.values), " has a negative entry");
    if (r == 0) {
      dims[i] = Dim::Known(0);
    } else {
      KILN_ASSIGN_OR_RETURN(dims[i], MulDim(ctx, dims[i], r));
    }
  }
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

Result<int64_t> BlockSize(const InferenceContext& ctx) {
  int64_t b = ctx.attr_int("blocksize");
  // Bounded so that b * b and the output dims cannot overflow.
  if (b < 1 || b > (int64_t{1} << 31)) return ctx.Fail("blocksize must be in [1, 2^31], got ", b);
  return b;
}

Status CheckRank4(const InferenceContext& ctx, const Shape& in) {
  if (in.rank() != 4) return ctx.Fail("input must be 4-D [N,C,H,W], got ", in.ToString());
  return Status::Ok();
}

Status DepthToSpace(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(int64_t b, BlockSize(ctx));
  if (ctx.opset() >= 11) KILN_RETURN_IF_ERROR((CheckOneOf(ctx, "mode", {"DCR", "CRD"})), "");
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) return SetLikeInput(ctx, UnknownDims(4));
  KILN_RETURN_IF_ERROR(CheckRank4(ctx, in), "");
  KILN_ASSIGN_OR_RETURN(Dim c, DivDim(ctx, in[1], b * b, "channels"));
  KILN_ASSIGN_OR_RETURN(Dim h, MulDim(ctx, in[2], b));
  KILN_ASSIGN_OR_RETURN(Dim w, MulDim(ctx, in[3], b));
  return SetLikeInput(ctx, Shape({in[0], c, h, w}));
}

Status SpaceToDepth(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(int64_t b, BlockSize(ctx));
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) return SetLikeInput(ctx, UnknownDims(4));
  KILN_RETURN_IF_ERROR(CheckRank4(ctx, in), "");
  KILN_ASSIGN_OR_RETURN(Dim h, DivDim(ctx, in[2], b, "height"));
  KILN_ASSIGN_OR_RETURN(Dim w, DivDim(ctx, in[3], b, "width"));
  KILN_ASSIGN_OR_RETURN(Dim c, MulDim(ctx, in[1], b * b));
  return SetLikeInput(ctx, Shape({in[0], c, h, w}));
}

// ---------------------------------------------------------------------------------------------
// Concat and Split.

// The concatenated size: known when every part is; the one dynamic part when the rest are 0.
Dim SumDims(const std::vector<Dim>& parts) {
  int64_t known = 0;
  const Dim* dynamic = nullptr;
  int n_dynamic = 0;
  for (const Dim& d : parts) {
    if (d.known()) {
      known += d.value;
    } else {
      dynamic = &d;
      ++n_dynamic;
    }
  }
  if (n_dynamic == 0) return Dim::Known(known);
  return n_dynamic == 1 && known == 0 ? *dynamic : Dim::Unknown();
}

// The first input with a known rank, after checking every known rank agrees with it.
Result<std::optional<size_t>> ConcatRankSource(const InferenceContext& ctx) {
  std::optional<size_t> src;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (!ctx.has_input(i)) return ctx.Fail("input ", i, " is missing");
    const Shape& s = ctx.input_shape(i);
    if (!s.rank_known()) continue;
    if (!src) src = i;
    const Shape& first = ctx.input_shape(*src);
    if (s.rank() != first.rank()) {
      return ctx.Fail("input ", i, " ", s.ToString(), " has rank ", s.rank(), " but input ", *src,
                      " ", first.ToString(), " has rank ", first.rank(), "; ranks must match");
    }
  }
  return src;
}

Status Concat(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, ctx.num_inputs()), "");
  KILN_ASSIGN_OR_RETURN(std::optional<size_t> src, ConcatRankSource(ctx));
  if (!src) return SetLikeInput(ctx, Shape());
  const Shape& first = ctx.input_shape(*src);
  KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(first)));
  std::vector<Dim> dims = first.dims(), parts;
  bool all_ranked = true;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    const Shape& s = ctx.input_shape(i);
    all_ranked &= s.rank_known();
    for (size_t d = 0; d < s.rank(); ++d) {
      if (static_cast<int64_t>(d) == axis) {
        parts.push_back(s[d]);
      } else if (!MergeDim(dims[d], s[d])) {
        return ctx.Fail("input ", i, " ", s.ToString(), " differs from input ", *src, " ",
                        first.ToString(), " at dim ", d, "; only axis ", axis, " may differ");
      }
    }
  }
  dims[static_cast<size_t>(axis)] = all_ranked ? SumDims(parts) : Dim::Unknown();
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

// Split into n nearly equal chunks: exactly equal, or (num_outputs) ceil-sized with a smaller
// last one.
Result<std::vector<Dim>> ChunkDims(const InferenceContext& ctx, const Dim& dim, int64_t n,
                                   bool smaller_last) {
  if (n == 1) return std::vector<Dim>{dim};
  if (!dim.known()) return std::vector<Dim>(static_cast<size_t>(n));
  int64_t chunk = smaller_last ? (dim.value + n - 1) / n : dim.value / n;
  int64_t last = dim.value - chunk * (n - 1);
  if (!smaller_last && dim.value % n != 0) {
    return ctx.Fail("cannot split a dim of ", dim.value, " evenly into ", n, " outputs");
  }
  if (last < 0) return ctx.Fail("cannot split a dim of ", dim.value, " into ", n, " chunks");
  std::vector<Dim> dims(static_cast<size_t>(n), Dim::Known(chunk));
  dims.back() = Dim::Known(last);
  return dims;
}

Result<std::vector<Dim>> ExplicitSplit(const InferenceContext& ctx, const Dim& dim,
                                       const std::vector<int64_t>& split) {
  if (split.size() != ctx.num_outputs()) {
    return ctx.Fail("split ", IntsStr(split), " has ", split.size(), " entries but the node has ",
                    ctx.num_outputs(), " outputs");
  }
  int64_t sum = 0;
  std::vector<Dim> dims;
  for (int64_t s : split) {
    if (s < 0) return ctx.Fail("split ", IntsStr(split), " has a negative entry");
    sum += s;
    dims.push_back(Dim::Known(s));
  }
  if (dim.known() && sum != dim.value) {
    return ctx.Fail("split ", IntsStr(split), " sums to ", sum, " but the axis has size ",
                    dim.value);
  }
  return dims;
}

Result<std::vector<Dim>> SplitDims(const InferenceContext& ctx, const Dim& dim) {
  int64_t n = static_cast<int64_t>(ctx.num_outputs());
  IntList split = Versioned(ctx, "split", 13, 1);
  // An empty 'split' input is ONNX's other way of leaving it out.
  if (ctx.opset() >= 13 && split.length == 0) split = IntList{};
  if (ctx.opset() >= 18 && ctx.has_attr("num_outputs")) {
    if (split.present) return ctx.Fail("'split' and 'num_outputs' are both given; give one");
    int64_t num = ctx.attr_int("num_outputs");
    if (num != n) return ctx.Fail("num_outputs is ", num, " but the node has ", n, " outputs");
    return ChunkDims(ctx, dim, n, /*smaller_last=*/true);
  }
  if (!split.present) return ChunkDims(ctx, dim, n, /*smaller_last=*/false);
  if (!split.values) return std::vector<Dim>(static_cast<size_t>(n));
  return ExplicitSplit(ctx, dim, *split.values);
}

Status Split(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "split"), "");
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) {
    for (size_t i = 0; i < ctx.num_outputs(); ++i) ctx.set_output(i, ctx.input_dtype(0), Shape());
    return Status::Ok();
  }
  KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(in)));
  KILN_ASSIGN_OR_RETURN(std::vector<Dim> parts, SplitDims(ctx, in[static_cast<size_t>(axis)]));
  for (size_t i = 0; i < parts.size(); ++i) {
    std::vector<Dim> dims = in.dims();
    dims[static_cast<size_t>(axis)] = parts[i];
    ctx.set_output(i, ctx.input_dtype(0), Shape(std::move(dims)));
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Slice.

struct SliceArgs {
  IntList starts, ends, axes, steps;
};

SliceArgs GetSliceArgs(const InferenceContext& ctx) {
  const InferenceContext& node = ctx;
  if (ctx.opset() < 10) {
    return {FromAttr(node, "starts"), FromAttr(node, "ends"), FromAttr(node, "axes"), {}};
  }
  return {FromInput(ctx, 1), FromInput(ctx, 2), FromInput(ctx, 3), FromInput(ctx, 4)};
}

Status CheckSliceArgs(const InferenceContext& ctx, const SliceArgs& a) {
  if (!a.starts.present || !a.ends.present) return ctx.Fail("'starts' and 'ends' are required");
  const std::pair<const char*, const IntList*> lists[] = {
      {"starts", &a.starts}, {"ends", &a.ends}, {"axes", &a.axes}, {"steps", &a.steps}};
  for (const auto& [name, list] : lists) {
    if (list->length && a.starts.length && *list->length != *a.starts.length) {
      return ctx.Fail("'", name, "' has ", *list->length, " entries but 'starts' has ",
                      *a.starts.length);
    }
  }
  if (a.steps.values) {
    for (int64_t s : *a.steps.values) {
      if (s == 0) return ctx.Fail("steps ", IntsStr(*a.steps.values), " has a 0");
    }
  }
  return Status::Ok();
}

// Elements of a dim of size `dim` that start:end:step selects, clamped as ONNX does.
int64_t SliceLength(int64_t dim, int64_t start, int64_t end, int64_t step) {
  if (start < 0) start += dim;
  if (end < 0) end += dim;
  if (step > 0) {
    start = std::clamp<int64_t>(start, 0, dim);
    end = std::clamp<int64_t>(end, 0, dim);
    return end > start ? (end - start - 1) / step + 1 : 0;
  }
  if (dim == 0) return 0;
  start = std::clamp<int64_t>(start, 0, dim - 1);
  end = std::clamp<int64_t>(end, -1, dim - 1);
  uint64_t mag = 0 - static_cast<uint64_t>(step);
  return start > end ? static_cast<int64_t>(static_cast<uint64_t>(start - end - 1) / mag) + 1 : 0;
}

Dim SlicedDim(const Dim& d, int64_t start, int64_t end, int64_t step) {
  if (d.known()) return Dim::Known(SliceLength(d.value, start, end, step));
  bool whole = (step == 1 && start == 0 && end == kInt64Max) ||
               (step == -1 && (start == -1 || start == kInt64Max) && end == kInt64Min);
  return whole ? d : Dim::Unknown();  // a reversed whole dim keeps its size too
}

Status Slice(InferenceContext& ctx) {
  const char* names[] = {"", "starts", "ends", "axes", "steps"};
  for (size_t i = 1; i < 5; ++i) KILN_RETURN_IF_ERROR(CheckIntInput(ctx, i, names[i]), "");
  const Shape& in = ctx.input_shape(0);
  SliceArgs a = GetSliceArgs(ctx);
  KILN_RETURN_IF_ERROR(CheckSliceArgs(ctx, a), "");
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  std::optional<std::vector<int64_t>> axes = a.axes.values;
  if (!a.axes.present && a.starts.length) axes = Iota(*a.starts.length);
  if (!axes) return SetLikeInput(ctx, UnknownDims(in.rank()));
  KILN_ASSIGN_OR_RETURN(auto norm, NormalizeAxes(ctx, *axes, Rank(in)));
  bool known = a.starts.values && a.ends.values && (!a.steps.present || a.steps.values);
  std::vector<Dim> dims = in.dims();
  for (size_t k = 0; k < norm.size(); ++k) {
    Dim& d = dims[static_cast<size_t>(norm[k])];
    if (!known) {
      d = Dim::Unknown();
      continue;
    }
    int64_t step = a.steps.values ? (*a.steps.values)[k] : 1;
    d = SlicedDim(d, (*a.starts.values)[k], (*a.ends.values)[k], step);
  }
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

// ---------------------------------------------------------------------------------------------
// Indexing.

Status Gather(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIndices(ctx, 1), "");
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  if (!data.rank_known() || !idx.rank_known()) return SetLikeInput(ctx, Shape());
  KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(data)));
  std::vector<Dim> dims(data.dims().begin(), data.dims().begin() + axis);
  dims.insert(dims.end(), idx.dims().begin(), idx.dims().end());
  dims.insert(dims.end(), data.dims().begin() + axis + 1, data.dims().end());
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

// data, indices (and updates) of ops that index elementwise must share one rank.
Status CheckSameRank(const InferenceContext& ctx, size_t count) {
  for (size_t i = 1; i < count; ++i) {
    const Shape& a = ctx.input_shape(0);
    const Shape& b = ctx.input_shape(i);
    if (a.rank_known() && b.rank_known() && a.rank() != b.rank()) {
      return ctx.Fail("input ", i, " ", b.ToString(), " must have the rank of data ", a.ToString());
    }
  }
  return Status::Ok();
}

// GatherElements / ScatterElements: indices no larger than data on every axis but `axis` (the
// indices address data's elements there one for one).
Status CheckElementsIndices(const InferenceContext& ctx, int64_t axis) {
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  if (!data.rank_known() || !idx.rank_known()) return Status::Ok();
  for (size_t d = 0; d < idx.rank(); ++d) {
    if (static_cast<int64_t>(d) != axis && idx[d].known() && data[d].known() &&
        idx[d].value > data[d].value) {
      return ctx.Fail("indices ", idx.ToString(), " exceed data ", data.ToString(), " at dim ", d,
                      "; only axis ", axis, " may be larger");
    }
  }
  return Status::Ok();
}

Status GatherElements(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIndices(ctx, 1), "");
  KILN_RETURN_IF_ERROR(CheckSameRank(ctx, 2), "");
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  if (data.rank_known()) {
    KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(data)));
    KILN_RETURN_IF_ERROR(CheckElementsIndices(ctx, axis), "");
  }
  if (idx.rank_known()) return SetLikeInput(ctx, idx);
  return SetLikeInput(ctx, data.rank_known() ? UnknownDims(data.rank()) : Shape());
}

Status GatherNd(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIndices(ctx, 1), "");
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  int64_t b = ctx.opset() >= 12 ? ctx.attr_int("batch_dims") : 0;
  if (!data.rank_known() || !idx.rank_known()) return SetLikeInput(ctx, Shape());
  int64_t r = Rank(data), q = Rank(idx);
  if (b < 0 || b >= std::min(r, q)) {
    return ctx.Fail("batch_dims ", b, " must be below the ranks of data ", data.ToString(),
                    " and indices ", idx.ToString());
  }
  const Dim& last = idx[idx.rank() - 1];
  if (!last.known()) return SetLikeInput(ctx, Shape());
  if (last.value < 1 || last.value > r - b) {
    return ctx.Fail("indices ", idx.ToString(), " index ", last.value, " dims; data ",
                    data.ToString(), " with batch_dims ", b, " allows 1 to ", r - b);
  }
  std::vector<Dim> dims(idx.dims().begin(), idx.dims().end() - 1);
  for (size_t i = 0; i < static_cast<size_t>(b); ++i) {
    if (!MergeDim(dims[i], data[i])) {
      return ctx.Fail("batch dim ", i, " differs: data ", data.ToString(), ", indices ",
                      idx.ToString());
    }
  }
  dims.insert(dims.end(), data.dims().begin() + b + last.value, data.dims().end());
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

Status CheckScatter(const InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIndices(ctx, 1), "");
  if (ctx.input_dtype(2) != ctx.input_dtype(0)) {
    return ctx.Fail("updates are ", Name(ctx.input_dtype(2)), " but data is ",
                    Name(ctx.input_dtype(0)), "; they must have the same type");
  }
  if (ctx.opset() >= 18) return CheckOneOf(ctx, "reduction", {"none", "add", "mul", "max", "min"});
  if (ctx.opset() >= 16) return CheckOneOf(ctx, "reduction", {"none", "add", "mul"});
  return Status::Ok();
}

Status ScatterNd(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckScatter(ctx), "");
  const Shape& data = ctx.input_shape(0);
  const Shape& idx = ctx.input_shape(1);
  const Shape& upd = ctx.input_shape(2);
  if (idx.rank_known() && idx.rank() == 0) {
    return ctx.Fail("indices must have rank >= 1, got ", idx.ToString());
  }
  if (data.rank_known() && idx.rank_known() && upd.rank_known() && idx[idx.rank() - 1].known()) {
    // updates = indices.shape[:-1] + data.shape[k:]
    int64_t k = idx[idx.rank() - 1].value;
    bool fits = k <= Rank(data) && Rank(upd) == Rank(idx) - 1 + Rank(data) - k;
    for (size_t i = 0; fits && i < upd.rank(); ++i) {
      Dim want = i + 1 < idx.rank() ? idx[i] : data[i + 1 - idx.rank() + static_cast<size_t>(k)];
      fits = MergeDim(want, upd[i]);
    }
    if (!fits) {
      return ctx.Fail("updates ", upd.ToString(), " do not fit data ", data.ToString(),
                      " and indices ", idx.ToString(),
                      " (updates must be indices.shape[:-1] + data.shape[k:])");
    }
  }
  return InferSameAsInput(ctx);
}

Status ScatterElements(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckScatter(ctx), "");
  KILN_RETURN_IF_ERROR(CheckSameRank(ctx, 3), "");
  const Shape& data = ctx.input_shape(0);
  if (data.rank_known()) {
    KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(data)));
    KILN_RETURN_IF_ERROR(CheckElementsIndices(ctx, axis), "");
  }
  const Shape& idx = ctx.input_shape(1);
  const Shape& upd = ctx.input_shape(2);
  if (idx.rank_known() && upd.rank_known()) {  // one update per index (ranks already agree)
    for (size_t d = 0; d < idx.rank(); ++d) {
      Dim i = idx[d];
      if (!MergeDim(i, upd[d])) {
        return ctx.Fail("updates ", upd.ToString(), " must have the shape of indices ",
                        idx.ToString());
      }
    }
  }
  return InferSameAsInput(ctx);
}

Status OneHot(InferenceContext& ctx) {
  const Shape& values = ctx.input_shape(2);
  if (values.rank_known() && (values.rank() != 1 || (values[0].known() && values[0].value != 2))) {
    return ctx.Fail("values must be a 2-element [off, on] tensor, got ", values.ToString());
  }
  Dim depth;
  if (const Tensor* t = ctx.input_constant(1)) {
    std::vector<double> v = t->AsDoubles();
    if (v.size() != 1 || !(v[0] >= 1 && v[0] < 9.0e18)) {
      return ctx.Fail("depth must be one value >= 1");
    }
    depth = Dim::Known(static_cast<int64_t>(v[0]));
  }
  const Shape& idx = ctx.input_shape(0);
  DataType dtype = ctx.input_dtype(2);
  if (!idx.rank_known()) {
    ctx.set_output(0, dtype, Shape());
    return Status::Ok();
  }
  KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(idx) + 1));
  std::vector<Dim> dims = idx.dims();
  dims.insert(dims.begin() + axis, depth);
  ctx.set_output(0, dtype, Shape(std::move(dims)));
  return Status::Ok();
}

Status NonZero(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  // A scalar counts as a one-element 1-D tensor (as onnxruntime does).
  Dim rank = in.rank_known() ? Dim::Known(std::max<int64_t>(Rank(in), 1)) : Dim::Unknown();
  ctx.set_output(0, DataType::kInt64, Shape({rank, Dim::Unknown()}));
  return Status::Ok();
}

// TopK's k: the attribute before opset 10, the input from it on; nullopt when not constant.
Result<std::optional<int64_t>> TopKValue(const InferenceContext& ctx) {
  if (ctx.opset() < 10) return std::optional<int64_t>(ctx.attr_int("k"));
  if (!ctx.has_input(1)) return ctx.Fail("input 'K' is required");
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "K"), "");
  auto v = ctx.input_ints(1);
  if (!v) return std::optional<int64_t>();
  if (v->size() != 1) return ctx.Fail("K must hold one value, got ", IntsStr(*v));
  return std::optional<int64_t>((*v)[0]);
}

Status TopK(InferenceContext& ctx) {
  KILN_ASSIGN_OR_RETURN(std::optional<int64_t> k, TopKValue(ctx));
  if (k && *k < 0) return ctx.Fail("k must be >= 0, got ", *k);
  const Shape& in = ctx.input_shape(0);
  Shape out;
  if (in.rank_known()) {
    KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(in)));
    out = in;
    Dim& d = out[static_cast<size_t>(axis)];
    if (k && d.known() && *k > d.value) {
      return ctx.Fail("k = ", *k, " exceeds the size ", d.value, " of axis ", axis, " of ",
                      in.ToString());
    }
    d = k ? Dim::Known(*k) : Dim::Unknown();
  }
  ctx.set_output(0, ctx.input_dtype(0), out);
  ctx.set_output(1, DataType::kInt64, std::move(out));
  return Status::Ok();
}

// ArgMax, ArgMin.
Status ArgReduce(InferenceContext& ctx) {
  int64_t last = ctx.attr_int("select_last_index");
  if (last != 0 && last != 1) return ctx.Fail("select_last_index must be 0 or 1, got ", last);
  bool keep = ctx.attr_int("keepdims") != 0;
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) {
    ctx.set_output(0, DataType::kInt64, Shape());
    return Status::Ok();
  }
  KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(in)));
  std::vector<Dim> dims = in.dims();
  if (keep) {
    dims[static_cast<size_t>(axis)] = Dim::Known(1);
  } else {
    dims.erase(dims.begin() + axis);
  }
  ctx.set_output(0, DataType::kInt64, Shape(std::move(dims)));
  return Status::Ok();
}

Status NonMaxSuppression(InferenceContext& ctx) {
  int64_t cpb = ctx.attr_int("center_point_box");
  if (cpb != 0 && cpb != 1) return ctx.Fail("center_point_box must be 0 or 1, got ", cpb);
  const Shape& boxes = ctx.input_shape(0);
  const Shape& scores = ctx.input_shape(1);
  if (boxes.rank_known() && (boxes.rank() != 3 || (boxes[2].known() && boxes[2].value != 4))) {
    return ctx.Fail("boxes must be [batches, boxes, 4], got ", boxes.ToString());
  }
  if (scores.rank_known() && scores.rank() != 3) {
    return ctx.Fail("scores must be [batches, classes, boxes], got ", scores.ToString());
  }
  if (boxes.rank_known() && scores.rank_known()) {
    Dim batches = boxes[0], count = boxes[1];
    if (!MergeDim(batches, scores[0]) || !MergeDim(count, scores[2])) {
      return ctx.Fail("scores ", scores.ToString(), " do not fit boxes ", boxes.ToString(),
                      " (batches and box counts must agree)");
    }
  }
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, 2), "");
  ctx.set_output(0, DataType::kInt64, Shape({Dim::Unknown(), Dim::Known(3)}));
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// Generators and shape queries.

Status ShapeOp(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) {
    ctx.set_output(0, DataType::kInt64, UnknownDims(1));
    return Status::Ok();
  }
  int64_t r = Rank(in);
  auto clamp = [r](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + r : v, 0, r); };
  bool sliced = ctx.opset() >= 15;
  int64_t start = sliced ? clamp(ctx.attr_int("start")) : 0;
  int64_t end = sliced && ctx.has_attr("end") ? clamp(ctx.attr_int("end")) : r;
  ctx.set_output(0, DataType::kInt64, Shape::Of({std::max<int64_t>(end - start, 0)}));
  return Status::Ok();
}

Status Size(InferenceContext& ctx) {
  ctx.set_output(0, DataType::kInt64, Shape::Scalar());
  return Status::Ok();
}

Status ConstantValue(InferenceContext& ctx, const Tensor* t) {
  if (t == nullptr) return ctx.Fail("attribute 'value' must be a tensor");
  if (t->dtype() == DataType::kString || t->dtype() == DataType::kUndefined) {
    return ctx.Unsupported("a Constant of type ", Name(t->dtype()), " is not supported");
  }
  if (t->bytes() != static_cast<size_t>(t->num_elements()) * SizeOf(t->dtype())) {
    return ctx.Fail("attribute 'value' holds ", t->bytes(), " bytes for ", Name(t->dtype()), " ",
                    t->shape().ToString());
  }
  ctx.set_output(0, t->dtype(), t->shape());
  return Status::Ok();
}

Status Constant(InferenceContext& ctx) {
  const InferenceContext& node = ctx;
  std::vector<std::string> given;
  for (const char* form : {"value", "value_float", "value_floats", "value_int", "value_ints",
                           "value_string", "value_strings", "sparse_value"}) {
    if (node.has_attr(form)) given.push_back(form);
  }
  if (given.size() != 1) {
    return ctx.Fail("exactly one value attribute must be set, got ", given.size(), " (",
                    Join(given), ")");
  }
  const std::string& form = given[0];
  if (form == "value") return ConstantValue(ctx, node.attr_tensor("value"));
  if (form == "value_float" || form == "value_int") {
    DataType t = form == "value_int" ? DataType::kInt64 : DataType::kFloat32;
    ctx.set_output(0, t, Shape::Scalar());
  } else if (form == "value_floats") {
    int64_t n = static_cast<int64_t>(node.attr_floats(form).size());
    ctx.set_output(0, DataType::kFloat32, Shape::Of({n}));
  } else if (form == "value_ints") {
    int64_t n = static_cast<int64_t>(node.attr_ints(form).size());
    ctx.set_output(0, DataType::kInt64, Shape::Of({n}));
  } else {
    return ctx.Unsupported("a Constant given by '", form, "' is not supported");
  }
  return Status::Ok();
}

Status ConstantOfShape(InferenceContext& ctx) {
  DataType dtype = DataType::kFloat32;
  if (ctx.has_attr("value")) {
    const Tensor* v = ctx.attr_tensor("value");
    if (v == nullptr || v->num_elements() != 1 || SizeOf(v->dtype()) == 0 ||
        v->bytes() != SizeOf(v->dtype())) {
      return ctx.Fail("attribute 'value' must be a one-element numeric or bool tensor");
    }
    dtype = v->dtype();
  }
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 0, "input"), "");
  const Shape& s = ctx.input_shape(0);
  if (s.rank_known() && s.rank() != 1) {
    return ctx.Fail("the shape input must be 1-D, got ", s.ToString());
  }
  IntList shape = FromInput(ctx, 0);
  if (!shape.values) {
    Shape out = shape.length ? UnknownDims(static_cast<size_t>(*shape.length)) : Shape();
    ctx.set_output(0, dtype, std::move(out));
    return Status::Ok();
  }
  for (int64_t v : *shape.values) {
    if (v < 0) return ctx.Fail("shape ", IntsStr(*shape.values), " has a negative dim");
  }
  ctx.set_output(0, dtype, Shape::Of(*shape.values));
  return Status::Ok();
}

// The one integer of a constant scalar, wide enough for every integer type (uint64 included).
__int128 WideInt(const Tensor& t) {
  const uint8_t* p = t.raw();
  auto get = [p](auto v) {
    std::memcpy(&v, p, sizeof v);
    return static_cast<__int128>(v);
  };
  switch (t.dtype()) {
    case DataType::kInt8:
      return get(int8_t{});
    case DataType::kUint8:
      return get(uint8_t{});
    case DataType::kInt16:
      return get(int16_t{});
    case DataType::kUint16:
      return get(uint16_t{});
    case DataType::kInt32:
      return get(int32_t{});
    case DataType::kUint32:
      return get(uint32_t{});
    case DataType::kUint64:
      return get(uint64_t{});
    default:
      return get(int64_t{});
  }
}

// The one value of a constant float scalar, as the kernel widens it (bfloat16 included).
double WideFloat(const Tensor& t) {
  if (t.dtype() != DataType::kBFloat16) return t.AsDoubles().at(0);
  uint16_t b = 0;
  std::memcpy(&b, t.raw(), sizeof b);
  uint32_t bits = static_cast<uint32_t>(b) << 16;
  float f = 0;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// max(ceil((limit - start) / delta), 0) from constant inputs, computed as the kernel computes
// the values (integers in 128 bits, floats in double).
Result<Dim> RangeLength(const InferenceContext& ctx) {
  const Tensor& st = *ctx.input_constant(0);
  const Tensor& lt = *ctx.input_constant(1);
  const Tensor& dt = *ctx.input_constant(2);
  if (IsInteger(st.dtype())) {
    const __int128 s = WideInt(st), l = WideInt(lt), d = WideInt(dt);
    if (d == 0) return ctx.Fail("delta is 0");
    const __int128 diff = l - s;
    __int128 q = diff / d;
    if (diff % d != 0 && ((diff > 0) == (d > 0))) ++q;
    if (q > kInt64Max) return ctx.Fail("the range has more than 2^63 elements");
    return Dim::Known(static_cast<int64_t>(std::max<__int128>(q, 0)));
  }
  const double s = WideFloat(st), l = WideFloat(lt), d = WideFloat(dt);
  if (d == 0) return ctx.Fail("delta is 0");
  const double n = std::ceil((l - s) / d);
  if (!(n < 9.0e18))
    return ctx.Fail("the range from ", s, " to ", l, " by ", d,
                    " has no finite length");  // also NaN
  return Dim::Known(std::max<int64_t>(static_cast<int64_t>(n), 0));
}

Status Range(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckSameDtype(ctx, 0, 3), "");
  const char* names[] = {"start", "limit", "delta"};
  bool all_constant = true;
  for (size_t i = 0; i < 3; ++i) {
    KILN_RETURN_IF_ERROR(CheckScalar(ctx, i, names[i]), "");
    const Tensor* t = ctx.input_constant(i);
    all_constant &= t != nullptr && t->num_elements() == 1;
  }
  Dim len;
  if (all_constant) {
    KILN_ASSIGN_OR_RETURN(len, RangeLength(ctx));
  }
  return SetLikeInput(ctx, Shape({len}));
}

Status EyeLike(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.rank_known() && in.rank() != 2) {
    return ctx.Fail("input must be 2-D, got ", in.ToString());
  }
  DataType dtype = ctx.input_dtype(0);
  if (ctx.has_attr("dtype")) {
    int64_t to = ctx.attr_int("dtype");
    dtype = FromOnnx(static_cast<int32_t>(to));
    if (dtype == DataType::kUndefined || dtype == DataType::kString) {
      return ctx.Unsupported("attribute 'dtype' = ", to, " names a type Kiln does not support");
    }
  }
  ctx.set_output(0, dtype, in.rank_known() ? in : UnknownDims(2));
  return Status::Ok();
}

Status CumSum(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "axis"), "");
  const Shape& in = ctx.input_shape(0);
  auto axis = ctx.input_ints(1);
  if (axis && axis->size() != 1) return ctx.Fail("axis must hold one value, got ", IntsStr(*axis));
  if (axis && in.rank_known()) KILN_RETURN_IF_ERROR(Axis(ctx, (*axis)[0], Rank(in)).status(), "");
  return InferSameAsInput(ctx);
}

Status Trilu(InferenceContext& ctx) {
  const Shape& in = ctx.input_shape(0);
  if (in.rank_known() && in.rank() < 2) {
    return ctx.Fail("input must have rank >= 2, got ", in.ToString());
  }
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "k"), "");
  KILN_RETURN_IF_ERROR(CheckScalar(ctx, 1, "k"), "");
  return InferSameAsInput(ctx);
}

// ---------------------------------------------------------------------------------------------
// Compress, ReverseSequence, CenterCropPad.

Status Compress(InferenceContext& ctx) {
  if (ctx.input_dtype(1) != DataType::kBool) {
    return ctx.Fail("condition is ", Name(ctx.input_dtype(1)), "; bool is required");
  }
  const Shape& cond = ctx.input_shape(1);
  if (cond.rank_known() && cond.rank() != 1) {
    return ctx.Fail("condition must be 1-D, got ", cond.ToString());
  }
  Dim kept;  // the count of true conditions when they are constant
  if (const Tensor* t = ctx.input_constant(1)) {
    kept = Dim::Known(std::count_if(t->raw(), t->raw() + t->bytes(), [](uint8_t b) { return b; }));
  }
  const Shape& in = ctx.input_shape(0);
  if (!ctx.has_attr("axis")) return SetLikeInput(ctx, Shape({kept}));
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  KILN_ASSIGN_OR_RETURN(int64_t axis, AxisAttr(ctx, Rank(in)));
  const Dim& d = in[static_cast<size_t>(axis)];
  if (const Tensor* t = ctx.input_constant(1); t && d.known() && t->num_elements() > d.value) {
    return ctx.Fail("condition has ", t->num_elements(), " entries but axis ", axis, " of ",
                    in.ToString(), " has ", d.value);
  }
  Shape out = in;
  out[static_cast<size_t>(axis)] = kept;
  return SetLikeInput(ctx, std::move(out));
}

Status ReverseSequence(InferenceContext& ctx) {
  const int64_t b = ctx.attr_int("batch_axis"), t = ctx.attr_int("time_axis");
  if ((b != 0 && b != 1) || (t != 0 && t != 1) || b == t) {
    return ctx.Fail("batch_axis ", b, " and time_axis ", t, " must be 0 and 1 (one each)");
  }
  if (ctx.input_dtype(1) != DataType::kInt64) {
    return ctx.Fail("sequence_lens is ", Name(ctx.input_dtype(1)), "; int64 is required");
  }
  const Shape& in = ctx.input_shape(0);
  const Shape& lens = ctx.input_shape(1);
  if (in.rank_known() && in.rank() < 2) {
    return ctx.Fail("input must have rank >= 2, got ", in.ToString());
  }
  if (lens.rank_known() && lens.rank() != 1) {
    return ctx.Fail("sequence_lens must be 1-D, got ", lens.ToString());
  }
  if (in.rank_known() && lens.rank_known()) {
    Dim batch = in[static_cast<size_t>(b)];
    if (!MergeDim(batch, lens[0])) {
      return ctx.Fail("sequence_lens ", lens.ToString(), " must have one entry per batch of ",
                      in.ToString());
    }
  }
  return InferSameAsInput(ctx);
}

Status CenterCropPad(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "shape"), "");
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  std::vector<int64_t> axes = Iota(Rank(in));
  if (ctx.has_attr("axes")) {
    KILN_ASSIGN_OR_RETURN(axes, NormalizeAxes(ctx, ctx.attr_ints("axes"), Rank(in)));
  }
  IntList shape = FromInput(ctx, 1);
  if (shape.length && *shape.length != static_cast<int64_t>(axes.size())) {
    return ctx.Fail("shape has ", *shape.length, " entries for ", axes.size(), " axes of input ",
                    in.ToString());
  }
  Shape out = in;
  for (size_t k = 0; k < axes.size(); ++k) {
    Dim& d = out[static_cast<size_t>(axes[k])];
    if (!shape.values) {
      d = Dim::Unknown();
    } else if ((*shape.values)[k] < 0) {
      return ctx.Fail("shape ", IntsStr(*shape.values), " has a negative entry");
    } else {
      d = Dim::Known((*shape.values)[k]);
    }
  }
  return SetLikeInput(ctx, std::move(out));
}

// ---------------------------------------------------------------------------------------------
// Pad.

Status CheckPadMode(const InferenceContext& ctx) {
  std::vector<std::string> modes = {"constant", "reflect", "edge"};
  if (ctx.opset() >= 19) modes.push_back("wrap");
  return CheckOneOf(ctx, "mode", modes);
}

// An axis of `d` padded by `b` before and `e` after (negative pads crop): fails when the crops
// exceed the axis, the size overflows, or reflect/edge/wrap would pad from nothing.
Result<Dim> PaddedDim(const InferenceContext& ctx, const Dim& d, int64_t b, int64_t e,
                      const std::string& mode) {
  int64_t total = 0;
  if (__builtin_add_overflow(b, e, &total)) return ctx.Fail("pads ", b, " and ", e, " overflow");
  if (!d.known()) return total == 0 ? d : Dim::Unknown();
  int64_t out = 0;
  if (b < -d.value || e < -d.value || __builtin_add_overflow(d.value, total, &out) || out < 0) {
    return ctx.Fail("pads ", b, " and ", e, " do not fit an axis of ", d.value);
  }
  const int64_t kept = d.value - std::max<int64_t>(-b, 0) - std::max<int64_t>(-e, 0);
  if (mode != "constant" && kept <= 0 && out > 0) {
    return ctx.Fail("cannot ", mode, "-pad an axis of ", d.value, " cropped to nothing by pads ", b,
                    " and ", e);
  }
  return Dim::Known(out);
}

Status CheckPadInputs(const InferenceContext& ctx) {
  if (ctx.opset() < 11) return Status::Ok();
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 1, "pads"), "");
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 3, "axes"), "");
  if (ctx.has_input(2) && ctx.input_dtype(2) != ctx.input_dtype(0)) {
    return ctx.Fail("constant_value is ", Name(ctx.input_dtype(2)), " but data is ",
                    Name(ctx.input_dtype(0)), "; they must have the same type");
  }
  return Status::Ok();
}

Status Pad(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckPadMode(ctx), "");
  KILN_RETURN_IF_ERROR(CheckPadInputs(ctx), "");
  IntList pads = Versioned(ctx, "pads", 11, 1);
  IntList axes = ctx.opset() >= 18 ? FromInput(ctx, 3) : IntList{};
  if (!pads.present) return ctx.Fail("'pads' is required");
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  if (axes.present && !axes.values) return SetLikeInput(ctx, UnknownDims(in.rank()));
  std::vector<int64_t> ax = Iota(Rank(in));
  if (axes.present) {
    KILN_ASSIGN_OR_RETURN(ax, NormalizeAxes(ctx, *axes.values, Rank(in)));
  }
  size_t n = ax.size();
  const std::string mode = ctx.attr_string("mode");
  if (pads.length && *pads.length != static_cast<int64_t>(2 * n)) {
    return ctx.Fail("pads has ", *pads.length, " entries; ", 2 * n, " (begin and end for each of ",
                    n, " axes) are required for input ", in.ToString());
  }
  std::vector<Dim> dims = in.dims();
  for (size_t k = 0; k < n; ++k) {
    Dim& d = dims[static_cast<size_t>(ax[k])];
    if (!pads.values) {
      d = Dim::Unknown();
      continue;
    }
    KILN_ASSIGN_OR_RETURN(d, PaddedDim(ctx, d, (*pads.values)[k], (*pads.values)[k + n], mode));
  }
  return SetLikeInput(ctx, Shape(std::move(dims)));
}

// ---------------------------------------------------------------------------------------------
// Resize and Upsample.

Status CheckResizeModes(const InferenceContext& ctx) {
  std::vector<std::string> modes = {"nearest", "linear"};
  if (ctx.opset() >= 11) modes.push_back("cubic");
  KILN_RETURN_IF_ERROR(CheckOneOf(ctx, "mode", modes), "");
  if (ctx.opset() < 11) return Status::Ok();
  std::vector<std::string> ctms = {"half_pixel", "pytorch_half_pixel", "align_corners",
                                   "asymmetric", "tf_crop_and_resize"};
  if (ctx.opset() < 13) ctms.push_back("tf_half_pixel_for_nn");
  if (ctx.opset() >= 19) ctms.push_back("half_pixel_symmetric");
  KILN_RETURN_IF_ERROR(CheckOneOf(ctx, "coordinate_transformation_mode", ctms), "");
  KILN_RETURN_IF_ERROR((CheckOneOf(ctx, "nearest_mode",
                                   {"round_prefer_floor", "round_prefer_ceil", "floor", "ceil"})),
                       "");
  if (ctx.opset() < 18) return Status::Ok();
  return CheckOneOf(ctx, "keep_aspect_ratio_policy", {"stretch", "not_larger", "not_smaller"});
}

// Whether optional input i is given: kNo when omitted or empty (ONNX's other way of leaving
// it out), kMaybe when computed with an element count unknown here.
enum class Given { kNo, kYes, kMaybe };

Given GivenNonEmpty(const InferenceContext& ctx, size_t i) {
  if (!ctx.has_input(i)) return Given::kNo;
  auto n = ctx.input_shape(i).NumElements();
  if (!n) return Given::kMaybe;
  return *n != 0 ? Given::kYes : Given::kNo;
}

Result<Dim> ScaledDim(const InferenceContext& ctx, const Dim& d, float scale) {
  if (scale == 1.0f) return d;
  if (!d.known()) return Dim::Unknown();
  // In float, as ONNX's shape inference and onnxruntime compute it.
  const float v = std::floor(static_cast<float>(d.value) * scale);
  if (!(v < 9.0e18f)) return ctx.Fail("a dim of ", d.value, " scaled by ", scale, " overflows");
  return Dim::Known(static_cast<int64_t>(v));
}

Result<Shape> ScaledShape(const InferenceContext& ctx, const Shape& in,
                          const std::vector<int64_t>& axes, const std::vector<double>& scales) {
  if (scales.size() != axes.size()) {
    return ctx.Fail("scales has ", scales.size(), " entries but ", axes.size(), " axes of input ",
                    in.ToString(), " are resized");
  }
  std::vector<Dim> dims = in.dims();
  for (size_t k = 0; k < axes.size(); ++k) {
    if (!(scales[k] > 0) || !std::isfinite(scales[k])) {
      return ctx.Fail("scales[", k, "] = ", scales[k], "; it must be finite and > 0");
    }
    Dim& d = dims[static_cast<size_t>(axes[k])];
    KILN_ASSIGN_OR_RETURN(d, ScaledDim(ctx, d, static_cast<float>(scales[k])));
  }
  return Shape(std::move(dims));
}

// Sizes under keep_aspect_ratio_policy not_larger / not_smaller: one scale for every axis.
std::optional<std::vector<int64_t>> KeepAspect(const Shape& in, const std::vector<int64_t>& axes,
                                               const std::vector<int64_t>& sizes, bool larger) {
  float scale = larger ? 0.0f : std::numeric_limits<float>::max();
  for (size_t k = 0; k < axes.size(); ++k) {
    const Dim& d = in[static_cast<size_t>(axes[k])];
    if (!d.known()) return std::nullopt;
    // An empty axis (resized to 0, SizedShape checks) keeps scale 1, as the kernel has it.
    float s = d.value == 0 ? 1.0f : static_cast<float>(sizes[k]) / static_cast<float>(d.value);
    scale = larger ? std::max(scale, s) : std::min(scale, s);
  }
  std::vector<int64_t> out;
  for (int64_t a : axes) {
    out.push_back(static_cast<int64_t>(
        std::roundf(scale * static_cast<float>(in[static_cast<size_t>(a)].value))));
  }
  return out;
}

Result<Shape> SizedShape(const InferenceContext& ctx, const Shape& in,
                         const std::vector<int64_t>& axes, const std::vector<int64_t>& sizes) {
  if (sizes.size() != axes.size()) {
    return ctx.Fail("sizes ", IntsStr(sizes), " has ", sizes.size(), " entries but ", axes.size(),
                    " axes of input ", in.ToString(), " are resized");
  }
  for (size_t k = 0; k < sizes.size(); ++k) {
    if (sizes[k] < 0) return ctx.Fail("sizes ", IntsStr(sizes), " has a negative entry");
    const Dim& d = in[static_cast<size_t>(axes[k])];
    if (sizes[k] > 0 && d.known() && d.value == 0) {
      return ctx.Fail("sizes ", IntsStr(sizes), " cannot resize the empty axis ", axes[k], " of ",
                      in.ToString());
    }
  }
  std::string policy = ctx.attr_string("keep_aspect_ratio_policy");
  std::optional<std::vector<int64_t>> out = sizes;
  if (ctx.opset() >= 18 && policy != "stretch") {
    out = KeepAspect(in, axes, sizes, policy == "not_smaller");
  }
  std::vector<Dim> dims = in.dims();
  for (size_t k = 0; k < axes.size(); ++k) {
    dims[static_cast<size_t>(axes[k])] = out ? Dim::Known((*out)[k]) : Dim::Unknown();
  }
  return Shape(std::move(dims));
}

// Whether Resize uses sizes (else scales); fails unless exactly one can be given.
Result<bool> ResizeUsesSizes(const InferenceContext& ctx, size_t scales_at) {
  if (ctx.opset() < 11 && !ctx.has_input(1)) return ctx.Fail("input 'scales' is required");
  if (ctx.opset() < 11 && ctx.num_inputs() > 2) {
    return ctx.Fail("has ", ctx.num_inputs(), " inputs; opset 10 Resize takes X and scales");
  }
  Given scales = GivenNonEmpty(ctx, scales_at);
  Given sizes = ctx.opset() >= 11 ? GivenNonEmpty(ctx, 3) : Given::kNo;
  if (scales == sizes && scales != Given::kMaybe) {
    return ctx.Fail("give exactly one of 'scales' and 'sizes' (the other omitted or empty)");
  }
  if (scales != Given::kNo && !IsFloat(ctx.input_dtype(scales_at))) {
    return ctx.Fail("scales are ", Name(ctx.input_dtype(scales_at)), "; float is required");
  }
  KILN_RETURN_IF_ERROR(CheckIntInput(ctx, 3, "sizes"), "");
  return sizes == Given::kYes || (sizes == Given::kMaybe && scales != Given::kYes);
}

Status Resize(InferenceContext& ctx) {
  KILN_RETURN_IF_ERROR(CheckResizeModes(ctx), "");
  size_t scales_at = ctx.opset() >= 11 ? 2 : 1;
  KILN_ASSIGN_OR_RETURN(bool has_sizes, ResizeUsesSizes(ctx, scales_at));
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  std::vector<int64_t> axes = Iota(Rank(in));
  if (ctx.opset() >= 18 && ctx.has_attr("axes")) {
    KILN_ASSIGN_OR_RETURN(axes, NormalizeAxes(ctx, ctx.attr_ints("axes"), Rank(in)));
  }
  if (ctx.opset() >= 11 &&
      ctx.attr_string("coordinate_transformation_mode") == "tf_crop_and_resize") {
    auto n = ctx.has_input(1) ? ctx.input_shape(1).NumElements() : std::optional<int64_t>(0);
    if (n && *n != static_cast<int64_t>(2 * axes.size())) {
      return ctx.Fail("tf_crop_and_resize needs a roi of ", 2 * axes.size(), " values, got ", *n);
    }
  }
  const Tensor* values = ctx.input_constant(has_sizes ? 3 : scales_at);
  Shape out = in;
  if (values == nullptr) {
    for (int64_t a : axes) out[static_cast<size_t>(a)] = Dim::Unknown();
  } else if (has_sizes) {
    KILN_ASSIGN_OR_RETURN(out, SizedShape(ctx, in, axes, values->AsInt64s()));
  } else {
    KILN_ASSIGN_OR_RETURN(out, ScaledShape(ctx, in, axes, values->AsDoubles()));
  }
  return SetLikeInput(ctx, std::move(out));
}

// Upsample's scales: the attribute at opsets 7-8, the input at 9; nullopt when not constant.
Result<std::optional<std::vector<double>>> UpsampleScales(const InferenceContext& ctx) {
  using Scales = std::optional<std::vector<double>>;
  if (ctx.opset() < 9) {
    std::vector<float> f = ctx.attr_floats("scales");
    return Scales(std::vector<double>(f.begin(), f.end()));
  }
  if (!ctx.has_input(1)) return ctx.Fail("input 'scales' is required");
  const Tensor* t = ctx.input_constant(1);
  return t ? Scales(t->AsDoubles()) : Scales();
}

Status Upsample(InferenceContext& ctx) {
  if (ctx.opset() >= 10) {
    return ctx.Unsupported("Upsample is deprecated from opset 10; use Resize");
  }
  KILN_RETURN_IF_ERROR((CheckOneOf(ctx, "mode", {"nearest", "linear"})), "");
  KILN_ASSIGN_OR_RETURN(auto scales, UpsampleScales(ctx));
  const Shape& in = ctx.input_shape(0);
  if (!in.rank_known()) return SetLikeInput(ctx, Shape());
  if (!scales) return SetLikeInput(ctx, UnknownDims(in.rank()));
  for (double s : *scales) {
    if (s < 1) return ctx.Fail("scales must be >= 1, got ", s);
  }
  KILN_ASSIGN_OR_RETURN(Shape out, ScaledShape(ctx, in, Iota(Rank(in)), *scales));
  return SetLikeInput(ctx, std::move(out));
}

}  // namespace

void RegisterTensorOps(OpRegistry& r) {
  constexpr const char* kFamily = "tensor";
  using K = AttrKind;
  // Reshaping. Reshape takes its shape as an input from opset 5; Squeeze and Unsqueeze take
  // their axes as an input from opset 13; Tile takes repeats from opset 6. Transpose's perm and
  // Squeeze's axes default to something that depends on the input's rank, so they are declared
  // without a default (the shape function and the kernels read their absence).
  r.Register(MakeSchema("Reshape", 5, 2, 2, 1, 1, kFamily, Reshape)
                 .Attrs({Attr("allowzero", 0).Since(14)})
                 .Traits(kTraitInPlace));
  r.Register(MakeSchema("Transpose", 1, 1, 1, 1, 1, kFamily, Transpose)
                 .Attrs({OptionalAttr("perm", K::kInts)}));
  r.Register(MakeSchema("Squeeze", 1, 1, 2, 1, 1, kFamily, Squeeze)
                 .Attrs({OptionalAttr("axes", K::kInts).Until(12)})
                 .Traits(kTraitInPlace));
  r.Register(MakeSchema("Unsqueeze", 1, 1, 2, 1, 1, kFamily, Unsqueeze)
                 .Attrs({RequiredAttr("axes", K::kInts).Until(12)})
                 .Traits(kTraitInPlace));
  r.Register(MakeSchema("Expand", 8, 2, 2, 1, 1, kFamily, Expand));
  r.Register(MakeSchema("Tile", 6, 2, 2, 1, 1, kFamily, Tile));
  r.Register(MakeSchema("DepthToSpace", 1, 1, 1, 1, 1, kFamily, DepthToSpace)
                 .Attrs({RequiredAttr("blocksize", K::kInt), Attr("mode", "DCR").Since(11)}));
  r.Register(MakeSchema("SpaceToDepth", 1, 1, 1, 1, 1, kFamily, SpaceToDepth)
                 .Attrs({RequiredAttr("blocksize", K::kInt)}));
  // Joining and slicing. Concat's axis is required from opset 4; Split's sizes are an
  // attribute from opset 2 and an input from 13, where an even split may instead be uneven
  // (num_outputs, opset 18); Slice's starts/ends/axes are attributes before opset 10.
  r.Register(
      MakeSchema("Concat", 4, 1, -1, 1, 1, kFamily, Concat).Attrs({RequiredAttr("axis", K::kInt)}));
  r.Register(MakeSchema("Split", 2, 1, 2, 1, -1, kFamily, Split)
                 .Attrs({Attr("axis", 0), OptionalAttr("split", K::kInts).Until(12),
                         OptionalAttr("num_outputs", K::kInt).Since(18)}));
  r.Register(MakeSchema("Slice", 1, 1, 5, 1, 1, kFamily, Slice)
                 .Attrs({RequiredAttr("starts", K::kInts).Until(9),
                         RequiredAttr("ends", K::kInts).Until(9),
                         OptionalAttr("axes", K::kInts).Until(9)}));
  // Without an axis Compress selects from the flattened input.
  r.Register(MakeSchema("Compress", 9, 2, 2, 1, 1, kFamily, Compress)
                 .Attrs({OptionalAttr("axis", K::kInt)})
                 .Traits(kTraitDataDependentShape));
  r.Register(MakeSchema("ReverseSequence", 10, 2, 2, 1, 1, kFamily, ReverseSequence)
                 .Attrs({Attr("batch_axis", 1), Attr("time_axis", 0)}));
  // Indexing. TopK's k is an attribute before opset 10; largest and sorted arrive at 11.
  r.Register(MakeSchema("Gather", 1, 2, 2, 1, 1, kFamily, Gather).Attrs({Attr("axis", 0)}));
  r.Register(MakeSchema("GatherElements", 11, 2, 2, 1, 1, kFamily, GatherElements)
                 .Attrs({Attr("axis", 0)}));
  r.Register(MakeSchema("GatherND", 11, 2, 2, 1, 1, kFamily, GatherNd)
                 .Attrs({Attr("batch_dims", 0).Since(12)}));
  r.Register(MakeSchema("ScatterND", 11, 3, 3, 1, 1, kFamily, ScatterNd)
                 .Attrs({Attr("reduction", "none").Since(16)}));
  r.Register(MakeSchema("ScatterElements", 11, 3, 3, 1, 1, kFamily, ScatterElements)
                 .Attrs({Attr("axis", 0), Attr("reduction", "none").Since(16)}));
  r.Register(MakeSchema("OneHot", 9, 3, 3, 1, 1, kFamily, OneHot).Attrs({Attr("axis", -1)}));
  r.Register(
      MakeSchema("NonZero", 9, 1, 1, 1, 1, kFamily, NonZero).Traits(kTraitDataDependentShape));
  r.Register(MakeSchema("TopK", 1, 1, 2, 2, 2, kFamily, TopK)
                 .Attrs({Attr("axis", -1), RequiredAttr("k", K::kInt).Until(9),
                         Attr("largest", 1).Since(11), Attr("sorted", 1).Since(11)}));
  for (const char* op : {"ArgMax", "ArgMin"}) {
    r.Register(
        MakeSchema(op, 1, 1, 1, 1, 1, kFamily, ArgReduce)
            .Attrs({Attr("axis", 0), Attr("keepdims", 1), Attr("select_last_index", 0).Since(12)}));
  }
  r.Register(MakeSchema("NonMaxSuppression", 10, 2, 5, 1, 1, kFamily, NonMaxSuppression)
                 .Attrs({Attr("center_point_box", 0)})
                 .Traits(kTraitDataDependentShape));
  // Generators and shape queries. Shape's end defaults to the rank (opset 15); EyeLike's dtype
  // to its input's; ConstantOfShape's value to a float 0. Constant takes exactly one of its
  // value attributes (sparse_value never reaches the IR: the importer refuses sparse tensors).
  r.Register(MakeSchema("Shape", 1, 1, 1, 1, 1, kFamily, ShapeOp)
                 .Attrs({Attr("start", 0).Since(15), OptionalAttr("end", K::kInt).Since(15)})
                 .Traits(kTraitReadsShapeOnly));
  r.Register(MakeSchema("Size", 1, 1, 1, 1, 1, kFamily, Size).Traits(kTraitReadsShapeOnly));
  r.Register(MakeSchema("Constant", 1, 0, 0, 1, 1, kFamily, Constant)
                 .Attrs({OptionalAttr("value", K::kTensor),
                         OptionalAttr("value_float", K::kFloat).Since(12),
                         OptionalAttr("value_floats", K::kFloats).Since(12),
                         OptionalAttr("value_int", K::kInt).Since(12),
                         OptionalAttr("value_ints", K::kInts).Since(12),
                         OptionalAttr("value_string", K::kString).Since(12),
                         OptionalAttr("value_strings", K::kStrings).Since(12)}));
  r.Register(MakeSchema("ConstantOfShape", 9, 1, 1, 1, 1, kFamily, ConstantOfShape)
                 .Attrs({OptionalAttr("value", K::kTensor)}));
  r.Register(
      MakeSchema("Range", 11, 3, 3, 1, 1, kFamily, Range).Attrs({Attr("stash_type", 1).Since(27)}));
  r.Register(MakeSchema("EyeLike", 9, 1, 1, 1, 1, kFamily, EyeLike)
                 .Attrs({OptionalAttr("dtype", K::kInt), Attr("k", 0)}));
  r.Register(MakeSchema("CumSum", 11, 2, 2, 1, 1, kFamily, CumSum)
                 .Attrs({Attr("exclusive", 0), Attr("reverse", 0)}));
  r.Register(MakeSchema("CumProd", 26, 2, 2, 1, 1, kFamily, CumSum)
                 .Attrs({Attr("exclusive", 0), Attr("reverse", 0)}));
  r.Register(MakeSchema("Trilu", 14, 1, 2, 1, 1, kFamily, Trilu).Attrs({Attr("upper", 1)}));
  // Resampling. Pad takes pads (and the constant value) as attributes from opset 2 to 10
  // (opset 1 called them paddings) and as inputs from 11; Resize gained its coordinate modes
  // at opset 11 and axes, antialias and keep_aspect_ratio_policy at 18; Upsample gained
  // multi-dim scales at opset 7, took them as an input at 9 and was deprecated at 10.
  r.Register(MakeSchema("Pad", 2, 1, 4, 1, 1, kFamily, Pad)
                 .Attrs({Attr("mode", "constant"), RequiredAttr("pads", K::kInts).Until(10),
                         Attr("value", 0.0).Until(10)}));
  r.Register(MakeSchema("CenterCropPad", 18, 2, 2, 1, 1, kFamily, CenterCropPad)
                 .Attrs({OptionalAttr("axes", K::kInts)}));
  r.Register(
      MakeSchema("Resize", 10, 1, 4, 1, 1, kFamily, Resize)
          .Attrs({Attr("mode", "nearest"),
                  Attr("coordinate_transformation_mode", "half_pixel").Since(11),
                  Attr("cubic_coeff_a", -0.75).Since(11), Attr("exclude_outside", 0).Since(11),
                  Attr("extrapolation_value", 0.0).Since(11),
                  Attr("nearest_mode", "round_prefer_floor").Since(11),
                  Attr("antialias", 0).Since(18), OptionalAttr("axes", K::kInts).Since(18),
                  Attr("keep_aspect_ratio_policy", "stretch").Since(18)}));
  r.Register(MakeSchema("Upsample", 7, 1, 2, 1, 1, kFamily, Upsample)
                 .Attrs({Attr("mode", "nearest"), RequiredAttr("scales", K::kFloats).Until(8)}));
}

}  // namespace kiln::ir
