// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Reference kernels of LinearAttention and CausalConvWithState (ONNX opset 27), as the plain
// recurrences the ONNX spec writes: one token after another, no chunked prefill (chunk_size is a
// tuning hint that does not change the result).
//
// Their tensors are float16, bfloat16 or float32 (ir/ops/state_space.cc checked the node), and
// everything is computed in float: the 16-bit types are widened on reading and rounded once on
// writing, as the ONNX reference does.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "kernels/reference/common.h"
#include "kernels/reference/families.h"
#include "kernels/util.h"

namespace kiln::kernels {
namespace {

// A float16, bfloat16 or float32 tensor's elements as floats; empty for an omitted one.
std::vector<float> ToFloats(const TensorView* t) {
  std::vector<float> v;
  if (t == nullptr) return v;
  v.resize(static_cast<size_t>(t->num_elements()));
  DispatchFloat(t->dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* p = t->as<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(Load(p, i));
  });
  return v;
}

// Element i of the float16, bfloat16 or float32 tensor `t` = `f`, rounded to its type.
void StoreFloat(const TensorView& t, int64_t i, float f) {
  DispatchFloat(t.dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    Store(t.as<T>(), i, static_cast<ComputeT<T>>(f));
  });
}

// ---------------------------------------------------------------------------------------------
// LinearAttention(query [B, T, Hq * dk], key [B, T, Hkv * dk], value [B, T, Hkv * dv],
// past_state? [B, Hkv, dk, dv], decay? [B, T, Hkv or Hkv * dk], beta? [B, T, Hkv or 1])
// -> output [B, T, Hq * dv], present_state? [B, Hkv, dk, dv].
//
// Per key/value head, with its state S [dk, dv] (zeros without past_state), for each token t:
//   gated rules:  S *= exp(g_t)                  (per row of S for a per-element decay)
//   delta rules:  v_t = beta_t * (v_t - S^T k_t)
//   every rule:   S += k_t ⊗ v_t
//   each query head of the head's group:  o_t = scale * q_t^T S
// which is the spec's recurrence with the decay applied once, before both its uses.
Status RunLinearAttention(const NodeDef& def, KernelContext& ctx) {
  const TensorView &query = *ctx.input(0), &value = *ctx.input(2);
  const TensorView *past = ctx.input(3), *decay = ctx.input(4), *beta = ctx.input(5);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  TensorView* present = ctx.output(1);  // null when the graph does not read it

  const std::string rule = def.attr_string("update_rule");
  const bool gated = rule == "gated" || rule == "gated_delta";
  const bool delta = rule == "delta" || rule == "gated_delta";
  const int64_t hq = def.attr_int("q_num_heads"), hkv = def.attr_int("kv_num_heads");
  const int64_t batch = query.dims[0], seq = query.dims[1];
  const int64_t dk = query.dims[2] / hq, dv = value.dims[2] / hkv, group = hq / hkv;
  float scale = def.attr_float("scale");
  if (scale == 0.0f) scale = 1.0f / std::sqrt(static_cast<float>(dk));
  // A decay of Hkv values per token is one per head (checked first, as ONNX does: with dk = 1
  // both readings agree); a beta of one value per token is shared by every head.
  const bool decay_per_head = gated && decay->dims[2] == hkv;
  const int64_t beta_heads = delta ? beta->dims[2] : 0;

  const std::vector<float> q = ToFloats(&query), k = ToFloats(ctx.input(1)), v = ToFloats(&value);
  const std::vector<float> g = ToFloats(decay), b = ToFloats(beta), s0 = ToFloats(past);

  // The heads are independent: one (batch, key/value head) pair at a time.
  ctx.ParallelFor(batch * hkv, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> s(static_cast<size_t>(dk * dv)), vt(static_cast<size_t>(dv));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t n = p / hkv, h = p % hkv;
      for (int64_t e = 0; e < dk * dv; ++e) s[e] = past != nullptr ? s0[p * dk * dv + e] : 0.0f;
      for (int64_t t = 0; t < seq; ++t) {
        const int64_t token = n * seq + t;  // row of the packed [B, T, ...] inputs
        const float* kt = k.data() + (token * hkv + h) * dk;
        const float* vin = v.data() + (token * hkv + h) * dv;
        if (gated) {
          for (int64_t d = 0; d < dk; ++d) {
            const float f =
                std::exp(decay_per_head ? g[token * hkv + h] : g[(token * hkv + h) * dk + d]);
            for (int64_t m = 0; m < dv; ++m) s[d * dv + m] *= f;
          }
        }
        for (int64_t m = 0; m < dv; ++m) vt[m] = vin[m];
        if (delta) {
          const float bt = b[token * beta_heads + (beta_heads == 1 ? 0 : h)];
          for (int64_t m = 0; m < dv; ++m) {
            float retrieved = 0.0f;  // (S^T k_t)[m]
            for (int64_t d = 0; d < dk; ++d) retrieved += s[d * dv + m] * kt[d];
            vt[m] = bt * (vt[m] - retrieved);
          }
        }
        for (int64_t d = 0; d < dk; ++d) {
          for (int64_t m = 0; m < dv; ++m) s[d * dv + m] += kt[d] * vt[m];
        }
        // The query heads h * group ... h * group + group - 1 read this head's state.
        for (int64_t j = 0; j < group; ++j) {
          const int64_t qh = h * group + j;
          const float* qt = q.data() + (token * hq + qh) * dk;
          for (int64_t m = 0; m < dv; ++m) {
            float o = 0.0f;
            for (int64_t d = 0; d < dk; ++d) o += qt[d] * s[d * dv + m];
            StoreFloat(*out, (token * hq + qh) * dv + m, scale * o);
          }
        }
      }
      if (present != nullptr) {
        for (int64_t e = 0; e < dk * dv; ++e) StoreFloat(*present, p * dk * dv + e, s[e]);
      }
    }
  });
  return Status::Ok();
}

// ---------------------------------------------------------------------------------------------
// CausalConvWithState(input [B, C, L], weight [C, 1, k], bias? [C], past_state? [B, C, k - 1])
// -> output [B, C, L], present_state? [B, C, k - 1].
//
// Per channel, over the sequence x' = past_state (zeros without it) followed by the input:
//   output[l] = act(bias + sum_j weight[j] * x'[l + j]),  present_state = the last k - 1 of x'.
// The sum is rounded to the tensors' type before the activation, as ONNX's reference does.
Status RunCausalConvWithState(const NodeDef& def, KernelContext& ctx) {
  const TensorView &input = *ctx.input(0), &weight = *ctx.input(1);
  const TensorView* past = ctx.input(3);
  KILN_ASSIGN_OR_RETURN(TensorView * out, BoundOutput(def, ctx, 0));
  TensorView* present = ctx.output(1);  // null when the graph does not read it
  const bool silu = def.attr_string("activation") != "none";  // "silu" or its alias "swish"

  const int64_t batch = input.dims[0], channels = input.dims[1], len = input.dims[2];
  const int64_t kernel = weight.dims[2], carry = kernel - 1;
  const std::vector<float> x = ToFloats(&input), w = ToFloats(&weight);
  const TensorView* bias_in = ctx.input(2);
  const std::vector<float> bias = ToFloats(bias_in), s0 = ToFloats(past);

  ctx.ParallelFor(batch * channels, 1, [&](int64_t begin, int64_t end) {
    std::vector<float> padded(static_cast<size_t>(carry + len));
    for (int64_t p = begin; p < end; ++p) {
      const int64_t c = p % channels;
      for (int64_t j = 0; j < carry; ++j) padded[j] = past != nullptr ? s0[p * carry + j] : 0.0f;
      for (int64_t l = 0; l < len; ++l) padded[carry + l] = x[p * len + l];
      const float* wc = w.data() + c * kernel;
      for (int64_t l = 0; l < len; ++l) {
        float acc = bias_in != nullptr ? bias[c] : 0.0f;
        for (int64_t j = 0; j < kernel; ++j) acc += wc[j] * padded[l + j];
        const float y = RoundTo(out->dtype, acc);
        StoreFloat(*out, p * len + l, silu ? y * (1.0f / (1.0f + std::exp(-y))) : y);
      }
      if (present != nullptr) {
        for (int64_t j = 0; j < carry; ++j) StoreFloat(*present, p * carry + j, padded[len + j]);
      }
    }
  });
  return Status::Ok();
}

}  // namespace

void RegisterStateSpaceKernels(KernelRegistry& r) {
  RegisterStateless(r, "LinearAttention", RunLinearAttention);
  RegisterStateless(r, "CausalConvWithState", RunCausalConvWithState);
}

}  // namespace kiln::kernels
