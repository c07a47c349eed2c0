// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// channels_last: keeps activations channels-last (NHWC) between consecutive 2-D convolutions
// and pools. A rank-4 value produced by a convolution or pool and read only as the X (input 0)
// of other 2-D convolutions or pools of its kind, or as the residual Z of a fused convolution
// (not a graph output, not captured by a subgraph) is stored NHWC: its producer gets
// `kiln_y_nhwc = 1` and each reader `kiln_x_nhwc = 1` / `kiln_z_nhwc = 1` (dims stay N, C, H,
// W; only the storage order changes). The kinds: float32 Conv / FusedConv (Z is input 3),
// MaxPool / AveragePool, and 8-bit QLinearConv / FusedQLinearConv (Z is input 9) and MaxPool. A
// plain ONNX Conv or QLinearConv that needs one of these attributes becomes the equivalent
// com.kiln FusedConv / FusedQLinearConv (activation ""), an ONNX MaxPool or AveragePool the
// com.kiln op of the same name (the pool of the newest opset with the layout flags), so ONNX
// nodes never carry Kiln attributes. In a model whose
// matrix ops compute in bf16 (PassContext::matrix_bf16) a float value kept NHWC is also stored
// as bfloat16 (`kiln_x_bf16`, `kiln_y_bf16`, `kiln_z_bf16` beside the NHWC marks; its dtype
// stays float32 in the graph, as its dims stay N, C, H, W): the producing convolution writes bf16
// and its readers take bf16, with no conversion between them. The pass owns the six attributes:
// it sets each to what the graph calls for now and drops stale ones, so running it twice changes
// nothing the second time.
#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/passes/passes.h"
#include "compiler/passes/pattern_util.h"

namespace kiln::compiler {
namespace {

constexpr char kX[] = "kiln_x_nhwc";
constexpr char kY[] = "kiln_y_nhwc";
constexpr char kZ[] = "kiln_z_nhwc";
constexpr char kXb[] = "kiln_x_bf16";
constexpr char kYb[] = "kiln_y_bf16";
constexpr char kZb[] = "kiln_z_bf16";

// The bf16 storage mark that goes with an NHWC mark.
const char* Bf16Mark(const std::string& nhwc) { return nhwc == kX ? kXb : nhwc == kY ? kYb : kZb; }

bool IsRank4(const ir::Value* v, bool quantized) {
  if (v == nullptr || !v->shape().rank_known() || v->shape().rank() != 4) return false;
  const ir::DataType t = v->dtype();
  return quantized ? t == ir::DataType::kUint8 || t == ir::DataType::kInt8
                   : t == ir::DataType::kFloat32;
}

bool IsQuantizedConv(const ir::Node* n) {
  return pattern::IsOp(n, "QLinearConv") ||
         pattern::IsOp(n, "FusedQLinearConv", pattern::kKilnDomain);
}

// The input index of a fused convolution's residual Z.
size_t ResidualIndex(const ir::Node* n) { return IsQuantizedConv(n) ? 9 : 3; }

// A convolution (Conv / FusedConv over float32, QLinearConv / FusedQLinearConv over 8-bit
// tensors) with a 2-D kernel over a rank-4 X, giving one rank-4 Y.
bool IsConv2d(const ir::Node* n) {
  const bool quantized = IsQuantizedConv(n);
  if (!quantized && !pattern::IsOp(n, "Conv") &&
      !pattern::IsOp(n, "FusedConv", pattern::kKilnDomain)) {
    return false;
  }
  const ir::Value* w = n->input(quantized ? 3 : 1);
  return n->outputs().size() == 1 && IsRank4(n->input(0), quantized) &&
         IsRank4(n->output(0), quantized) && w != nullptr && w->shape().rank_known() &&
         w->shape().rank() == 4;
}

// A 2-D MaxPool / AveragePool (ONNX's, or com.kiln's with the layout flags) over a rank-4
// float32 X (or 8-bit, for a max pool), giving one rank-4 Y (a max pool's Indices unused).
bool IsPool2d(const ir::Node* n) {
  const bool max = pattern::IsOp(n, "MaxPool") || pattern::IsOp(n, "MaxPool", pattern::kKilnDomain);
  if (!max && !pattern::IsOp(n, "AveragePool") &&
      !pattern::IsOp(n, "AveragePool", pattern::kKilnDomain)) {
    return false;
  }
  const bool indices_used = n->outputs().size() > 1 && n->output(1) != nullptr;
  if (n->outputs().empty() || n->outputs().size() > 2 || indices_used) return false;
  const bool quantized = max && IsRank4(n->input(0), true);
  return IsRank4(n->input(0), quantized) && IsRank4(n->output(0), quantized);
}

// Whether a conv or pool works on 8-bit tensors.
bool IsQuantized(const ir::Node* n) {
  if (IsPool2d(n)) return IsRank4(n->input(0), true);
  return IsQuantizedConv(n);
}

// A node that keeps its X and Y NHWC when marked: a 2-D convolution or pool.
bool IsLayoutNode(const ir::Node* n) { return IsConv2d(n) || IsPool2d(n); }

// Both of one kind (float or quantized): a value passes NHWC only between those.
bool SameKind(const ir::Node* a, const ir::Node* b) { return IsQuantized(a) == IsQuantized(b); }

// Provably the same shape: equal ranks and dims, none unknown (a named symbol counts as known).
bool SameKnownShape(const ir::Shape& a, const ir::Shape& b) {
  if (!a.rank_known() || !(a == b)) return false;
  for (const ir::Dim& d : a.dims()) {
    if (!d.known() && d.symbol.empty()) return false;
  }
  return true;
}

// The attributes `graph` calls for, per node: a value is kept NHWC when every read of it is
// a conv's or pool's X, or a fused conv's Z of exactly the conv's output shape. With `bf16`,
// float values kept NHWC are stored bf16 too.
std::map<const ir::Node*, std::set<std::string>> Plan(const ir::Graph& graph, bool bf16) {
  std::map<const ir::Node*, std::set<std::string>> want;
  for (const auto& producer : graph.nodes()) {
    if (!IsLayoutNode(producer.get())) continue;
    const ir::Value* v = producer->output(0);
    if (pattern::IsGraphOutput(graph, v) || pattern::IsCapturedBySubgraph(graph, v)) continue;
    std::vector<ir::Node*> uses = graph.Uses(v);
    if (uses.empty()) continue;
    std::vector<std::pair<const ir::Node*, const char*>> marks;
    bool ok = true;
    for (const ir::Node* user : std::set<const ir::Node*>(uses.begin(), uses.end())) {
      if (!IsLayoutNode(user) || !SameKind(user, producer.get())) {
        ok = false;
        break;
      }
      for (size_t i = 0; i < user->inputs().size() && ok; ++i) {
        if (user->input(i) != v) continue;
        if (i == 0) {
          marks.emplace_back(user, kX);
        } else if (IsConv2d(user) && i == ResidualIndex(user) &&
                   user->domain() == pattern::kKilnDomain &&
                   SameKnownShape(v->shape(), user->output(0)->shape())) {
          marks.emplace_back(user, kZ);
        } else {
          ok = false;
        }
      }
      if (!ok) break;
    }
    if (!ok) continue;
    marks.emplace_back(producer.get(), kY);
    for (const auto& [node, attr] : marks) {
      want[node].insert(attr);
      if (bf16 && !IsQuantized(node)) want[node].insert(Bf16Mark(attr));
    }
  }
  return want;
}

class ChannelsLastPass : public Pass {
 public:
  const char* name() const override { return "channels_last"; }

  Result<bool> Run(ir::Graph& graph, PassContext& ctx) override {
    const auto want = Plan(graph, ctx.matrix_bf16);
    bool changed = false;
    std::vector<ir::Node*> snapshot;
    for (const auto& n : graph.nodes()) snapshot.push_back(n.get());
    pattern::Rewriter rw(graph);
    for (ir::Node* n : snapshot) {
      const bool is_conv = pattern::IsOp(n, "Conv") || pattern::IsOp(n, "QLinearConv");
      const bool is_pool = pattern::IsOp(n, "MaxPool") || pattern::IsOp(n, "AveragePool");
      if (!is_conv && !is_pool && !pattern::IsOp(n, "FusedConv", pattern::kKilnDomain) &&
          !pattern::IsOp(n, "FusedQLinearConv", pattern::kKilnDomain) &&
          !pattern::IsOp(n, "MaxPool", pattern::kKilnDomain) &&
          !pattern::IsOp(n, "AveragePool", pattern::kKilnDomain)) {
        continue;
      }
      auto it = want.find(n);
      const std::set<std::string> none;
      const std::set<std::string>& attrs = it == want.end() ? none : it->second;
      if (is_conv || is_pool) {
        if (attrs.empty()) continue;
        graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
        const std::string fused = is_pool              ? n->op_type()
                                  : IsQuantizedConv(n) ? "FusedQLinearConv"
                                                       : "FusedConv";
        std::vector<ir::Value*> outputs = n->outputs();
        outputs.resize(1);  // a pool's unused Indices
        pattern::NewNode spec{
            fused,     pattern::kKilnDomain, n->name(), pattern::kKilnOpset, n->inputs(), outputs,
            n->attrs()};
        if (is_conv) spec.attrs["activation"] = std::string();
        for (const std::string& a : attrs) spec.attrs[a] = int64_t{1};
        ctx.log.push_back(StrCat("channels_last: ", n->Label(), " became ",
                                 is_pool ? StrCat(pattern::kKilnDomain, " ", fused) : fused,
                                 " to keep ", Describe(attrs), " NHWC"));
        KILN_RETURN_IF_ERROR(rw.Replace({n}, std::move(spec)).status(), "in channels_last");
        changed = true;
        continue;
      }
      bool touched = false;
      for (const char* a : {kX, kY, kZ, kXb, kYb, kZb}) {
        const bool on = attrs.count(a) != 0;
        const bool has = n->has_attr(a);
        if (on && !(has && n->attr_int(a) == 1)) {
          n->set_attr(a, int64_t{1});
          touched = true;
        } else if (!on && has) {
          n->erase_attr(a);
          touched = true;
        }
      }
      if (touched) {
        ctx.log.push_back(StrCat("channels_last: ", n->Label(), " keeps ",
                                 attrs.empty() ? std::string("nothing") : Describe(attrs),
                                 " NHWC"));
        changed = true;
      }
    }
    return changed;
  }

 private:
  // "X, Y" for {kiln_x_nhwc, kiln_y_nhwc}; "X (bf16)" where X is stored bf16 too.
  static std::string Describe(const std::set<std::string>& attrs) {
    std::string out;
    for (const char* a : {kX, kY, kZ}) {
      if (!attrs.count(a)) continue;
      if (!out.empty()) out += ", ";
      out += a == kX ? "X" : a == kY ? "Y" : "Z";
      if (attrs.count(Bf16Mark(a))) out += " (bf16)";
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateChannelsLastPass() { return std::make_unique<ChannelsLastPass>(); }

}  // namespace kiln::compiler
