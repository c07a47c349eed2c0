// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// ONNX LSTM, GRU and RNN (float32, the default activations: sigmoid/tanh/tanh, sigmoid/tanh,
// tanh) as Kiln's own kernels: every direction, both layouts, sequence_lens, initial states,
// clip, LSTM's peepholes and input_forget, GRU's linear_before_reset; every output optional.
// What they do not take (other activations, computed weights) runs on the reference kernel.
//
// A run is two parts:
//   1. the input projection of every step at once, X [T*B, I] x W^T [I, D*G*H] (G gates: LSTM's
//      4, GRU's 3, RNN's 1), one oneDNN matmul over the whole team, W^T packed once per plan:
//      most of the FLOPs when I >= H;
//   2. the recurrence, step by step: gates = projection + bias + h R^T, then the cell. Each
//      (direction, group of batch rows) is one independent work item on the team: a
//      bidirectional node's directions run side by side without a barrier per step; with
//      fewer items than threads, the threads share each step instead (kShareStepMinFlops).
// A step's h R^T is a matrix-vector product for batch 1, bound by loading R (each weight is
// used once per row): R is packed at Prepare into column blocks [GH/64][H][64] so a block's 64
// columns accumulate in four vector registers over the whole of h, and up to four batch rows
// share each load of R (RecurrentBlock). GCC's vector extension types keep those accumulators
// in registers (its auto-vectoriser spilled them to the stack: 27 instead of 114 GFLOP/s for
// four rows).
//
// A GRU without linear_before_reset multiplies R_h by r . h, known only after the z and r gates:
// its step is two products (R's z and r columns, then its h columns, packed as two segments).
//
// oneDNN's RNN primitives (these ops' kernels before) measured 1.4-2.6x slower than this on
// batch-1 LSTMs and 0.8-1.2x on GRUs, and take neither sequence_lens shorter than the
// sequence, nor layout 1, clip or input_forget (those ran on the reference kernel).
#include <omp.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backends/cpu/kernels/dnnl_common.h"
#include "backends/cpu/kernels/simd.h"
#include "backends/cpu/kernels/vec_math.h"
#include "backends/cpu/spin_governor.h"
#include "kernels/util.h"

namespace kiln::cpu {
namespace {

constexpr int64_t kBlock = 64;  // R's packed column block: four 16-float vectors
constexpr int64_t kRows = 4;    // batch rows sharing each load of R

// A node with fewer (direction, row group) items than threads shares each step among the
// threads (two barriers a step, four for a GRU without linear_before_reset) when a step's
// product is at least this many FLOPs (about 10 us on one core, several times the barriers'
// cost) and the idle workers spin: with the team parked (spin_governor.h) each barrier waits
// on a futex, and a 512-unit LSTM measured 4 ms shared against 3.5 ms on one thread (1.8 ms
// shared while spinning). ThreadSanitizer builds keep every item on one thread: TSan does not
// see libgomp's barriers (tests/tsan.supp).
constexpr int64_t kShareStepMinFlops = int64_t{1} << 20;
#if defined(__SANITIZE_THREAD__)
constexpr bool kShareSteps = false;
#else
constexpr bool kShareSteps = true;
#endif

typedef float Vec16 __attribute__((vector_size(64), aligned(4)));

// out[r][0, 64) = h[r] . packed block (H rows of 64) for R rows (h rows `hs` apart, out rows
// `os` apart).
template <int R>
KILN_VEC_INLINE void RecurrentBlock(const float* KILN_RESTRICT h, int64_t hs,
                                    const float* KILN_RESTRICT block, int64_t H,
                                    float* KILN_RESTRICT out, int64_t os) {
  Vec16 acc[R][4] = {};
  for (int64_t k = 0; k < H; ++k) {
    Vec16 w[4];
    for (int j = 0; j < 4; ++j) std::memcpy(&w[j], block + k * kBlock + 16 * j, sizeof(Vec16));
    for (int r = 0; r < R; ++r) {
      const float hk = h[r * hs + k];
      for (int j = 0; j < 4; ++j) acc[r][j] += hk * w[j];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int j = 0; j < 4; ++j) std::memcpy(out + r * os + 16 * j, &acc[r][j], sizeof(Vec16));
}

// out [rows, blocks * 64] (rows `width` apart) = h [rows, H] x packed R.
KILN_CPU_CLONES void RecurrentProduct(const float* h, int64_t rows, const float* packed, int64_t H,
                                      int64_t blocks, float* out, int64_t width) {
  for (int64_t nb = 0; nb < blocks; ++nb) {
    const float* block = packed + nb * H * kBlock;
    float* o = out + nb * kBlock;
    int64_t r = 0;
    for (; r + kRows <= rows; r += kRows) {
      RecurrentBlock<kRows>(h + r * H, H, block, H, o + r * width, width);
    }
    for (; r < rows; ++r) RecurrentBlock<1>(h + r * H, H, block, H, o + r * width, width);
  }
}

KILN_VEC_INLINE float Clamp(float x, float clip) {
  return vec::Select(x > clip, clip, vec::Select(x < -clip, -clip, x));
}

// One row's cell. The gates' sums i, o, f, c (H each) are the step's projection `x` (bias
// not included) + `bias` + the recurrent product `hr`; the peepholes p (i, o, f) are added
// here. c is updated in place, the new h written to `h`. forget_from_input: f = 1 - i.
KILN_CPU_CLONES void LstmCell(const float* KILN_RESTRICT x, const float* KILN_RESTRICT bias,
                              const float* KILN_RESTRICT hr, const float* KILN_RESTRICT p,
                              float* KILN_RESTRICT c, float* KILN_RESTRICT h, int64_t H, int64_t j0,
                              int64_t j1, float clip, bool forget_from_input) {
  const float coupled = forget_from_input ? 1.0f : 0.0f;
  for (int64_t j = j0; j < j1; ++j) {
    const int64_t ji = j, jo = H + j, jf = 2 * H + j, jc = 3 * H + j;
    const float cj = c[j];
    const float i = vec::Sigmoid(Clamp(x[ji] + bias[ji] + hr[ji] + p[ji] * cj, clip));
    const float f_own = vec::Sigmoid(Clamp(x[jf] + bias[jf] + hr[jf] + p[jf] * cj, clip));
    const float f = vec::Select(coupled != 0.0f, 1.0f - i, f_own);
    const float g = vec::Tanh(Clamp(x[jc] + bias[jc] + hr[jc], clip));
    const float cn = f * cj + i * g;
    const float o = vec::Sigmoid(Clamp(x[jo] + bias[jo] + hr[jo] + p[jo] * cn, clip));
    c[j] = cn;
    h[j] = o * vec::Tanh(cn);
  }
}

// One row's RNN cell: h = tanh(x + bias + hr).
KILN_CPU_CLONES void RnnCell(const float* KILN_RESTRICT x, const float* KILN_RESTRICT bias,
                             const float* KILN_RESTRICT hr, float* KILN_RESTRICT h, int64_t j0,
                             int64_t j1, float clip) {
  for (int64_t j = j0; j < j1; ++j) h[j] = vec::Tanh(Clamp(x[j] + bias[j] + hr[j], clip));
}

// GRU (gates z, r, h; `x` and `bias` hold all three): z, and r . h for the hidden gate's
// product (linear_before_reset 0).
KILN_CPU_CLONES void GruGates(const float* KILN_RESTRICT x, const float* KILN_RESTRICT bias,
                              const float* KILN_RESTRICT hr, const float* KILN_RESTRICT h,
                              float* KILN_RESTRICT z, float* KILN_RESTRICT rh, int64_t H,
                              int64_t j0, int64_t j1, float clip) {
  for (int64_t j = j0; j < j1; ++j) {
    z[j] = vec::Sigmoid(Clamp(x[j] + bias[j] + hr[j], clip));
    rh[j] = vec::Sigmoid(Clamp(x[H + j] + bias[H + j] + hr[H + j], clip)) * h[j];
  }
}

// GRU's new state from z and the hidden gate's sums (linear_before_reset 0: `hrh` is
// R_h (r . h); R's hidden bias is in `bias`).
KILN_CPU_CLONES void GruUpdate(const float* KILN_RESTRICT x, const float* KILN_RESTRICT bias,
                               const float* KILN_RESTRICT hrh, const float* KILN_RESTRICT z,
                               const float* KILN_RESTRICT h, float* KILN_RESTRICT h_out, int64_t H,
                               int64_t j0, int64_t j1, float clip) {
  for (int64_t j = j0; j < j1; ++j) {
    const float g = vec::Tanh(Clamp(x[2 * H + j] + bias[2 * H + j] + hrh[j], clip));
    h_out[j] = (1.0f - z[j]) * g + z[j] * h[j];
  }
}

// One row's GRU with linear_before_reset: the hidden gate adds r . (R_h h + Rb_h).
KILN_CPU_CLONES void GruCellLinearBeforeReset(
    const float* KILN_RESTRICT x, const float* KILN_RESTRICT bias, const float* KILN_RESTRICT hr,
    const float* KILN_RESTRICT rbh, const float* KILN_RESTRICT h, float* KILN_RESTRICT h_out,
    int64_t H, int64_t j0, int64_t j1, float clip) {
  for (int64_t j = j0; j < j1; ++j) {
    const float z = vec::Sigmoid(Clamp(x[j] + bias[j] + hr[j], clip));
    const float r = vec::Sigmoid(Clamp(x[H + j] + bias[H + j] + hr[H + j], clip));
    const float g =
        vec::Tanh(Clamp(x[2 * H + j] + bias[2 * H + j] + r * (hr[2 * H + j] + rbh[j]), clip));
    h_out[j] = (1.0f - z) * g + z * h[j];
  }
}

enum class Cell { kRnn = 1, kGru = 3, kLstm = 4 };  // the value: the gates

// The projection's matmul for one X shape: X [T*B, I] x W^T [I, D*G*H], W^T packed as oneDNN
// wants it.
struct RecurrencePlan final : Plan {
  dnnl::matmul matmul;
  dnnl::memory::desc x_md, w_md, g_md, scratch_md;
  const void* weights = nullptr;
};

class RecurrenceKernel final : public DnnlKernel {
 public:
  static Result<std::unique_ptr<Kernel>> Make(const KernelRegistry& registry, const NodeDef& def,
                                              Cell cell) {
    for (size_t i : {0, 1, 2, 3, 5, 6, 7}) {  // (6 and 7 are LSTM's)
      if (def.input_given(i) && def.input_types[i] != DataType::kFloat32) {
        return def.Fail(code::kFeatureUnsupported, "the cpu kernel takes float32 only");
      }
    }
    for (size_t i : {1, 2, 3, 7}) {
      if (def.input_given(i) && def.constant(i) == nullptr) {
        return def.Fail(code::kFeatureUnsupported, "computed weights run on the reference kernel");
      }
    }
    if (!DefaultActivations(def, cell)) {
      return def.Fail(code::kFeatureUnsupported,
                      "activations other than the defaults run on the reference kernel");
    }
    KILN_ASSIGN_OR_RETURN(auto reference, ReferenceKernel(registry, def));
    auto k =
        std::unique_ptr<RecurrenceKernel>(new RecurrenceKernel(def, std::move(reference), cell));
    k->Pack();
    KILN_RETURN_IF_ERROR(k->PrepareFirstPlan(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

 private:
  RecurrenceKernel(const NodeDef& def, std::unique_ptr<Kernel> reference, Cell cell)
      : DnnlKernel(def, std::move(reference)), cell_(cell), gates_(static_cast<int64_t>(cell)) {
    const std::string dir = def.attr_string("direction");
    dirs_ = dir == "bidirectional" ? 2 : 1;
    reverse_ = dir == "reverse";
    layout_ = def.attr_int("layout");
    if (def.has_attr("clip")) clip_ = def.attr_float("clip");
    input_forget_ = cell == Cell::kLstm && def.attr_int("input_forget") != 0;
    reset_after_ = cell == Cell::kGru && def.attr_int("linear_before_reset") == 0;
    hidden_ = def.constant(2)->dims[2];
    input_ = def.constant(1)->dims[2];
    // R's column segments, each packed into whole blocks: one of all G*H columns, or (GRU
    // without linear_before_reset, whose hidden gate multiplies r . h) z and r, then h.
    const int64_t H = hidden_;
    segments_ = reset_after_ ? std::vector<Segment>{{0, 2 * H}, {2 * H, H}}
                             : std::vector<Segment>{{0, gates_ * H}};
    for (Segment& g : segments_) {
      g.first_block = blocks_;
      blocks_ += (g.cols + kBlock - 1) / kBlock;
    }
  }

  static bool DefaultActivations(const NodeDef& def, Cell cell) {
    if (def.has_attr("activation_alpha") || def.has_attr("activation_beta")) return false;
    static const char* const kLstm[] = {"sigmoid", "tanh", "tanh"};
    static const char* const kGru[] = {"sigmoid", "tanh"};
    static const char* const kRnn[] = {"tanh"};
    const std::vector<std::string> names = def.attr_strings("activations");
    for (size_t i = 0; i < names.size(); ++i) {
      std::string n = names[i];
      std::transform(n.begin(), n.end(), n.begin(),
                     [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
      const char* want = cell == Cell::kLstm  ? kLstm[i % 3]
                         : cell == Cell::kGru ? kGru[i % 2]
                                              : kRnn[0];
      if (n != want) return false;
    }
    return true;
  }

  // R [D, GH, H] into column blocks per direction and segment (W is packed by each plan, from
  // the constant); the two biases summed into [D, GH] (but GRU's Rb_h with linear_before_reset,
  // which r multiplies: rbh_ [D, H]); peepholes [D, 3H] (zeros without).
  void Pack() {
    const int64_t D = dirs_, H = hidden_, G = gates_ * H;
    const float* r = def_.constant(2)->as<float>();
    const int64_t per_dir = blocks_ * H * kBlock;
    r_.assign(static_cast<size_t>(D * per_dir), 0.0f);
    for (int64_t d = 0; d < D; ++d)
      for (const Segment& g : segments_)
        for (int64_t n = 0; n < g.cols; ++n)
          for (int64_t k = 0; k < H; ++k)
            r_[d * per_dir + (g.first_block + n / kBlock) * H * kBlock + k * kBlock + n % kBlock] =
                r[(d * G + g.first_col + n) * H + k];
    bias_.assign(static_cast<size_t>(D * G), 0.0f);
    rbh_.assign(static_cast<size_t>(D * H), 0.0f);
    const bool rbh_apart = cell_ == Cell::kGru && !reset_after_;
    if (def_.input_given(3)) {
      const float* b = def_.constant(3)->as<float>();
      for (int64_t d = 0; d < D; ++d) {
        for (int64_t n = 0; n < G; ++n) {
          const float rb = b[d * 2 * G + G + n];
          const bool apart = rbh_apart && n >= 2 * H;
          bias_[d * G + n] = b[d * 2 * G + n] + (apart ? 0.0f : rb);
          if (apart) rbh_[d * H + n - 2 * H] = rb;
        }
      }
    }
    peephole_.assign(static_cast<size_t>(D * 3 * H), 0.0f);
    if (cell_ == Cell::kLstm && def_.input_given(7)) {
      const float* p = def_.constant(7)->as<float>();
      std::copy(p, p + D * 3 * H, peephole_.begin());
    }
  }

  // X's dims.
  std::optional<Dims> Key(const std::vector<const Dims*>& in) const override {
    if (in.empty() || in[0] == nullptr || in[0]->size() != 3 || (*in[0])[2] != input_) {
      return std::nullopt;
    }
    return *in[0];
  }

  bool FloatInput(size_t i) const override { return i != 4; }  // sequence_lens: int32

  // A sequence_lens value out of [0, T] is the reference kernel's error to report.
  bool Takes(const KernelContext& ctx) const override {
    const TensorView* lens = ctx.num_inputs() > 4 ? ctx.input(4) : nullptr;
    if (lens == nullptr || lens->data == nullptr) return true;
    const int64_t T = ctx.input(0)->dims[layout_ ? 1 : 0];
    const int32_t* v = lens->as<int32_t>();
    for (int64_t i = 0; i < lens->num_elements(); ++i) {
      if (v[i] < 0 || v[i] > T) return false;
    }
    return true;
  }

  Result<std::shared_ptr<const Plan>> Build(const Dims& key) const override {
    auto plan = std::make_shared<RecurrencePlan>();
    KILN_RETURN_IF_ERROR(Guard(def_, [&] { Create(key, *plan); }), "");
    return std::shared_ptr<const Plan>(std::move(plan));
  }

  void Create(const Dims& key, RecurrencePlan& p) const {
    using dnnl::memory;
    const int64_t M = key[0] * key[1], N = dirs_ * gates_ * hidden_;
    const auto f32 = memory::data_type::f32;
    p.x_md = memory::desc({M, input_}, f32, memory::format_tag::ab);
    p.g_md = memory::desc({M, N}, f32, memory::format_tag::ab);
    // W [D, G*H, I] is W^T [I, D*G*H] with strides (1, I): each plan packs it from the constant.
    const memory::desc w_user({input_, N}, f32, memory::dims{1, input_});
    dnnl::matmul::primitive_desc pd(
        dnnl::matmul::desc(p.x_md, memory::desc({input_, N}, f32, memory::format_tag::any), p.g_md),
        UserScratchpadAttr(), Engine());
    p.w_md = pd.weights_desc();
    p.weights = packed_.Get(w_user, def_.constant(1)->data, p.w_md);
    p.scratch_md = pd.scratchpad_desc();
    p.matmul = dnnl::matmul(pd);
  }

  Status Execute(const Plan& base, KernelContext& ctx, DnnlRun& run) const override {
    const auto& p = static_cast<const RecurrencePlan&>(base);
    const TensorView* x = ctx.input(0);
    const int64_t T = x->dims[layout_ ? 1 : 0], B = x->dims[layout_ ? 0 : 1];
    const int64_t D = dirs_, H = hidden_, G = gates_ * H;
    auto input = [&](size_t i) { return i < ctx.num_inputs() ? ctx.input(i) : nullptr; };
    const TensorView* lens_in = input(4);
    const int32_t* lens = lens_in && lens_in->data ? lens_in->as<const int32_t>() : nullptr;
    bool padded = false;
    for (int64_t b = 0; lens && b < B; ++b) padded = padded || lens[b] < T;
    TensorView* out[3] = {nullptr, nullptr, nullptr};
    for (size_t i = 0; i < (cell_ == Cell::kLstm ? 3u : 2u) && i < ctx.num_outputs(); ++i) {
      out[i] = ctx.output_wanted(i) ? ctx.output(i) : nullptr;  // null: not used
      // Positions past a row's length, and the final states of an empty row, are zeros.
      if (out[i] && padded) std::memset(out[i]->data, 0, out[i]->num_elements() * sizeof(float));
    }
    // Per work item of (direction, up to kRows batch rows): h (two: a step reads one and
    // writes the other), c (LSTM's) or z (GRU's), r . h (GRU's) and the recurrent product.
    const int64_t groups = (B + kRows - 1) / kRows;
    const int64_t width = blocks_ * kBlock;
    const int64_t per_item = kRows * (4 * H + width);
    run.Buffers({p.scratch_md.get_size(), p.g_md.get_size(),
                 sizeof(float) * static_cast<size_t>(D * groups * per_item)},
                0);
    const float* projection = static_cast<const float*>(run.buffer(1));
    float* work = static_cast<float*>(run.buffer(2));

    // 1. The projection of every step and direction: [T*B rows in X's order, D*G*H].
    run.Execute(p.matmul,
                {{DNNL_ARG_SRC, &run.Memory(0, p.x_md, x->data)},
                 {DNNL_ARG_WEIGHTS, &run.Memory(1, p.w_md, p.weights)},
                 {DNNL_ARG_DST, &run.Memory(2, p.g_md, projection)}},
                p.scratch_md, run.buffer(0));
    run.Wait();

    // 2. The recurrence.
    const TensorView* h0_in = input(5);
    const TensorView* c0_in = cell_ == Cell::kLstm ? input(6) : nullptr;
    const float* h0 = h0_in && h0_in->data ? h0_in->as<const float>() : nullptr;
    const float* c0 = c0_in && c0_in->data ? c0_in->as<const float>() : nullptr;
    float* y = out[0] ? out[0]->as<float>() : nullptr;
    float* yh = out[1] ? out[1]->as<float>() : nullptr;
    float* yc = out[2] ? out[2]->as<float>() : nullptr;
    auto x_row = [&](int64_t t, int64_t b) { return layout_ ? b * T + t : t * B + b; };
    auto y_at = [&](int64_t t, int64_t d, int64_t b) {
      return (layout_ ? (b * T + t) * D + d : (t * D + d) * B + b) * H;
    };
    auto state_at = [&](int64_t d, int64_t b) { return (layout_ ? b * D + d : d * B + b) * H; };
    const float clip = clip_;
    // One work item, as part `part` of `parts` threads that run it together: each takes a share
    // of every step's product (column blocks) and of its cells (hidden units), `sync` (a barrier
    // of the parts) between them.
    auto run_item = [&](int64_t item, int64_t part, int64_t parts, auto&& sync) {
      const int64_t d = item / groups, b0 = (item % groups) * kRows;
      const int64_t rows = std::min(kRows, B - b0);
      const bool rev = reverse_ || d == 1;
      float* h = work + item * per_item;
      float* h_next = h + kRows * H;
      float* c = h_next + kRows * H;  // GRU: z
      float* rh = c + kRows * H;
      float* hr = rh + kRows * H;  // the recurrent product
      // This part's share of n things, in multiples of `align`.
      auto share = [&](int64_t n, int64_t align) {
        const int64_t per = ((n + parts - 1) / parts + align - 1) / align * align;
        return std::pair<int64_t, int64_t>{std::min(n, part * per), std::min(n, (part + 1) * per)};
      };
      const auto [u0, u1] = share(H, 16);
      const int64_t nu = u1 - u0;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t at = state_at(d, b0 + r) + u0;
        if (h0)
          std::copy_n(h0 + at, nu, h + r * H + u0);
        else
          std::fill_n(h + r * H + u0, nu, 0.0f);
        if (c0)
          std::copy_n(c0 + at, nu, c + r * H + u0);
        else
          std::fill_n(c + r * H + u0, nu, 0.0f);
      }
      const float* bias = bias_.data() + d * G;
      const float* peep = peephole_.data() + d * 3 * H;
      const float* rbh = rbh_.data() + d * H;
      const float* packed = r_.data() + d * blocks_ * H * kBlock;
      // h x R over block range [first, end) of R's packed blocks, this part's share of it.
      auto product = [&](const float* from, int64_t first, int64_t end) {
        const auto [nb0, nb1] = share(end - first, 1);
        if (nb1 > nb0) {
          RecurrentProduct(from, rows, packed + (first + nb0) * H * kBlock, H, nb1 - nb0,
                           hr + (first + nb0) * kBlock, width);
        }
      };
      auto row_t = [&](int64_t r, int64_t step) {  // the time a row reads (0 once it is done)
        const int64_t len = lens ? lens[b0 + r] : T;
        return step < len ? (rev ? len - 1 - step : step) : 0;
      };
      const int64_t hidden_block = reset_after_ ? segments_[1].first_block : blocks_;
      sync();
      for (int64_t step = 0; step < T; ++step) {
        product(h, 0, hidden_block);
        sync();
        if (reset_after_) {  // GRU: z and r . h, then R_h (r . h)
          for (int64_t r = 0; r < rows; ++r) {
            GruGates(projection + x_row(row_t(r, step), b0 + r) * D * G + d * G, bias,
                     hr + r * width, h + r * H, c + r * H, rh + r * H, H, u0, u1, clip);
          }
          sync();
          product(rh, hidden_block, blocks_);
          sync();
        }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t b = b0 + r, len = lens ? lens[b] : T;
          if (step >= len) {  // this row is done: its states stay
            std::copy_n(h + r * H + u0, nu, h_next + r * H + u0);
            continue;
          }
          const int64_t t = rev ? len - 1 - step : step;
          const float* xt = projection + x_row(t, b) * D * G + d * G;
          float* next = h_next + r * H;
          const float* hr_r = hr + r * width;
          if (cell_ == Cell::kLstm) {
            LstmCell(xt, bias, hr_r, peep, c + r * H, next, H, u0, u1, clip, input_forget_);
          } else if (reset_after_) {
            GruUpdate(xt, bias, hr_r + hidden_block * kBlock, c + r * H, h + r * H, next, H, u0, u1,
                      clip);
          } else if (cell_ == Cell::kGru) {
            GruCellLinearBeforeReset(xt, bias, hr_r, rbh, h + r * H, next, H, u0, u1, clip);
          } else {
            RnnCell(xt, bias, hr_r, next, u0, u1, clip);
          }
          if (y) std::copy_n(next + u0, nu, y + y_at(t, d, b) + u0);
        }
        sync();
        std::swap(h, h_next);
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t b = b0 + r;
        if (lens && lens[b] == 0) continue;  // zero final states (as onnxruntime)
        if (yh) std::copy_n(h + r * H + u0, nu, yh + state_at(d, b) + u0);
        if (yc) std::copy_n(c + r * H + u0, nu, yc + state_at(d, b) + u0);
      }
    };
    // Fewer items than threads, and steps worth a barrier: the threads share each step.
    const int team = omp_in_parallel() ? 1 : omp_get_max_threads();
    const int64_t items = D * groups;
    if (kShareSteps && team > 1 && items < team && !OpenMpSpinningThrottled() &&
        2 * std::min(kRows, B) * G * H >= kShareStepMinFlops) {
#pragma omp parallel num_threads(team)
      {
        const int64_t part = omp_get_thread_num(), parts = omp_get_num_threads();
        for (int64_t item = 0; item < items; ++item) {
          run_item(item, part, parts, [] {
#pragma omp barrier
          });
        }
      }
      return Status::Ok();
    }
    ctx.ParallelFor(items, 1, [&](int64_t begin, int64_t end) {
      for (int64_t item = begin; item < end; ++item) run_item(item, 0, 1, [] {});
    });
    return Status::Ok();
  }

  // Columns [first_col, first_col + cols) of R's G*H, packed from block first_block on.
  struct Segment {
    int64_t first_col, cols, first_block = 0;
  };

  const Cell cell_;
  const int64_t gates_;
  bool reset_after_ = false;  // GRU with linear_before_reset 0: R_h multiplies r . h
  std::vector<Segment> segments_;
  int64_t dirs_ = 1, hidden_ = 0, input_ = 0, layout_ = 0, blocks_ = 0;
  bool reverse_ = false, input_forget_ = false;
  float clip_ = std::numeric_limits<float>::infinity();
  std::vector<float> r_, bias_, rbh_, peephole_;
  mutable PackedWeights packed_;
};

}  // namespace

void RegisterCpuRecurrentKernels(KernelRegistry& r) {
  const KernelRegistry* reg = &r;
  r.Register(kCpuBackend, "", "LSTM",
             [reg](const NodeDef& def) { return RecurrenceKernel::Make(*reg, def, Cell::kLstm); });
  r.Register(kCpuBackend, "", "GRU",
             [reg](const NodeDef& def) { return RecurrenceKernel::Make(*reg, def, Cell::kGru); });
  r.Register(kCpuBackend, "", "RNN",
             [reg](const NodeDef& def) { return RecurrenceKernel::Make(*reg, def, Cell::kRnn); });
}

}  // namespace kiln::cpu
