// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of the nn family's recurrent ops: RNN, GRU and LSTM (ONNX semantics: every
// direction, sequence_lens, initial states, layout, clip, activations with alpha/beta, GRU's
// linear_before_reset, LSTM's peepholes and input_forget). Computed in double, one batch row
// and direction at a time.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {

void RegisterNnRecurrentKernels(KernelRegistry& r);

namespace {
namespace nn_recurrent {

using Doubles = std::vector<double>;

// The activation functions of ONNX's recurrent ops.
enum class ActKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

struct Activation {
  ActKind kind = ActKind::kTanh;
  double alpha = 0, beta = 0;

  double operator()(double x) const {
    if (std::isnan(x)) return x;
    switch (kind) {
      case ActKind::kRelu:
        return std::max(0.0, x);
      case ActKind::kTanh:
        return std::tanh(x);
      case ActKind::kSigmoid:
        return 1.0 / (1.0 + std::exp(-x));
      case ActKind::kAffine:
        return alpha * x + beta;
      case ActKind::kLeakyRelu:
        return x >= 0 ? x : alpha * x;
      case ActKind::kThresholdedRelu:
        return x >= alpha ? x : 0.0;
      case ActKind::kScaledTanh:
        return alpha * std::tanh(beta * x);
      case ActKind::kHardSigmoid:
        return std::min(1.0, std::max(0.0, alpha * x + beta));
      case ActKind::kElu:
        return x >= 0 ? x : alpha * (std::exp(x) - 1.0);
      case ActKind::kSoftsign:
        return x / (1.0 + std::fabs(x));
      case ActKind::kSoftplus:
        return std::log1p(std::exp(x));
    }
    return x;
  }
};

// One activation name (case-insensitive) with the alpha/beta it takes from the attribute lists,
// in order; an absent value takes the ONNX operator's default.
struct ActSpec {
  const char* name;
  ActKind kind;
  bool takes_alpha, takes_beta;
  double alpha, beta;
};
constexpr ActSpec kActSpecs[] = {
    {"relu", ActKind::kRelu, false, false, 0, 0},
    {"tanh", ActKind::kTanh, false, false, 0, 0},
    {"sigmoid", ActKind::kSigmoid, false, false, 0, 0},
    {"affine", ActKind::kAffine, true, true, 1.0, 0.0},
    {"leakyrelu", ActKind::kLeakyRelu, true, false, 0.01, 0},
    {"thresholdedrelu", ActKind::kThresholdedRelu, true, false, 1.0, 0},
    {"scaledtanh", ActKind::kScaledTanh, true, true, 1.0, 1.0},
    {"hardsigmoid", ActKind::kHardSigmoid, true, true, 0.2, 0.5},
    {"elu", ActKind::kElu, true, false, 1.0, 0},
    {"softsign", ActKind::kSoftsign, false, false, 0, 0},
    {"softplus", ActKind::kSoftplus, false, false, 0, 0},
};

// The op's gates: 1 (RNN), 3 (GRU: z, r, h) or 4 (LSTM: i, o, f, c).
enum class Cell { kRnn = 1, kGru = 3, kLstm = 4 };

class RecurrentKernel final : public Kernel {
 public:
  // The node's attributes, as its definition has checked them (direction, layout, clip > 0,
  // the activations' names and count).
  static Result<std::unique_ptr<Kernel>> Prepare(const NodeDef& def, Cell cell) {
    auto k = std::unique_ptr<RecurrentKernel>(new RecurrentKernel(def, cell));
    const std::string dir = def.attr_string("direction");
    k->num_dirs_ = dir == "bidirectional" ? 2 : 1;
    k->reverse_ = dir == "reverse";
    k->layout_ = def.attr_int("layout");  // 0 before opset 14, which has no layout
    if (def.has_attr("clip")) k->clip_ = def.attr_float("clip");
    k->linear_before_reset_ = cell == Cell::kGru && def.attr_int("linear_before_reset") != 0;
    k->input_forget_ = cell == Cell::kLstm && def.attr_int("input_forget") != 0;
    KILN_RETURN_IF_ERROR(k->ReadActivations(), "");
    return std::unique_ptr<Kernel>(std::move(k));
  }

  Status Run(KernelContext& ctx) const override;

 private:
  RecurrentKernel(const NodeDef& def, Cell cell) : def_(def), cell_(cell) {}

  size_t ActsPerDirection() const { return cell_ == Cell::kRnn ? 1 : cell_ == Cell::kGru ? 2 : 3; }

  Status ReadActivations() {
    const size_t per = ActsPerDirection();
    std::vector<std::string> names = def_.attr_strings("activations");
    if (names.empty()) {
      const char* dflt[][3] = {{"tanh"}, {"sigmoid", "tanh"}, {"sigmoid", "tanh", "tanh"}};
      const size_t row = cell_ == Cell::kRnn ? 0 : cell_ == Cell::kGru ? 1 : 2;
      names.assign(dflt[row], dflt[row] + per);
    }
    // `per` or 2 * `per` names (the definition's rule): one direction's list serves both
    // directions of a bidirectional op, and a second list is unused with one direction (RNN's
    // default names two).
    const size_t want = per * static_cast<size_t>(num_dirs_);
    if (names.size() < want) {
      const std::vector<std::string> one = names;
      names.insert(names.end(), one.begin(), one.end());
    }
    names.resize(want);
    const std::vector<float> alphas = def_.attr_floats("activation_alpha");
    const std::vector<float> betas = def_.attr_floats("activation_beta");
    size_t next_alpha = 0, next_beta = 0;
    for (const std::string& name : names) {
      std::string lower = name;
      std::transform(lower.begin(), lower.end(), lower.begin(),
                     [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
      const ActSpec* spec = nullptr;
      for (const ActSpec& s : kActSpecs) {
        if (lower == s.name) spec = &s;
      }
      if (!spec) return def_.Fail(code::kInvalidParam, "unknown activation \"", name, "\"");
      Activation a{spec->kind, spec->alpha, spec->beta};
      if (spec->takes_alpha && next_alpha < alphas.size()) a.alpha = alphas[next_alpha++];
      if (spec->takes_beta && next_beta < betas.size()) a.beta = betas[next_beta++];
      acts_.push_back(a);
    }
    return Status::Ok();
  }

  double Clip(double x) const { return clip_ ? std::clamp(x, -*clip_, *clip_) : x; }

  NodeDef def_;
  Cell cell_;
  int num_dirs_ = 1;
  bool reverse_ = false;
  int64_t layout_ = 0;
  std::optional<double> clip_;
  bool linear_before_reset_ = false;
  bool input_forget_ = false;
  std::vector<Activation> acts_;  // ActsPerDirection() per direction
};

Status RecurrentKernel::Run(KernelContext& ctx) const {
  const NodeDef& def = def_;
  // The inputs have the dims the definition requires: X [seq, batch, input] (batch first under
  // layout 1), W [dirs, gates * hidden, input], R [dirs, gates * hidden, hidden], ...
  auto input = [&](size_t i) { return i < ctx.num_inputs() ? ctx.input(i) : nullptr; };
  const TensorView* x = ctx.input(0);
  const TensorView* w = ctx.input(1);
  const TensorView* r = ctx.input(2);
  const bool lstm = cell_ == Cell::kLstm;
  const TensorView* bias = input(3);
  const TensorView* lens_in = input(4);
  const TensorView* h0_in = input(5);
  const TensorView* c0_in = lstm ? input(6) : nullptr;
  const TensorView* p_in = lstm ? input(7) : nullptr;
  const int64_t seq = x->dims[layout_ ? 1 : 0], batch = x->dims[layout_ ? 0 : 1];
  const int64_t in = x->dims[2], hid = r->dims[2], dirs = num_dirs_;
  const int64_t g = static_cast<int64_t>(cell_), gh = g * hid;

  std::vector<int64_t> lens(static_cast<size_t>(batch), seq);
  if (lens_in) lens = ReadInts(*lens_in);
  for (size_t b = 0; b < lens.size(); ++b) {
    if (lens[b] < 0 || lens[b] > seq) {
      return def.Fail(code::kInvalidParam, "sequence_lens[", b, "] = ", lens[b],
                      " is out of range [0, ", seq, "]");
    }
  }
  const Doubles xv = ReadDoubles(*x), wv = ReadDoubles(*w), rv = ReadDoubles(*r);
  const Doubles bv = bias ? ReadDoubles(*bias) : Doubles(static_cast<size_t>(dirs * 2 * gh), 0.0);
  const Doubles pv = p_in ? ReadDoubles(*p_in) : Doubles(static_cast<size_t>(dirs * 3 * hid), 0.0);
  const size_t state_size = static_cast<size_t>(dirs * batch * hid);
  const Doubles h0 = h0_in ? ReadDoubles(*h0_in) : Doubles(state_size, 0.0);
  const Doubles c0 = c0_in ? ReadDoubles(*c0_in) : Doubles(state_size, 0.0);

  Doubles y(static_cast<size_t>(seq * dirs * batch * hid), 0.0), yh(state_size, 0.0),
      yc(state_size, 0.0);
  auto x_at = [&](int64_t t, int64_t b) { return (layout_ ? b * seq + t : t * batch + b) * in; };
  auto y_at = [&](int64_t t, int64_t d, int64_t b) {
    return (layout_ ? (b * seq + t) * dirs + d : (t * dirs + d) * batch + b) * hid;
  };
  auto state_at = [&](int64_t d, int64_t b) {
    return (layout_ ? b * dirs + d : d * batch + b) * hid;
  };

  Doubles xw(static_cast<size_t>(gh)), hr(static_cast<size_t>(gh)), h(static_cast<size_t>(hid)),
      c(static_cast<size_t>(hid)), next(static_cast<size_t>(hid)), rh(static_cast<size_t>(hid)),
      reset(static_cast<size_t>(hid));
  const size_t per = ActsPerDirection();
  for (int64_t d = 0; d < dirs; ++d) {
    const bool rev = reverse_ || d == 1;
    const double* wd = wv.data() + d * gh * in;
    const double* rd = rv.data() + d * gh * hid;
    const double* wb = bv.data() + d * 2 * gh;
    const double* rb = wb + gh;
    const double* pd = pv.data() + d * 3 * hid;
    const Activation* act = acts_.data() + static_cast<size_t>(d) * per;
    for (int64_t b = 0; b < batch; ++b) {
      const int64_t len = lens[static_cast<size_t>(b)];
      const int64_t s0 = state_at(d, b);
      std::copy_n(h0.begin() + s0, hid, h.begin());
      std::copy_n(c0.begin() + s0, hid, c.begin());
      for (int64_t step = 0; step < len; ++step) {
        const int64_t t = rev ? len - 1 - step : step;
        const double* xt = xv.data() + x_at(t, b);
        // xw = W * x + Wb and hr = R * h + Rb, for every gate row.
        for (int64_t row = 0; row < gh; ++row) {
          double sx = wb[row], sh = rb[row];
          for (int64_t i = 0; i < in; ++i) sx += wd[row * in + i] * xt[i];
          for (int64_t k = 0; k < hid; ++k) sh += rd[row * hid + k] * h[static_cast<size_t>(k)];
          xw[static_cast<size_t>(row)] = sx;
          hr[static_cast<size_t>(row)] = sh;
        }
        if (cell_ == Cell::kGru) {
          // GRU's reset gate r (rows [H, 2H)), needed whole before the hidden gate.
          for (int64_t k = 0; k < hid; ++k) {
            const size_t uk = static_cast<size_t>(hid + k);
            reset[static_cast<size_t>(k)] = act[0](Clip(xw[uk] + hr[uk]));
          }
        }
        for (int64_t j = 0; j < hid; ++j) {
          const size_t u = static_cast<size_t>(j);
          if (cell_ == Cell::kRnn) {
            next[u] = act[0](Clip(xw[u] + hr[u]));
          } else if (cell_ == Cell::kGru) {
            // Gates z, r, h at rows [0, H), [H, 2H), [2H, 3H).
            const double z = act[0](Clip(xw[u] + hr[u]));
            const size_t uh = u + 2 * static_cast<size_t>(hid);
            double pre;
            if (linear_before_reset_) {
              pre = xw[uh] + reset[u] * hr[uh];  // r . (R_h * h + Rb_h)
            } else {
              double s = rb[2 * hid + j];  // R_h * (r . h) + Rb_h
              for (int64_t k = 0; k < hid; ++k) {
                const size_t uk = static_cast<size_t>(k);
                s += rd[(2 * hid + j) * hid + k] * reset[uk] * h[uk];
              }
              pre = xw[uh] + s;
            }
            const double hh = act[1](Clip(pre));
            next[u] = (1 - z) * hh + z * h[u];
          } else {
            // Gates i, o, f, c at rows [0, H), [H, 2H), [2H, 3H), [3H, 4H); P is i, o, f.
            const size_t H = static_cast<size_t>(hid);
            const double ig = act[0](Clip(xw[u] + hr[u] + pd[j] * c[u]));
            const double fg =
                input_forget_
                    ? 1 - ig
                    : act[0](Clip(xw[u + 2 * H] + hr[u + 2 * H] + pd[2 * hid + j] * c[u]));
            const double cg = act[1](Clip(xw[u + 3 * H] + hr[u + 3 * H]));
            const double cell = fg * c[u] + ig * cg;
            const double og = act[0](Clip(xw[u + H] + hr[u + H] + pd[hid + j] * cell));
            rh[u] = cell;  // the new cell state
            next[u] = og * act[2](cell);
          }
        }
        h.swap(next);
        if (lstm) c.swap(rh);
        std::copy(h.begin(), h.end(), y.begin() + y_at(t, d, b));
      }
      // A sequence of length 0 has zero final states (as onnxruntime has it).
      if (len > 0) {
        std::copy(h.begin(), h.end(), yh.begin() + s0);
        std::copy(c.begin(), c.end(), yc.begin() + s0);
      }
    }
  }
  // Every output is optional: Y, Y_h and (LSTM) Y_c where the graph uses them.
  const Doubles* results[] = {&y, &yh, &yc};
  for (size_t i = 0; i < (lstm ? 3u : 2u) && i < ctx.num_outputs(); ++i) {
    if (TensorView* out = ctx.output(i))
      KILN_RETURN_IF_ERROR(WriteDoubles(def, *out, *results[i]), "");
  }
  return Status::Ok();
}

}  // namespace nn_recurrent
}  // namespace

void RegisterNnRecurrentKernels(KernelRegistry& r) {
  using nn_recurrent::Cell;
  using nn_recurrent::RecurrentKernel;
  r.Register(kReferenceBackend, "", "RNN",
             [](const NodeDef& def) { return RecurrentKernel::Prepare(def, Cell::kRnn); });
  r.Register(kReferenceBackend, "", "GRU",
             [](const NodeDef& def) { return RecurrentKernel::Prepare(def, Cell::kGru); });
  r.Register(kReferenceBackend, "", "LSTM",
             [](const NodeDef& def) { return RecurrentKernel::Prepare(def, Cell::kLstm); });
}

}  // namespace kiln::kernels
