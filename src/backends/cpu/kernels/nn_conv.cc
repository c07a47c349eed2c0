// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN convolutions and pools: Conv and Kiln's FusedConv (bias, residual and activation as
// post-ops), MaxPool and AveragePool, float32, 1 to 3 spatial dims (max pools also uint8 and
// int8); and the int8 convolutions QLinearConv and Kiln's FusedQLinearConv (below). (The global
// pools are reductions: reduce.cc.)
//
// The int8 convolutions run oneDNN's u8/s8 x s8 -> s32 convolution (VNNI / AMX-INT8 where the CPU
// has them) with QLinearConv's arithmetic as attributes: per-channel output scales x_scale *
// w_scale / y_scale, x's and y's zero points, the int32 bias in accumulator units. A
// FusedQLinearConv's residual (QLinearAdd of Y and Z, then Relu) continues the post-op chain on
// Y's real value in units of y_scale: round, clip to Y's 8-bit range (Y quantized as the QDQ graph
// stores it), scale by y_scale / out_scale, add (Z - z_zero_point) * z_scale / out_scale (the
// sum post-op over Z copied into dst), Relu, out_zero_point. Nonzero weight zero points, uint8
// weights and scales or zero points that are not constants run on the reference kernel.
// ConvInteger runs the same convolution into int32 with X's zero point given per run (oneDNN's
// run-time zero point; DynamicQuantizeLinear computes it in dynamically quantized models).
//
// Layouts: activations arrive and leave in plain NCHW (ONNX). A convolution lets oneDNN pick its
// source, weights and destination layouts (format_tag::any): constant weights are reordered
// once per layout (PackedWeights), computed weights on every run, and the source into and the
// destination out of the blocked layout on every run. On AVX-512 that (brgconv with two reorders)
// measured 2-6x faster than the plain NCHW convolution oneDNN otherwise runs (gemm over im2col) for
// ResNet-50 layer shapes. A float32 3x3 stride-1 convolution with 48 channels or more in and out
// (32 with large outputs) asks for oneDNN's Winograd algorithm first (0.6-0.8x the direct time:
// WinogradChoice), which takes the blocked layout: its source and destination are then reordered
// even where stored NHWC; its kernels take Relu only, so another activation runs on Y after it
// (ConvPlan::activate_after). Float pools
// run on plain NCHW as it is (oneDNN's pools take it), and channels-last where channels_last keeps
// X or Y NHWC (com.kiln MaxPool / AveragePool, the same flags as FusedConv's X and Y, bf16 storage
// included).
//
// A FusedConv marked by the channels_last pass (kiln_x_nhwc / kiln_y_nhwc / kiln_z_nhwc, see
// src/compiler/passes/README.md) has those tensors stored NHWC (`acdb`; dims still N, C, H, W):
// their memory descriptors say so, and when oneDNN picks NHWC for the convolution (it usually
// does) no reorder runs for them; where it picks gemm over im2col on NCHW instead (some grouped
// convolutions) the convolution is asked for the stored order, and computed in it unless oneDNN
// has only its reference kernel there. In a bf16 model the pass may store them as bf16 too
// (kiln_x_bf16 / kiln_y_bf16 / kiln_z_bf16): the descriptors say bf16, and a bf16 convolution
// then reads and writes them with no conversion. In a float32 model the pass may store them in
// blocks of 8 or 16 channels (kiln_*_cblock: nChw8c / nChw16c), which the convolution is then
// made to compute in (oneDNN would choose NHWC, slower there).
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "base/env.h"
#include "kernels/reference/nn_conv.h"

namespace kiln::cpu {
namespace {

using kernels::ConvAttrs;
using kernels::WindowAttrs;

// A window sized to one input as oneDNN wants it: ONNX's (ir::ResolveWindow, as the op's
// definition and the reference kernel have it), with the pad after grown under ceil_mode to
// reach the last, partial window; nullopt when the window does not fit the input (a node the
// definition refuses, never seen here) or its pads are out of proportion to the input.
//
// oneDNN's convolutions and pools precompute per padded position, so making one takes time in
// proportion to the pads: a 5x5 convolution of a 28-pixel row dilated by 10^5 under SAME pads
// took 0.27 s, by 10^7 (a crafted .om) it would take minutes. A pad beyond 64 + 4x the input's
// extent (no real network has one; SAME pads of an undilated kernel are below its size) leaves
// the node to the reference kernel, whose time grows with the output and the taps only.
struct DnnlWindow {
  kernels::Window w;
  bool ceil_extra = false;  // ceil_mode padded beyond the explicit pads
};

std::optional<DnnlWindow> ResolveDnnlWindow(const WindowAttrs& a, const Dims& in,
                                            const Dims& kernel) {
  auto r = ir::ResolveWindow(a, in, kernel);
  if (!r.ok()) return std::nullopt;
  DnnlWindow d{std::move(r).value()};
  kernels::Window& w = d.w;
  for (size_t i = 0; i < w.rank; ++i) {
    // oneDNN checks out == (in + pad_l + pad_r - extent) / s + 1: a partial last window needs
    // the pad after to reach it.
    const int64_t extent = w.dilation[i] * (kernel[i] - 1) + 1;
    const int64_t needed = (w.out[i] - 1) * w.stride[i] + extent - in[i] - w.pad_begin[i];
    if (needed > w.pad_end[i]) {
      w.pad_end[i] = needed;
      d.ceil_extra = true;
    }
    const int64_t most = 64 + 4 * in[i];
    if (w.pad_begin[i] > most || w.pad_end[i] > most) return std::nullopt;
  }
  return d;
}

// KILN_CPU_WINOGRAD, read once: "0" keeps every float32 convolution direct, "2x3" never takes
// F(4x4, 3x3) (WinogradPrimitive); unset or anything else lets those that gain from it run
// oneDNN's Winograd algorithm (ConvKernel::WinogradChoice).
enum class WinogradSetting : uint8_t { kOff, kSmallTilesOnly, kOn };
WinogradSetting WinogradSettingFromEnv() {
  static const WinogradSetting setting = [] {
    const std::string v = env::Get("KILN_CPU_WINOGRAD");
    return v == "0"     ? WinogradSetting::kOff
           : v == "2x3" ? WinogradSetting::kSmallTilesOnly
                        : WinogradSetting::kOn;
  }();
  return setting;
}

// Which Winograd kernels of oneDNN 2.6 a float32 convolution may take (WinogradChoice).
// F(4x4, 3x3) does 2.25 products per output against F(2x2, 3x3)'s 4, but its transformed
// weights are 36 values per channel pair against 16, read once per run: it pays where the
// output is large. Measured in ResNet-50 on a Zen 4 VM (2 threads): 64 channels at 56x56
// 632 -> 588 us, but 256 channels at 14x14 637 -> 749 us (9.4 MB of weights read from memory).
constexpr int64_t kLargeTilePixels = 28 * 28;
enum class Winograd : uint8_t {
  kNone,        // direct
  kAny,         // any: F(4x4, 3x3) preferred from kLargeTilePixels, else the first offered
  kLargeTiles,  // F(4x4, 3x3) only, else direct
};

// The Winograd convolution for `d`, or nullopt for a direct one: with kLargeTiles F(4x4, 3x3)
// (jit_wino_4x3) only; with kAny the first kernel oneDNN offers, which in 2.6 is F(2x2, 3x3)
// (jit_fp32_wino_2x3) where both take the shape, except that F(4x4, 3x3) is taken when
// `prefer_large` (KILN_CPU_WINOGRAD=2x3: never F(4x4, 3x3)). Throws dnnl::error when oneDNN has
// no Winograd kernel for the shape.
std::optional<dnnl::convolution_forward::primitive_desc> WinogradPrimitive(
    const dnnl::convolution_forward::desc& d, const dnnl::primitive_attr& attr, Winograd choice,
    bool prefer_large) {
  const bool large_allowed = WinogradSettingFromEnv() != WinogradSetting::kSmallTilesOnly;
  if (choice == Winograd::kLargeTiles && !large_allowed) return std::nullopt;
  dnnl::convolution_forward::primitive_desc pd(d, attr, Engine());
  if (choice == Winograd::kAny && !(prefer_large && large_allowed)) return pd;
  do {
    if (std::strstr(pd.impl_info_str(), "wino_4x3") != nullptr) return pd;
  } while (pd.next_impl());
  if (choice == Winograd::kLargeTiles) return std::nullopt;
  return dnnl::convolution_forward::primitive_desc(d, attr, Engine());
}

dnnl::memory::dims Minus1(const Dims& d) {
  dnnl::memory::dims out;
  for (int64_t v : d) out.push_back(v - 1);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Conv and FusedConv.

struct ConvPlan final : ReorderedPlan {
  dnnl::convolution_forward conv;
  // The residual as stored (plain NCHW, or NHWC where the node is marked), and its reorder into
  // the primitive's dst when the layouts differ. x_md and y_md are also NHWC where marked.
  dnnl::memory::desc z_md;
  bool reorder_z = false;
  dnnl::reorder z_in;
  dnnl::memory::desc zp_md;  // ConvInteger's run-time zero point of X (one int32), or empty
  // A Winograd convolution whose activation oneDNN 2.6's Winograd kernels do not take (they
  // take Relu only): the activation runs on Y in place after the convolution.
  bool activate_after = false;
  dnnl::eltwise_forward activation;
};

// Where a convolution node's tensors are: Conv / FusedConv (X, W, B, Z), QLinearConv /
// FusedQLinearConv (X at 0, W at 3, B at 8, Z at 9) or ConvInteger (X, W, X's zero point at 2;
// no B or Z: SIZE_MAX).
struct ConvInputs {
  size_t x = 0, w = 1, b = 2, z = 3;
  size_t x_zero_point = SIZE_MAX;  // ConvInteger's, read per run
};

// A quantized convolution's constants, as oneDNN's int8 convolution takes them.
struct QuantConv {
  dnnl::memory::data_type x_dt, y_dt;  // X's and Y's (= Z's and the output's) 8-bit types
  std::vector<float> scales;           // x_scale * w_scale[c] / y_scale: one, or one per channel
  int32_t x_zp = 0, y_zp = 0;
  // With a residual: y_scale / out_scale, z_scale / out_scale, Z's and the output's zero points.
  float y_ratio = 1, z_ratio = 1;
  int32_t z_zp = 0, out_zp = 0;
};

// What the int8 convolution takes of a ConvInteger: int8 W whose zero points, when given, are
// constant zeros; X's zero point (one value) is read per run. The output is int32, unscaled.
Result<QuantConv> ReadIntegerConv(const NodeDef& def) {
  if (def.input_types[1] != DataType::kInt8) {
    return def.Fail(code::kFeatureUnsupported, "the onednn int8 convolution needs int8 weights");
  }
  if (!ZeroPointsAreZero(def, 3)) {
    return def.Fail(code::kFeatureUnsupported,
                    "the onednn int8 convolution needs constant weight zero points of 0");
  }
  QuantConv q;
  q.x_dt = DnnlType(def.input_types[0]);
  q.y_dt = dnnl::memory::data_type::s32;
  return q;
}

// The constants of a QLinearConv / FusedQLinearConv (the op's definition has checked their
// shapes and types); kFeatureUnsupported for what the oneDNN kernel leaves to the reference one.
Result<QuantConv> ReadQuantConv(const NodeDef& def) {
  auto decline = [&](const char* what) {
    return def.Fail(code::kFeatureUnsupported, "the onednn int8 convolution needs ", what);
  };
  QuantConv q;
  q.x_dt = DnnlType(def.input_types[0]);
  q.y_dt = DnnlType(def.output_types[0]);
  if (def.input_types[3] != DataType::kInt8) return decline("int8 weights");
  const TensorView* ws = def.input_given(4) ? def.constant(4) : nullptr;
  auto xs = ConstScale(def, 1), ys = ConstScale(def, 6);
  auto xz = ConstZeroPoint(def, 2), yz = ConstZeroPoint(def, 7);
  if (ws == nullptr || ws->dtype != DataType::kFloat32 || !xs || !ys || !xz || !yz) {
    return decline("constant scales and zero points");
  }
  if (!ZeroPointsAreZero(def, 5)) return decline("weight zero points of 0 (symmetric weights)");
  for (int64_t c = 0; c < ws->num_elements(); ++c) {
    // As the reference computes the multiplier: each step rounded to float.
    q.scales.push_back(static_cast<float>(*xs * ws->as<const float>()[c]) / *ys);
  }
  if (q.scales.empty()) return decline("weight scales");
  if (def.input_given(8) && def.input_types[8] != DataType::kInt32) return decline("an int32 bias");
  q.x_zp = *xz;
  q.y_zp = *yz;
  if (def.num_inputs() > 9 && def.input_given(9)) {
    auto zs = ConstScale(def, 10), os = ConstScale(def, 12);
    auto zz = ConstZeroPoint(def, 11), oz = ConstZeroPoint(def, 13);
    if (!zs || !os || !zz || !oz) return decline("constant residual scales and zero points");
    q.y_ratio = *ys / *os;
    q.z_ratio = *zs / *os;
    q.z_zp = *zz;
    q.out_zp = *oz;
  }
  return q;
}

class ConvKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    const bool quantized = def.op_type == "QLinearConv" || def.op_type == "FusedQLinearConv";
    std::optional<QuantConv> quant;
    ConvInputs in;
    if (quantized) {
      KILN_ASSIGN_OR_RETURN(quant, ReadQuantConv(def));
      in = ConvInputs{0, 3, 8, 9};
    } else if (def.op_type == "ConvInteger") {
      KILN_ASSIGN_OR_RETURN(quant, ReadIntegerConv(def));
      in = ConvInputs{0, 1, SIZE_MAX, SIZE_MAX, 2};
    } else {
      KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    }
    ActivationAttrs act;
    if (def.domain == kKilnDomain) {
      KILN_ASSIGN_OR_RETURN(act, ReadDnnlActivation(def));
    }
    const size_t rank = def.input_dims.size() > in.w ? def.input_dims[in.w].size() : 0;
    if (rank < 3 || rank > 5) {
      return def.Fail(code::kFeatureUnsupported, "W of rank ", rank,
                      ": the onednn convolution takes 1 to 3 spatial dims");
    }
    // A FusedConv's layout flags come with a 2-D convolution (its definition's rule).
    const kernels::ConvLayout layout = kernels::ReadConvLayout(def);
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k = std::unique_ptr<ConvKernel>(new ConvKernel(def, std::move(reference),
                                                        kernels::ReadConvAttrs(def), act, layout,
                                                        def.constant(in.w), in, std::move(quant)));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  ConvKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, ConvAttrs attrs,
             ActivationAttrs act, kernels::ConvLayout layout, const TensorView* w, ConvInputs in,
             std::optional<QuantConv> quant)
      : DnnlKernel(def, std::move(reference)),
        attrs_(std::move(attrs)),
        act_(act),
        layout_(layout),
        in_(in),
        quant_(std::move(quant)) {
    if (w != nullptr) w_const_ = *w;
  }

  // A quantized convolution's inputs are 8-bit, its scales constants: none is float32.
  bool FloatInput(size_t i) const override { return !quant_; }

  // ConvInteger: X's zero point, when given, holds one value.
  bool Takes(const KernelContext& ctx) const override {
    if (in_.x_zero_point >= ctx.num_inputs()) return true;
    const TensorView* xz = ctx.input(in_.x_zero_point);
    return xz == nullptr || xz->num_elements() == 1;
  }

  // The destination's dims (Y's, from the window the definition sizes Y with) and the window
  // for X and W dims `x` and `wd` (which fit: the definition's rules); nullopt for what oneDNN
  // does not take here (more than 3 spatial dims, an empty Y).
  std::optional<std::pair<Dims, kernels::Window>> Shape(const Dims& x, const Dims& wd) const {
    if (wd.size() < 3 || wd.size() > 5) return std::nullopt;
    const Dims kernel(wd.begin() + 2, wd.end());
    auto w = ResolveDnnlWindow(attrs_.window, Dims(x.begin() + 2, x.end()), kernel);
    if (!w) return std::nullopt;
    Dims y = {x[0], wd[0]};
    y.insert(y.end(), w->w.out.begin(), w->w.out.end());
    if (kernels::NumElements(y) == 0) return std::nullopt;
    return std::make_pair(std::move(y), std::move(w->w));
  }

  // X, W, then whether B, the residual Z and X's run-time zero point are given.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    auto at = [&](size_t i) { return i < in.size() ? in[i] : nullptr; };
    const Dims *x = at(in_.x), *w = at(in_.w), *b = at(in_.b), *z = at(in_.z);
    const Dims* xz = at(in_.x_zero_point);
    if (x == nullptr || w == nullptr) return std::nullopt;
    const Dims& wd = *w;
    if (w_const_.data != nullptr && wd != w_const_.dims) return std::nullopt;
    auto shape = Shape(*x, wd);
    if (!shape) return std::nullopt;
    // A residual that broadcasts runs on the reference kernel: the sum post-op wants it whole.
    // The layout is fixed per node, so it need not be part of the key.
    if (z && *z != shape->first) return std::nullopt;
    Dims key;
    AppendKey(key, x);
    AppendKey(key, w);
    key.push_back(b != nullptr);
    key.push_back(z != nullptr);
    key.push_back(xz != nullptr);
    return key;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto dims = SplitKey(key, 2);
    const Dims &x = *dims[0], &wd = *dims[1];
    const bool has_b = key[key.size() - 3] != 0, has_z = key[key.size() - 2] != 0;
    const bool has_xz = key.back() != 0;
    auto shape = Shape(x, wd);
    if (!shape) return def_.Fail(code::kFeatureUnsupported, "X does not fit W");
    const auto& [y, win] = *shape;
    auto plan = std::make_shared<ConvPlan>();
    KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(x, wd, y, win, has_b, has_z, has_xz, *plan); }),
                         "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  void Create(const Dims& x, const Dims& w_dims, const Dims& y, const kernels::Window& win,
              bool has_b, bool has_z, bool has_xz, ConvPlan& p) const {
    using dnnl::memory;
    using tag = memory::format_tag;
    const int64_t g = attrs_.group;
    Dims wd = w_dims;
    if (g > 1) {  // [g, O/g, C/g, k...]: the same bytes as ONNX's [O, C/g, k...]
      wd[0] /= g;
      wd.insert(wd.begin(), g);
    }
    using dt = memory::data_type;
    // Stored types (X, Y / Z, W, B) and the types the primitive computes in.
    const dt x_dt = quant_ ? quant_->x_dt : dt::f32, y_dt = quant_ ? quant_->y_dt : dt::f32;
    const dt w_dt = quant_ ? dt::s8 : dt::f32, b_dt = quant_ ? dt::s32 : dt::f32;
    const dt in = quant_ ? x_dt : MatrixInputType(def_), w_in = quant_ ? dt::s8 : in;
    auto stored = [](const Dims& d, bool nhwc, int64_t block, dt type) {
      return nhwc ? memory::desc(ToDnnl(d), type, ChannelsLastTag(d.size(), block))
                  : PlainDesc(d, type);
    };
    // bf16 storage (kiln_*_bf16) of float tensors kept NHWC, or their channel blocks.
    p.x_md = stored(x, layout_.x, layout_.x_block, layout_.x_bf16 ? dt::bf16 : x_dt);
    p.y_md = stored(y, layout_.y, layout_.y_block, layout_.y_bf16 ? dt::bf16 : y_dt);
    p.z_md = stored(y, layout_.z, layout_.z_block, layout_.z_bf16 ? dt::bf16 : y_dt);
    p.w_user_md = PlainDesc(wd, w_dt);
    p.b_md = has_b ? PlainDesc({w_dims[0]}, b_dt) : memory::desc();
    // A bf16 product writes a bf16-stored Y directly (f32 sums rounded once); one in f32 (a CPU
    // without bf16 arithmetic) writes f32 and converts on the way out.
    const dt dst_dt = layout_.y_bf16 && in == dt::bf16 ? dt::bf16 : y_dt;
    // X or Y stored in channel blocks is given as it is, and the other (not in blocks) computed in
    // the same blocks when X is (a model's first convolution, plain X, writes the blocks
    // directly): left to choose (tag::any), oneDNN takes NHWC (brgconv), 1.3-3.5x slower than its
    // blocked kernels at batch 8 (MobileNetV2's layers; channels_last blocks only such models'
    // tensors, all in one block size). What is not stored so is reordered to and from; where
    // oneDNN has only its reference kernel for that (a 5x5 depthwise one from blocks to NHWC took
    // 55 ms instead of 0.2), both are left to choose.
    memory::desc src_any = layout_.x_block != 0 ? p.x_md : memory::desc(ToDnnl(x), in, tag::any);
    memory::desc dst_any =
        layout_.y_block != 0 || layout_.x_block != 0
            ? memory::desc(
                  ToDnnl(y), dst_dt,
                  ChannelsLastTag(4, layout_.y_block != 0 ? layout_.y_block : layout_.x_block))
            : memory::desc(ToDnnl(y), dst_dt, tag::any);
    const memory::desc w_any(ToDnnl(wd), w_in, tag::any);
    auto desc = [&](dnnl::algorithm alg) {
      return dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference, alg, src_any, w_any, p.b_md, dst_any,
          ToDnnl(win.stride), Minus1(win.dilation), ToDnnl(win.pad_begin), ToDnnl(win.pad_end));
    };
    dnnl::primitive_attr attr = UserScratchpadAttr();
    dnnl::post_ops ops;
    if (in_.x_zero_point != SIZE_MAX) {  // ConvInteger: int32 sums, X's zero point per run
      if (has_xz) {
        attr.set_zero_points(DNNL_ARG_SRC, 0, {DNNL_RUNTIME_S32_VAL});
        p.zp_md = PlainDesc({1}, memory::data_type::s32);
      }
    } else if (quant_) {
      SetQuantAttrs(*quant_, has_z, attr, ops);
    } else if (has_z) {
      ops.append_sum(1.f);
    }
    AppendActivation(act_, ops);
    attr.set_post_ops(ops);
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    const Winograd winograd =
        quant_ || in != dt::f32 ? Winograd::kNone : WinogradChoice(x, w_dims, win);
    // (2-D here: WinogradChoice says kNone for any other rank)
    const bool large =
        winograd != Winograd::kNone && x[0] * win.out[0] * win.out[1] >= kLargeTilePixels;
    auto winograd_pd = [&](const dnnl::primitive_attr& a, Winograd choice) {
      try {  // oneDNN has Winograd kernels for some ISAs, layouts and post-op chains only
        return WinogradPrimitive(desc(dnnl::algorithm::convolution_winograd), a, choice, large);
      } catch (const dnnl::error&) {
        return std::optional<dnnl::convolution_forward::primitive_desc>();
      }
    };
    std::optional<dnnl::eltwise_forward::desc> after;  // the activation, run after
    if (winograd != Winograd::kNone) {
      pd = winograd_pd(attr, winograd);
      // The activation after F(4x4, 3x3) only: F(2x2)'s smaller gain does not pay for the extra
      // pass and for weights held twice (Winograd's transformed ones cannot stand in for the
      // originals, which stay resident): YOLOv8n's 18 such layers saved ~0.7 ms for 10 MB.
      if (!pd && large) after = SeparateActivation(p.y_md);
      if (after) {
        dnnl::primitive_attr bare = UserScratchpadAttr();
        dnnl::post_ops sum;
        if (has_z) sum.append_sum(1.f);
        bare.set_post_ops(sum);
        pd = winograd_pd(bare, Winograd::kLargeTiles);
      }
    }
    if (!pd) {
      after.reset();
      pd.emplace(desc(dnnl::algorithm::convolution_direct), attr, Engine());
      if ((layout_.x_block != 0 || layout_.y_block != 0) && IsReferenceImpl(*pd)) {
        src_any = memory::desc(ToDnnl(x), in, tag::any);
        dst_any = memory::desc(ToDnnl(y), dst_dt, tag::any);
        pd.emplace(desc(dnnl::algorithm::convolution_direct), attr, Engine());
      } else if ((layout_.x || layout_.y) && IsGemmImpl(*pd)) {
        // Left to choose, oneDNN 2.6 takes gemm over im2col on plain NCHW for some grouped
        // convolutions (ShuffleNet's 1x1 of 24 -> 112 channels in 4 groups, 6 in per group:
        // 154 us plus a reorder of X and Y), where its jit kernel on the NHWC that channels_last
        // stores X and Y in takes 48 us: asked for the stored order, it keeps what is not ref.
        src_any = layout_.x ? memory::desc(ToDnnl(x), in, ChannelsLastTag(x.size(), 0)) : src_any;
        dst_any =
            layout_.y ? memory::desc(ToDnnl(y), dst_dt, ChannelsLastTag(y.size(), 0)) : dst_any;
        try {
          dnnl::convolution_forward::primitive_desc stored_pd(
              desc(dnnl::algorithm::convolution_direct), attr, Engine());
          if (!IsReferenceImpl(stored_pd)) pd = stored_pd;
        } catch (const dnnl::error&) {
          // no implementation for the stored order: gemm stays
        }
      }
    }
    p.conv = dnnl::convolution_forward(*pd);
    p.PlanReorders(*pd, w_const_.data, packed_);
    if (after) {
      dnnl::eltwise_forward::primitive_desc epd(*after, UserScratchpadAttr(), Engine());
      if (epd.scratchpad_desc().get_size() > p.scratch_md.get_size()) {
        p.scratch_md = epd.scratchpad_desc();
      }
      p.activation = dnnl::eltwise_forward(epd);
      p.activate_after = true;
    }
    p.reorder_z = has_z && p.z_md != p.dst_md;
    if (p.reorder_z) p.z_in = MakeReorder(p.z_md, p.dst_md, p.scratch_md);
  }

  // Which Winograd kernel a float32 convolution of X dims `x` by W dims `w` asks oneDNN for:
  // 2-D, 3x3, stride and dilation 1, one group (KILN_CPU_WINOGRAD=0: none ever).
  // - kAny from 48 channels in and out and 8x8 outputs per image. F(2x2, 3x3) (2.25x fewer
  //   products, blocked layouts reordered to and from) measured 0.6-0.8x the direct time there
  //   (Sapphire Rapids, 2 threads, NHWC tensors, reorders included; ResNet-50's 3x3 layers
  //   0.63-0.81), 1.1-7x with fewer channels; at 7x7 (ResNet-50's 512-channel layers) 0.98, for
  //   weights 16/9 the size of the direct ones (+22 MB resident).
  // - From kLargeTilePixels output pixels (N x H x W) F(4x4, 3x3) is preferred (WinogradPrimitive)
  //   and, as kLargeTiles, taken with fewer channels while the products per tile outweigh the
  //   transforms: C_in x C_out / (C_in + C_out) >= 16 (32 -> 32, 96 -> 24, not 24 -> 24). With
  //   reorders, on a Zen 4 VM, F(4x4) / direct: 32 -> 32 at 40x40 / 80x80 / 160x160 0.72 / 0.62 /
  //   0.61, 96 -> 24 at 40x40 / 80x80 / 160x160 0.86 / 0.77 / 0.72 (20x20: 1.37), 24 -> 24 at
  //   160x160 0.94, 16 -> 16 at 80x80 1.05 (docs/dependencies.md).
  Winograd WinogradChoice(const Dims& x, const Dims& w, const kernels::Window& win) const {
    constexpr int64_t kMinChannels = 48, kMinOutputPixels = 64, kMinProductsPerTransform = 16;
    if (WinogradSettingFromEnv() == WinogradSetting::kOff || attrs_.group != 1 || x.size() != 4 ||
        w.size() != 4) {
      return Winograd::kNone;
    }
    if (w[2] != 3 || w[3] != 3) return Winograd::kNone;
    for (size_t i = 0; i < win.rank; ++i) {
      if (win.stride[i] != 1 || win.dilation[i] != 1) return Winograd::kNone;
    }
    const int64_t channels = std::min(x[1], w[0]), pixels = win.out[0] * win.out[1];
    if (channels >= kMinChannels && pixels >= kMinOutputPixels) return Winograd::kAny;
    if (x[1] * w[0] >= kMinProductsPerTransform * (x[1] + w[0]) &&
        x[0] * pixels >= kLargeTilePixels) {
      return Winograd::kLargeTiles;
    }
    return Winograd::kNone;
  }

  // The fused activation as one oneDNN eltwise over Y (`y_md`), when it is one step (not
  // HardSigmoid's two, nor with a post affine); nullopt otherwise or without an activation.
  std::optional<dnnl::eltwise_forward::desc> SeparateActivation(
      const dnnl::memory::desc& y_md) const {
    dnnl::post_ops ops;
    AppendActivation(act_, ops);
    if (ops.len() != 1 || ops.kind(0) != dnnl::primitive::kind::eltwise) return std::nullopt;
    float scale = 1.f, alpha = 0.f, beta = 0.f;
    dnnl::algorithm alg;
    ops.get_params_eltwise(0, scale, alg, alpha, beta);
    return dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, y_md, alpha, beta);
  }

  // QLinearConv's arithmetic as attributes of the int8 convolution (see the file comment): the
  // output scales, the zero points, and with a residual the post-ops before the activation.
  static void SetQuantAttrs(const QuantConv& q, bool has_z, dnnl::primitive_attr& attr,
                            dnnl::post_ops& ops) {
    attr.set_output_scales(q.scales.size() > 1 ? 1 << 1 : 0, q.scales);
    if (q.x_zp != 0) attr.set_zero_points(DNNL_ARG_SRC, 0, {q.x_zp});
    const int32_t dst_zp = has_z ? q.out_zp : q.y_zp;
    if (dst_zp != 0) attr.set_zero_points(DNNL_ARG_DST, 0, {dst_zp});
    if (!has_z) return;
    const bool s8 = q.y_dt == dnnl::memory::data_type::s8;
    const float lo = s8 ? -128.f : 0.f, hi = s8 ? 127.f : 255.f;
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_round, 0.f, 0.f);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_clip, lo - q.y_zp, hi - q.y_zp);
    ops.append_eltwise(1.f, dnnl::algorithm::eltwise_linear, q.y_ratio, 0.f);
    ops.append_sum(q.z_ratio, q.z_zp, q.y_dt);
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const ConvPlan&>(base);
    auto at = [&](size_t i) { return i < ctx.num_inputs() ? ctx.input(i) : nullptr; };
    const TensorView* x = ctx.input(in_.x);
    const TensorView* b = at(in_.b);
    const TensorView* z = at(in_.z);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    // The residual is reordered straight into dst, except when dst is Y itself and Z shares
    // Y's buffer in another layout: then through a buffer of its own (buffer 4).
    const bool z_via_buffer = z != nullptr && p.reorder_z && !p.reorder_dst && z->data == y->data;
    auto residual = [&](const dnnl::memory& dst, void* scratch) {
      if (z == nullptr) return;  // the sum post-op adds what dst holds
      if (z_via_buffer) {
        run.Execute(p.z_in,
                    {{DNNL_ARG_FROM, &run.Memory(6, p.z_md, z->data)},
                     {DNNL_ARG_TO, &run.Memory(7, p.dst_md, run.buffer(4))}},
                    p.scratch_md, scratch);
        run.Wait();
        std::memcpy(y->data, run.buffer(4), p.dst_md.get_size());
      } else if (p.reorder_z) {
        run.Execute(p.z_in, {{DNNL_ARG_FROM, &run.Memory(6, p.z_md, z->data)}, {DNNL_ARG_TO, &dst}},
                    p.scratch_md, scratch);
      } else if (z->data != dst.get_data_handle()) {
        std::memcpy(dst.get_data_handle(), z->data, p.dst_md.get_size());
      }
    };
    int32_t x_zp = 0;  // ConvInteger's zero point of X, as the primitive takes it
    const dnnl::memory* zp = nullptr;
    if (!p.zp_md.is_zero()) {
      x_zp = RunTimeZeroPoint(*ctx.input(in_.x_zero_point));
      zp = &run.Memory(9, p.zp_md, &x_zp);
    }
    RunReordered(p, p.conv, run, *x, *ctx.input(in_.w), b, *y,
                 z_via_buffer ? p.dst_md.get_size() : 0, residual, zp);
    if (p.activate_after) {
      const dnnl::memory& y_mem = run.Memory(1, p.y_md, y->data);
      run.Execute(p.activation, {{DNNL_ARG_SRC, &y_mem}, {DNNL_ARG_DST, &y_mem}}, p.scratch_md,
                  run.buffer(3));
      run.Wait();
    }
    return Status::Ok();
  }

  ConvAttrs attrs_;
  ActivationAttrs act_;
  kernels::ConvLayout layout_;
  ConvInputs in_;
  std::optional<QuantConv> quant_;  // set for QLinearConv, FusedQLinearConv and ConvInteger
  PackedWeights* PackedInput(size_t i) const override {
    return i == in_.w && w_const_.data != nullptr ? &packed_ : nullptr;
  }

  TensorView w_const_;  // constant W (valid for the kernel's lifetime), or data == null
  mutable PackedWeights packed_;
};

// ---------------------------------------------------------------------------------------------
// Pools.

enum class PoolKind { kMax, kAverage };

struct PoolPlan final : Plan {
  dnnl::memory::desc x_md, y_md, scratch_md;  // X and Y as stored
  dnnl::pooling_forward pool;
  // 8-bit pools, and pools with a channels-last X or Y, run channels-last (oneDNN has no fast
  // plain-layout 8-bit pool) in X's stored type: the tensors as the pool takes them, and the
  // reorders to and from them where they differ from X's and Y's storage.
  dnnl::memory::desc src_md, dst_md;
  bool reorder_src = false, reorder_dst = false;
  dnnl::reorder src_in, dst_out;
};

class PoolKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              PoolKind kind) {
    if (kind == PoolKind::kMax && def.output_used(1)) {
      return def.Fail(code::kFeatureUnsupported,
                      "the onednn max pool does not write the Indices output");
    }
    // A max pool also takes 8-bit tensors (a quantized model's, qdq_fusion).
    const DataType t = def.input_types.empty() ? DataType::kUndefined : def.input_types[0];
    const bool int8 = kind == PoolKind::kMax && (t == DataType::kUint8 || t == DataType::kInt8);
    if (!int8) KILN_RETURN_IF_ERROR(RequireFloat32(def), "");
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    KILN_ASSIGN_OR_RETURN(kernels::PoolAttrs a,
                          ReadAttrs(def, kind == PoolKind::kMax ? kernels::PoolKind::kMax
                                                                : kernels::PoolKind::kAverage));
    auto k = std::unique_ptr<PoolKernel>(
        new PoolKernel(def, std::move(reference), kind, std::move(a.window), a.count_include_pad,
                       DnnlType(int8 ? t : DataType::kFloat32), kernels::ReadConvLayout(def)));
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  PoolKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, PoolKind kind,
             WindowAttrs window, bool include_pad, dnnl::memory::data_type type,
             kernels::ConvLayout layout)
      : DnnlKernel(def, std::move(reference)),
        kind_(kind),
        window_(std::move(window)),
        include_pad_(include_pad),
        type_(type),
        layout_(layout) {}

  bool FloatInput(size_t i) const override { return type_ == dnnl::memory::data_type::f32; }

  // The pool's attributes (kernels/attrs.h), declining what oneDNN's pooling cannot express
  // (dilations, more than 3 spatial dims). Malformed attributes never get here: the op's
  // definition rejects them.
  static Result<kernels::PoolAttrs> ReadAttrs(const NodeDef& def, kernels::PoolKind kind) {
    kernels::PoolAttrs a = kernels::ReadPoolAttrs(def, kind);
    for (int64_t d : a.window.dilations) {
      if (d != 1) {
        return def.Fail(code::kFeatureUnsupported, "the onednn pool takes no dilations; got ",
                        kernels::DimsString(a.window.dilations));
      }
    }
    if (a.window.kernel_shape.size() > 3) {
      return def.Fail(code::kFeatureUnsupported, "kernel_shape ",
                      kernels::DimsString(a.window.kernel_shape),
                      ": the onednn pool takes 1 to 3 spatial dims");
    }
    return a;
  }

  std::optional<std::pair<Dims, kernels::Window>> Shape(const Dims& x) const {
    if (x.size() < 3 || x.size() > 5) return std::nullopt;
    const Dims in(x.begin() + 2, x.end());
    auto r = ResolveDnnlWindow(window_, in, window_.kernel_shape);
    if (!r) return std::nullopt;
    // A window wholly in the padding has no value in oneDNN's max pool; count_include_pad
    // counts ONNX's explicit pads only, not the ceil_mode extension.
    if (include_pad_ && r->ceil_extra) return std::nullopt;
    kernels::Window w = std::move(r->w);
    for (size_t i = 0; i < in.size(); ++i) {
      if (w.pad_begin[i] >= window_.kernel_shape[i] || w.pad_end[i] >= window_.kernel_shape[i]) {
        return std::nullopt;
      }
    }
    Dims y = {x[0], x[1]};
    y.insert(y.end(), w.out.begin(), w.out.end());
    return std::make_pair(std::move(y), std::move(w));
  }

  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr || !Shape(*in[0])) return std::nullopt;
    return *in[0];
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& x) const override {
    auto shape = Shape(x);
    if (!shape) return def_.Fail(code::kFeatureUnsupported, "no onednn window");
    const auto& [y, win] = *shape;
    auto plan = std::make_shared<PoolPlan>();
    using dt = dnnl::memory::data_type;
    // X and Y as stored: plain, or NHWC (bf16, or channel blocks) where channels_last marks them.
    const dt x_dt = layout_.x_bf16 ? dt::bf16 : type_, y_dt = layout_.y_bf16 ? dt::bf16 : type_;
    plan->x_md =
        layout_.x ? dnnl::memory::desc(ToDnnl(x), x_dt, ChannelsLastTag(x.size(), layout_.x_block))
                  : PlainDesc(x, type_);
    plan->y_md =
        layout_.y ? dnnl::memory::desc(ToDnnl(y), y_dt, ChannelsLastTag(y.size(), layout_.y_block))
                  : PlainDesc(y, type_);
    const Dims& kernel = window_.kernel_shape;
    dnnl::algorithm alg = dnnl::algorithm::pooling_max;
    if (kind_ == PoolKind::kAverage) {
      alg = include_pad_ ? dnnl::algorithm::pooling_avg_include_padding
                         : dnnl::algorithm::pooling_avg_exclude_padding;
    }
    const bool channels_last =
        layout_.x || layout_.y || (type_ != dt::f32 && (x.size() == 4 || x.size() == 5));
    // The pool computes in X's stored type (a max is exact in it), except that an average of
    // a bf16 X into a float32 Y is taken in float32 (rounded once, as Y is stored).
    const dt pool_dt =
        kind_ == PoolKind::kAverage && layout_.x_bf16 && !layout_.y_bf16 ? dt::f32 : x_dt;
    // Channels-last pools compute in X's stored order (Y's when only Y is channels-last).
    const auto order = ChannelsLastTag(x.size(), layout_.x ? layout_.x_block : layout_.y_block);
    plan->src_md = channels_last ? dnnl::memory::desc(ToDnnl(x), pool_dt, order) : plan->x_md;
    plan->dst_md = channels_last ? dnnl::memory::desc(ToDnnl(y), pool_dt, order) : plan->y_md;
    plan->reorder_src = plan->src_md != plan->x_md;
    plan->reorder_dst = plan->dst_md != plan->y_md;
    KILN_RETURN_IF_ERROR(
        Guard(def_,
              [&] {
                dnnl::pooling_forward::desc desc(
                    dnnl::prop_kind::forward_inference, alg, plan->src_md, plan->dst_md,
                    ToDnnl(win.stride), ToDnnl(kernel), ToDnnl(win.pad_begin), ToDnnl(win.pad_end));
                dnnl::pooling_forward::primitive_desc pd(desc, UserScratchpadAttr(), Engine());
                plan->pool = dnnl::pooling_forward(pd);
                plan->scratch_md = pd.scratchpad_desc();
                if (plan->reorder_src) {
                  plan->src_in = MakeReorder(plan->x_md, plan->src_md, plan->scratch_md);
                }
                if (plan->reorder_dst) {
                  plan->dst_out = MakeReorder(plan->dst_md, plan->y_md, plan->scratch_md);
                }
              }),
        "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const PoolPlan&>(base);
    KILN_ASSIGN_OR_RETURN(TensorView * y, kernels::BoundOutput(def_, ctx, 0));
    run.Buffers({p.scratch_md.get_size(), p.reorder_src ? p.src_md.get_size() : 0,
                 p.reorder_dst ? p.dst_md.get_size() : 0},
                0);
    void* scratch = run.buffer(0);
    const dnnl::memory& x = run.Memory(0, p.x_md, ctx.input(0)->data);
    const dnnl::memory& out = run.Memory(1, p.y_md, y->data);
    const dnnl::memory& src = p.reorder_src ? run.Memory(2, p.src_md, run.buffer(1)) : x;
    const dnnl::memory& dst = p.reorder_dst ? run.Memory(3, p.dst_md, run.buffer(2)) : out;
    if (p.reorder_src) {
      run.Execute(p.src_in, {{DNNL_ARG_FROM, &x}, {DNNL_ARG_TO, &src}}, p.scratch_md, scratch);
    }
    run.Execute(p.pool, {{DNNL_ARG_SRC, &src}, {DNNL_ARG_DST, &dst}}, p.scratch_md, scratch);
    if (p.reorder_dst) {
      run.Execute(p.dst_out, {{DNNL_ARG_FROM, &dst}, {DNNL_ARG_TO, &out}}, p.scratch_md, scratch);
    }
    run.Wait();
    return Status::Ok();
  }

  PoolKind kind_;
  WindowAttrs window_;
  bool include_pad_;
  dnnl::memory::data_type type_;  // the tensors' (f32; u8 or s8 for a max pool)
  kernels::ConvLayout layout_;    // com.kiln's pools: X and Y channels-last (and bf16)
};

}  // namespace

void RegisterCpuConvKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  auto conv = [reg](const NodeDef& def) { return ConvKernel::Make(*reg, def); };
  r.Register(kCpuBackend, "", "Conv", conv);
  r.Register(kCpuBackend, kKilnDomain, "FusedConv", conv);
  r.Register(kCpuBackend, "", "QLinearConv", conv);
  r.Register(kCpuBackend, kKilnDomain, "FusedQLinearConv", conv);
  r.Register(kCpuBackend, "", "ConvInteger", conv);
  auto pool = [reg](PoolKind kind) -> KernelFactory {
    return [reg, kind](const NodeDef& def) { return PoolKernel::Make(*reg, def, kind); };
  };
  r.Register(kCpuBackend, "", "MaxPool", pool(PoolKind::kMax));
  r.Register(kCpuBackend, "", "AveragePool", pool(PoolKind::kAverage));
  r.Register(kCpuBackend, kKilnDomain, "MaxPool", pool(PoolKind::kMax));
  r.Register(kCpuBackend, kKilnDomain, "AveragePool", pool(PoolKind::kAverage));
}

}  // namespace kiln::cpu
