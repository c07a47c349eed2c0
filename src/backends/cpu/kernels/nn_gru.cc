// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// oneDNN's RNN primitives for ONNX GRU (float32, forward inference): every direction (forward,
// reverse, bidirectional), initial states, linear_before_reset (oneDNN's lbr_gru), Y and Y_h
// each optional. (LSTM and RNN are Kiln's own: nn_lstm_rnn.cc; oneDNN's LSTM measured 1.4-2.6x
// slower than that on batch-1 models, its GRU as fast as onnxruntime's.)
//
// ONNX and oneDNN both order the gates z, r, h but lay the weights out differently (ONNX
// [D, G*H, I]; oneDNN ldigo): the constant weights are rearranged once at Prepare into oneDNN's
// plain layout, W's and R's biases summed (lbr_gru keeps R's bias of the hidden gate apart), then
// packed into the layout each plan's primitive asks for. A bidirectional Y comes out of oneDNN
// as [T, B, 2H] and is spread into ONNX's [T, 2, B, H].
//
// The reference kernel runs what oneDNN does not express: layout 1, clip, activations other
// than the defaults, computed (non-constant) weights, and runs whose sequence_lens are not all
// the sequence length.
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/cpu_compute.h"
#include "backends/cpu/kernels/dnnl_common.h"

namespace kiln::cpu {
namespace {

// One primitive's descriptors and packed weights.
struct RnnPrimitive {
  dnnl::primitive rnn;
  dnnl::memory::desc x_md, h0_md, w_md, r_md, b_md, y_md, hn_md, scratch_md;
  std::shared_ptr<AlignedBuffer> w, r;  // packed for the primitive
};

// One primitive over every direction; or, for a bidirectional node with two threads or more,
// one single-threaded primitive per direction (`split`), run side by side: each direction's
// steps then run without a barrier per step, each thread keeping its direction's weights in its
// own cache.
struct RecurrentPlan final : Plan {
  bool split = false;
  RnnPrimitive all, dir[2];
  int64_t seq = 0, batch = 0;
};

class GruKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def) {
    for (size_t i : {0, 1, 2, 3, 5}) {
      if (def.input_given(i) && def.input_types[i] != DataType::kFloat32) {
        return def.Fail(code::kFeatureUnsupported, "the onednn GRU kernel takes float32 only");
      }
    }
    for (size_t i = 0; i < def.num_outputs(); ++i) {
      if (def.output_used(i) && def.output_types[i] != DataType::kFloat32) {
        return def.Fail(code::kFeatureUnsupported, "the onednn GRU kernel takes float32 only");
      }
    }
    if (def.attr_int("layout") != 0 || def.has_attr("clip")) {
      return def.Fail(code::kFeatureUnsupported, "layout 1 and clip run on the reference kernel");
    }
    if (!DefaultActivations(def)) {
      return def.Fail(code::kFeatureUnsupported, "activations other than the defaults");
    }
    // Constant weights (and bias): rearranged once.
    for (size_t i : {1, 2, 3}) {
      if (def.input_given(i) && def.constant(i) == nullptr) {
        return def.Fail(code::kFeatureUnsupported, "computed weights");
      }
    }
    if (def.input_dims[1].size() != 3 || def.input_dims[2].size() != 3) {
      return def.Fail(code::kFeatureUnsupported, "W and R of rank 3");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k = std::unique_ptr<GruKernel>(new GruKernel(def, std::move(reference)));
    k->Rearrange();
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  GruKernel(const NodeDef& def, std::unique_ptr<Kernel> reference)
      : DnnlKernel(def, std::move(reference)) {
    const std::string dir = def.attr_string("direction");
    dirs_ = dir == "bidirectional" ? 2 : 1;
    direction_ = dir == "bidirectional" ? dnnl::rnn_direction::bidirectional_concat
                 : dir == "reverse"     ? dnnl::rnn_direction::unidirectional_right2left
                                        : dnnl::rnn_direction::unidirectional_left2right;
    hidden_ = def.input_dims[2][2];
    input_ = def.input_dims[1][2];
    lbr_ = def.attr_int("linear_before_reset") != 0;
    bias_offset_ = (lbr_ ? gates_ + 1 : gates_) * hidden_;
  }

  static bool DefaultActivations(const NodeDef& def) {
    if (def.has_attr("activation_alpha") || def.has_attr("activation_beta")) return false;
    const std::vector<std::string> names = def.attr_strings("activations");
    const std::vector<std::string> want = {"sigmoid", "tanh"};
    for (size_t i = 0; i < names.size(); ++i) {
      std::string n = names[i];
      std::transform(n.begin(), n.end(), n.begin(), [](char c) {
        return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
      });
      if (n != want[i % want.size()]) return false;
    }
    return true;
  }

  // W [D, G*H, I] and R [D, G*H, H] into ldigo; B into ldgo (W's + R's bias; lbr_gru: G+1
  // gates, R's hidden-gate bias last).
  void Rearrange() {
    const int64_t D = dirs_, G = gates_, H = hidden_;
    auto weights = [&](const TensorView& src, int64_t in, std::shared_ptr<AlignedBuffer>& out) {
      out = std::make_shared<AlignedBuffer>(sizeof(float) * D * in * G * H);
      const float* s = src.as<float>();
      auto* o = static_cast<float*>(out->data());
      for (int64_t d = 0; d < D; ++d)
        for (int64_t g = 0; g < G; ++g)
          for (int64_t h = 0; h < H; ++h)
            for (int64_t i = 0; i < in; ++i)
              o[((d * in + i) * G + g) * H + h] = s[(d * G * H + g * H + h) * in + i];
    };
    weights(*def_.constant(1), input_, w_user_);
    weights(*def_.constant(2), H, r_user_);
    const int64_t bias_gates = lbr_ ? G + 1 : G;
    bias_ = std::make_shared<AlignedBuffer>(sizeof(float) * D * bias_gates * H);
    auto* b = static_cast<float*>(bias_->data());
    std::fill(b, b + D * bias_gates * H, 0.0f);
    if (const TensorView* src = def_.input_given(3) ? def_.constant(3) : nullptr) {
      const float* s = src->as<float>();
      for (int64_t d = 0; d < D; ++d) {
        const float* wb = s + d * 2 * G * H;
        const float* rb = wb + G * H;
        for (int64_t g = 0; g < G; ++g) {
          for (int64_t h = 0; h < H; ++h) {
            const int64_t at = g * H + h;
            const bool apart = lbr_ && g == G - 1;  // lbr_gru: R's hidden bias is gate G
            b[(d * bias_gates + g) * H + h] = wb[at] + (apart ? 0.0f : rb[at]);
            if (apart) b[(d * bias_gates + G) * H + h] = rb[at];
          }
        }
      }
    }
  }

  // X's dims, then whether initial_h is given.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr || in[0]->size() != 3 || (*in[0])[2] != input_) {
      return std::nullopt;
    }
    if ((*in[0])[0] == 0 || (*in[0])[1] == 0) return std::nullopt;
    Dims key = *in[0];
    key.push_back(in.size() > 5 && in[5] != nullptr);
    return key;
  }

  bool FloatInput(size_t i) const override { return i != 4; }  // sequence_lens: int32

  // sequence_lens shorter than the sequence (padding) run on the reference kernel.
  bool Takes(const KernelContext& ctx) const override {
    const TensorView* lens = ctx.num_inputs() > 4 ? ctx.input(4) : nullptr;
    if (lens == nullptr || lens->data == nullptr) return true;
    const int64_t seq = ctx.input(0)->dims[0];
    const int32_t* v = lens->as<int32_t>();
    for (int64_t i = 0; i < lens->num_elements(); ++i) {
      if (v[i] != seq) return false;
    }
    return true;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<RecurrentPlan>();
    KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(key, *plan); }), "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  void Create(const Dims& key, RecurrentPlan& p) const {
    const int64_t T = key[0], B = key[1];
    const bool has_h0 = key[3] != 0;
    p.seq = T;
    p.batch = B;
    p.split = dirs_ == 2 && ComputeThreads() >= 2;
    if (!p.split) {
      MakePrimitive(T, B, has_h0, direction_, dirs_, 0, p.all);
      return;
    }
    TeamScope one(1);  // each runs on one thread, beside the other
    MakePrimitive(T, B, has_h0, dnnl::rnn_direction::unidirectional_left2right, 1, 0, p.dir[0]);
    MakePrimitive(T, B, has_h0, dnnl::rnn_direction::unidirectional_right2left, 1, 1, p.dir[1]);
  }

  // The primitive for `dirs` directions starting at direction `first` of the node's weights.
  void MakePrimitive(int64_t T, int64_t B, bool has_h0, dnnl::rnn_direction direction, int64_t dirs,
                     int64_t first, RnnPrimitive& p) const {
    using dnnl::memory;
    using tag = memory::format_tag;
    const auto f32 = memory::data_type::f32;
    const int64_t D = dirs, G = gates_, H = hidden_;
    p.x_md = memory::desc({T, B, input_}, f32, tag::tnc);
    const memory::desc state({1, D, B, H}, f32, tag::ldnc);
    p.h0_md = has_h0 ? state : memory::desc();
    p.y_md = memory::desc({T, B, D * H}, f32, tag::tnc);
    p.hn_md = state;
    const memory::desc w_any({1, D, input_, G, H}, f32, tag::any);
    const memory::desc r_any({1, D, H, G, H}, f32, tag::any);
    p.b_md = memory::desc({1, D, lbr_ ? G + 1 : G, H}, f32, tag::ldgo);
    const auto prop = dnnl::prop_kind::forward_inference;
    const dnnl::primitive_attr attr = UserScratchpadAttr();
    // The primitive of op descriptor `desc` (lbr_gru_forward or gru_forward).
    memory::desc w_md, r_md;
    auto make = [&](auto primitive_tag, const auto& desc) {
      using Primitive = decltype(primitive_tag);
      typename Primitive::primitive_desc pd(desc, attr, Engine());
      w_md = pd.weights_layer_desc();
      r_md = pd.weights_iter_desc();
      p.scratch_md = pd.scratchpad_desc();
      p.rnn = Primitive(pd);
    };
    if (lbr_) {
      make(dnnl::lbr_gru_forward(),
           dnnl::lbr_gru_forward::desc(prop, direction, p.x_md, p.h0_md, w_any, r_any, p.b_md,
                                       p.y_md, p.hn_md));
    } else {
      make(dnnl::gru_forward(), dnnl::gru_forward::desc(prop, direction, p.x_md, p.h0_md, w_any,
                                                        r_any, p.b_md, p.y_md, p.hn_md));
    }
    // The node's directions [first, first + dirs) of the rearranged (ldigo) weights.
    auto pack = [&](int64_t rows, const AlignedBuffer& from, const memory::desc& want) {
      auto out = std::make_shared<AlignedBuffer>(want.get_size());
      const float* src = static_cast<const float*>(from.data()) + first * rows * G * H;
      ReorderOnce(memory::desc({1, D, rows, G, H}, f32, tag::ldigo), src, want, out->data());
      return out;
    };
    p.w_md = w_md;
    p.r_md = r_md;
    p.w = pack(input_, *w_user_, w_md);
    p.r = pack(H, *r_user_, r_md);
  }

  // Runs `p` through `run`: X, the initial state at h0 (null: zeros), results into y/hn, the
  // node's bias from direction `first`.
  void RunPrimitive(const RnnPrimitive& p, DnnlRun& run, const void* x, const float* h0, void* y,
                    float* hn, int64_t first, void* scratch) const {
    const float* bias = static_cast<const float*>(bias_->data()) + first * bias_offset_;
    run.Execute(p.rnn,
                {{DNNL_ARG_SRC_LAYER, &run.Memory(0, p.x_md, x)},
                 {DNNL_ARG_SRC_ITER, h0 ? &run.Memory(1, p.h0_md, h0) : nullptr},
                 {DNNL_ARG_WEIGHTS_LAYER, &run.Memory(3, p.w_md, p.w->data())},
                 {DNNL_ARG_WEIGHTS_ITER, &run.Memory(4, p.r_md, p.r->data())},
                 {DNNL_ARG_BIAS, &run.Memory(6, p.b_md, bias)},
                 {DNNL_ARG_DST_LAYER, &run.Memory(7, p.y_md, y)},
                 {DNNL_ARG_DST_ITER, &run.Memory(8, p.hn_md, hn)}},
                p.scratch_md, scratch);
    run.Wait();
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const RecurrentPlan&>(base);
    const int64_t T = p.seq, B = p.batch, D = dirs_, H = hidden_;
    const size_t state_bytes = sizeof(float) * D * B * H;
    TensorView *y = nullptr, *hn = nullptr;
    if (ctx.num_outputs() > 0 && ctx.output_wanted(0)) {
      KILN_ASSIGN_OR_RETURN(y, kernels::BoundOutput(def_, ctx, 0));
    }
    if (ctx.num_outputs() > 1 && ctx.output_wanted(1)) {
      KILN_ASSIGN_OR_RETURN(hn, kernels::BoundOutput(def_, ctx, 1));
    }
    const TensorView* h0 = ctx.num_inputs() > 5 ? ctx.input(5) : nullptr;
    const float* h0_data = h0 && h0->data ? h0->as<const float>() : nullptr;
    const void* x = ctx.input(0)->data;
    // Y straight into the output with one direction (ONNX's [T, 1, B, H] is oneDNN's [T, B, H]);
    // else through buffers, one per primitive: [T, B, 2H] (one primitive) or two [T, B, H].
    const bool y_direct = y != nullptr && D == 1;
    const size_t y_bytes = sizeof(float) * T * B * D * H;
    if (!p.split) {
      run.Buffers({p.all.scratch_md.get_size(), y_direct ? 0 : y_bytes, hn ? 0 : state_bytes});
      void* y_data = y_direct ? y->data : run.buffer(1);
      RunPrimitive(p.all, run, x, h0_data, y_data,
                   hn ? hn->as<float>() : static_cast<float*>(run.buffer(2)), 0, run.buffer(0));
      if (y != nullptr && !y_direct) Spread(static_cast<const float*>(y_data), H * D, 0, T, B, y);
      return Status::Ok();
    }
    run.Buffers({p.dir[0].scratch_md.get_size(), p.dir[1].scratch_md.get_size(), y_bytes / 2,
                 y_bytes / 2, hn ? 0 : state_bytes});
    float* hn_data = hn ? hn->as<float>() : static_cast<float*>(run.buffer(4));
    void* pieces[5];
    for (size_t i = 0; i < 5; ++i) pieces[i] = run.buffer(i);  // Buffers is per thread
    DnnlRun& helper = run.Helper();
    const int64_t state = B * H;
    ctx.ParallelFor(2, 1, [&](int64_t begin, int64_t end) {
      for (int64_t d = begin; d < end; ++d) {
        RunPrimitive(p.dir[d], d == 0 ? run : helper, x, h0_data ? h0_data + d * state : nullptr,
                     pieces[2 + d], hn_data + d * state, d, pieces[d]);
      }
    });
    if (y != nullptr) {
      for (int64_t d = 0; d < 2; ++d)
        Spread(static_cast<const float*>(pieces[2 + d]), H, d, T, B, y);
    }
    return Status::Ok();
  }

  // Copies [T, B, row] (row = the directions it holds times H, from direction `first`) into
  // ONNX's Y [T, D, B, H].
  void Spread(const float* from, int64_t row, int64_t first, int64_t T, int64_t B,
              TensorView* y) const {
    const int64_t D = dirs_, H = hidden_;
    float* to = y->as<float>();
    for (int64_t t = 0; t < T; ++t)
      for (int64_t b = 0; b < B; ++b)
        for (int64_t k = 0; k < row / H; ++k)
          std::memcpy(to + ((t * D + first + k) * B + b) * H, from + (t * B + b) * row + k * H,
                      sizeof(float) * H);
  }

  static constexpr int64_t gates_ = 3;  // z, r, h
  int64_t dirs_ = 1, hidden_ = 0, input_ = 0;
  bool lbr_ = false;
  dnnl::rnn_direction direction_ = dnnl::rnn_direction::unidirectional_left2right;
  std::shared_ptr<AlignedBuffer> w_user_, r_user_, bias_;
  int64_t bias_offset_ = 0;  // floats of bias_ per direction
};

}  // namespace

void RegisterCpuGruKernel(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  r.Register(kCpuBackend, "", "GRU",
             [reg](const NodeDef& def) { return GruKernel::Make(*reg, def); });
}

}  // namespace kiln::cpu
