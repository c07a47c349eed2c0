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
// nodes never carry Kiln attributes. The NHWC values may also pass through transparent nodes
// (Concat and Split over the channels, Add / Sub / Mul / Div and ArithmeticChain whose other
// inputs are of the same shape or of height and width 1, Relu, ChannelShuffle (ShuffleNet's,
// between its grouped and depthwise convolutions), a nearest Resize; DenseNet's and
// pre-activation ResNets' BatchNormalization -> Relu before each convolution among them, the BN
// an ArithmeticChain by then): the values such a node joins are kept NHWC
// together when all their producers are convs, pools or transparent nodes and all their readers
// take NHWC; the node becomes com.kiln's op of the same name with `kiln_nhwc = 1` and computes
// on the stored order (kernels/nhwc_view.h). A GlobalAveragePool / GlobalMaxPool of known
// height and width counts as a pool (it becomes com.kiln's pool of that window when marked).
// YOLOv8n's C2f blocks and neck, and squeeze-excitation blocks, so run with no reorder. In a model
// whose matrix ops compute in bf16 (PassContext::matrix_bf16) a float value kept NHWC is also
// stored as bfloat16 (`kiln_x_bf16`, `kiln_y_bf16`, `kiln_z_bf16` beside the NHWC marks; its dtype
// stays float32 in the graph, as its dims stay N, C, H, W): the producing convolution writes bf16
// and its readers take bf16, with no conversion between them. In a float32 model a value kept
// NHWC is stored in blocks of 16 (or 8) channels instead (`kiln_x_cblock`, `kiln_y_cblock`,
// `kiln_z_cblock`, and `kiln_cblock` on the transparent nodes that join it, where each computes
// on blocks: CanBlock; ChannelBlock, Plan). The pass owns these attributes and kiln_nhwc: it sets
// each to what the graph calls for now and drops stale ones, so running it twice changes nothing
// the second time.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
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
constexpr char kXc[] = "kiln_x_cblock";
constexpr char kYc[] = "kiln_y_cblock";
constexpr char kZc[] = "kiln_z_cblock";
constexpr char kNhwc[] = "kiln_nhwc";      // a transparent node's one flag
constexpr char kCblock[] = "kiln_cblock";  // and its channel blocks

// The bf16 storage mark that goes with an NHWC mark.
const char* Bf16Mark(const std::string& nhwc) { return nhwc == kX ? kXb : nhwc == kY ? kYb : kZb; }
// The channel-block mark that goes with an NHWC mark.
const char* BlockMark(const std::string& nhwc) {
  return nhwc == kX ? kXc : nhwc == kY ? kYc : nhwc == kZ ? kZc : kCblock;
}

// The smallest batch at which a conv may read channel blocks and write NHWC or the reverse (Plan).
constexpr int64_t kMixedBatch = 2;
// Below it, such convs are kept only while the NHWC values beside blocks hold at most one
// kMixedShare-th of the elements in blocks (Plan).
constexpr int64_t kMixedShare = 100;

// Node -> the layout attributes it should have, with their values.
using Marks = std::map<const ir::Node*, std::map<std::string, int64_t>>;

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

// A GlobalAveragePool / GlobalMaxPool over a float32 rank-4 X of known height and width: the
// com.kiln AveragePool / MaxPool of that window when it keeps a tensor NHWC (the squeeze of a
// squeeze-excitation block, reading its convolution's output).
bool IsGlobalPool(const ir::Node* n) {
  if (!pattern::IsOp(n, "GlobalAveragePool") && !pattern::IsOp(n, "GlobalMaxPool")) return false;
  if (n->outputs().size() != 1 || !IsRank4(n->input(0), false) || !IsRank4(n->output(0), false)) {
    return false;
  }
  const std::vector<ir::Dim>& d = n->input(0)->shape().dims();
  return d[2].known() && d[3].known() && d[2].value > 0 && d[3].value > 0;
}

// Whether a conv or pool works on 8-bit tensors.
bool IsQuantized(const ir::Node* n) {
  if (IsPool2d(n)) return IsRank4(n->input(0), true);
  return IsQuantizedConv(n);
}

// A node that keeps its X and Y NHWC when marked: a 2-D convolution or pool.
bool IsLayoutNode(const ir::Node* n) { return IsConv2d(n) || IsPool2d(n) || IsGlobalPool(n); }

// Both of one kind (float or quantized): a value passes NHWC only between those.
bool SameKind(const ir::Node* a, const ir::Node* b) { return IsQuantized(a) == IsQuantized(b); }

// Whether `v` (an input of an element-wise op whose output is `out`) has height and width 1,
// the batch and channels of `out` or 1: its bytes are the same NCHW or NHWC, so it broadcasts
// over an NHWC tensor as it does over the NCHW one (a squeeze-excitation scale).
bool IsLayoutNeutral(const ir::Value* v, const ir::Shape& out) {
  if (!IsRank4(v, false)) return false;
  const std::vector<ir::Dim>& d = v->shape().dims();
  for (const ir::Dim& dim : d) {
    if (!dim.known()) return false;
  }
  return d[2].value == 1 && d[3].value == 1 && (d[0].value == 1 || d[0] == out.dims()[0]) &&
         (d[1].value == 1 || d[1] == out.dims()[1]);
}

bool IsElementwise(const ir::Node* n) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    if (pattern::IsOp(n, op) || pattern::IsOp(n, op, pattern::kKilnDomain)) return true;
  }
  return false;
}

// A com.kiln ArithmeticChain (batch_norm_affine's BatchNormalizations, before this pass):
// element-wise over any number of inputs, as the arithmetic.
bool IsChain(const ir::Node* n) {
  return pattern::IsOp(n, "ArithmeticChain", pattern::kKilnDomain);
}

// A Relu (ONNX's from opset 6, without the old consumed_inputs, or com.kiln's): element by element.
bool IsUnary(const ir::Node* n) {
  return (pattern::IsOp(n, "Relu") && n->opset() >= 6) ||
         pattern::IsOp(n, "Relu", pattern::kKilnDomain);
}

// A com.kiln ChannelShuffle (channel_shuffle_fusion): a permutation of the channels, which its
// kernel applies to each pixel's channels when they are stored NHWC.
bool IsShuffle(const ir::Node* n) {
  return pattern::IsOp(n, "ChannelShuffle", pattern::kKilnDomain);
}

// The inputs of an element-wise op that are of its output's shape (the others are neutral).
std::vector<size_t> FullInputs(const ir::Node* n) {
  std::vector<size_t> out;
  for (size_t i = 0; i < n->inputs().size(); ++i) {
    if (n->input(i) != nullptr && IsRank4(n->input(i), false) &&
        pattern::SameKnownShape(n->input(i)->shape(), n->output(0)->shape())) {
      out.push_back(i);
    }
  }
  return out;
}

// A node that keeps every rank-4 tensor NHWC when marked kiln_nhwc (ir/ops/fused.cc,
// LayoutTransparent): a Concat or Split over the channels, an Add, Sub, Mul, Div or
// ArithmeticChain whose inputs are of its output's known shape or layout-neutral (at least one of
// the output's shape), a Relu, a ChannelShuffle, or a
// nearest-neighbour Resize of the height and width (opset 11 on, no `axes`), every tensor float32
// of rank 4. A Split before opset 13 gives its sizes as an attribute, which becomes com.kiln's
// input (MarkTransparent); opset 1's Split (sizes as either) is left as it is, and so is a linear
// Resize (the cpu kernel's fast path interpolates the last two axes only).
bool IsTransparent(const ir::Node* n) {
  const bool concat =
      pattern::IsOp(n, "Concat") || pattern::IsOp(n, "Concat", pattern::kKilnDomain);
  const bool split = (pattern::IsOp(n, "Split") && n->opset() >= 2) ||
                     pattern::IsOp(n, "Split", pattern::kKilnDomain);
  const bool elementwise = IsElementwise(n) || IsChain(n);
  const bool resize = (pattern::IsOp(n, "Resize") && n->opset() >= 11) ||
                      pattern::IsOp(n, "Resize", pattern::kKilnDomain);
  const bool unary = IsUnary(n) || IsShuffle(n);
  if (!concat && !split && !elementwise && !resize && !unary) return false;
  if (n->inputs().empty() || n->outputs().empty()) return false;
  for (const ir::Value* out : n->outputs()) {
    if (!IsRank4(out, false)) return false;
  }
  if (unary) {
    return n->inputs().size() == 1 && n->outputs().size() == 1 && IsRank4(n->input(0), false) &&
           pattern::SameKnownShape(n->input(0)->shape(), n->output(0)->shape());
  }
  if (elementwise) {
    if ((!IsChain(n) && n->inputs().size() != 2) || FullInputs(n).empty()) return false;
    for (const ir::Value* in : n->inputs()) {
      if (in == nullptr) return false;
      if (!(IsRank4(in, false) && pattern::SameKnownShape(in->shape(), n->output(0)->shape())) &&
          !IsLayoutNeutral(in, n->output(0)->shape())) {
        return false;
      }
    }
    return true;
  }
  if (!IsRank4(n->input(0), false)) return false;
  for (size_t i = 1; concat && i < n->inputs().size(); ++i) {
    if (!IsRank4(n->input(i), false)) return false;
  }
  if (resize) {
    const ir::Shape& x = n->input(0)->shape();
    const ir::Shape& y = n->output(0)->shape();
    for (size_t d : {0, 1}) {  // batch and channels unchanged
      const ir::Dim& in = x.dims()[d];
      const ir::Dim& out = y.dims()[d];
      if (!in.known() || !(in == out)) return false;
    }
    return n->attr_string("mode") == "nearest" && !n->has_attr("axes") &&
           n->attr_string("coordinate_transformation_mode") != "tf_crop_and_resize";
  }
  const int64_t axis = n->attr_int("axis");
  return axis == 1 || axis == -3;
}

// The rank-4 tensors a transparent node keeps NHWC: its data inputs (an element-wise op's of the
// output's shape; its neutral ones are NHWC and NCHW at once), then its outputs.
std::vector<const ir::Value*> TransparentTensors(const ir::Node* n) {
  std::vector<const ir::Value*> out;
  if (IsElementwise(n) || IsChain(n)) {
    for (size_t i : FullInputs(n)) out.push_back(n->input(i));
  } else {
    const bool one_input = n->op_type() == "Split" || n->op_type() == "Resize" ||
                           n->op_type() == "Relu" || IsShuffle(n);
    for (size_t i = 0; i < (one_input ? 1 : n->inputs().size()); ++i) out.push_back(n->input(i));
  }
  for (const ir::Value* v : n->outputs()) out.push_back(v);
  return out;
}

// Whether a transparent node computes on channel blocks as on NHWC (kiln_cblock; the view kernels
// of kernels/nhwc_view.h): a Concat or Split over the channels, the arithmetic (its neutral
// operands have one channel or all of them: the same bytes in blocks), a Relu, a nearest Resize
// of the height and width. Not a ChannelShuffle (it moves channels across blocks).
bool CanBlock(const ir::Node* n) { return !IsShuffle(n); }

// The batch (0 when not known) and the known channels of a rank-4 value.
std::optional<std::pair<int64_t, int64_t>> BatchAndChannels(const ir::Value* v) {
  if (v == nullptr || !v->shape().rank_known() || v->shape().rank() != 4) return std::nullopt;
  const std::vector<ir::Dim>& d = v->shape().dims();
  if (!d[1].known()) return std::nullopt;
  return std::make_pair(d[0].known() ? d[0].value : int64_t{0}, d[1].value);
}

// The channel block of a model's blockable values (`count` of them, `channels(i)` each): 16 when
// every one's channels are a multiple of 16, else 8 (values of other channel counts stay NHWC;
// Plan takes 16 from batch 2 whatever the channels, below). One block for the model, so that no
// convolution reads one block size and writes another.
// Measured on 2 cores (oneDNN 2.6, AVX-512): left to choose, oneDNN computes NHWC convolutions
// with brgemm kernels; its blocked kernels took 0.3-0.8x their time on MobileNetV2's layers at
// batch 8 (0.8-1.3x at batch 1), and whole models in blocks (same library, interleaved) 0.83-0.86x
// (MobileNetV2 batch 8), 0.88-0.94x (ResNet-50 batch 8), 0.96-0.97x (ResNet-50 batch 1; Plan
// keeps blocks of 8 from batch 1).
// nChw16c keeps ResNet-50's Winograd layers free of reorders, nChw8c suits 24 or 144 channels
// (MobileNetV2 at batch 8: 0.82x with 8, 0.85x with 16 and its 24-channel tensors NHWC).
template <typename Channels>
int64_t ChannelBlock(size_t count, Channels&& channels) {
  for (size_t i = 0; i < count; ++i) {
    if (channels(i) % 16 != 0) return 8;
  }
  return 16;
}

// Union-find over values: the values a transparent node joins are kept NHWC together or not at
// all (the node has one flag).
struct Groups {
  std::map<const ir::Value*, const ir::Value*> parent;
  const ir::Value* Find(const ir::Value* v) {
    auto it = parent.find(v);
    if (it == parent.end()) return parent[v] = v;
    if (it->second == v) return v;
    return it->second = Find(it->second);
  }
  void Join(const ir::Value* a, const ir::Value* b) { parent[Find(a)] = Find(b); }
};

// The attributes `graph` calls for, per node: a value is kept NHWC when its producer is a conv,
// a pool or a transparent node, and every read of it is a conv's or pool's X, a fused conv's Z of
// exactly the conv's output shape, or a transparent node's tensor; the values a transparent node
// joins go together. With `bf16`, float values kept NHWC are stored bf16 too, and transparent
// nodes (whose kernels do not read bf16) are not used. Otherwise float values kept NHWC whose
// transparent nodes all compute on blocks are stored in channel blocks (ChannelBlock), at batch 1
// blocks of 16 only, and there only where the convs and pools that would read or write both
// blocks and NHWC touch few elements on their NHWC side (kMixedShare).
Marks Plan(const ir::Graph& graph, bool bf16) {
  Marks want;
  Groups groups;
  std::vector<const ir::Node*> transparent;
  for (const auto& n : graph.nodes()) {
    if (bf16 || !IsTransparent(n.get())) continue;
    transparent.push_back(n.get());
    const std::vector<const ir::Value*> tensors = TransparentTensors(n.get());
    for (const ir::Value* v : tensors) groups.Join(v, tensors.front());
  }
  // Per group: its values' marks, or nothing once one value rules the group out.
  struct Group {
    bool ok = true;
    std::vector<std::pair<const ir::Node*, const char*>> marks;
    std::vector<const ir::Value*> values;  // all of one batch
    bool transparent = false;              // a transparent node joins its values
    bool can_block = true;  // every transparent node among them computes on blocks (CanBlock)
    bool quantized = false;
  };
  std::map<const ir::Value*, Group> plan;
  auto consider = [&](const ir::Node* producer, const ir::Value* v) {
    Group& g = plan[groups.Find(v)];
    if (!g.ok) return;
    g.values.push_back(v);
    g.quantized = IsQuantized(producer);
    const bool via = IsTransparent(producer) && !bf16;
    if (pattern::IsGraphOutput(graph, v) || pattern::IsCapturedBySubgraph(graph, v)) {
      g.ok = false;
      return;
    }
    std::vector<ir::Node*> uses = graph.Uses(v);
    if (uses.empty() && !via) {
      g.ok = false;
      return;
    }
    for (const ir::Node* user : std::set<const ir::Node*>(uses.begin(), uses.end())) {
      if (!bf16 && IsTransparent(user)) continue;  // the same group; marked below
      if (!IsLayoutNode(user) || (!via && !SameKind(user, producer)) ||
          (via && IsQuantized(user))) {
        g.ok = false;
        return;
      }
      for (size_t i = 0; i < user->inputs().size(); ++i) {
        if (user->input(i) != v) continue;
        if (i == 0) {
          g.marks.emplace_back(user, kX);
        } else if (IsConv2d(user) && i == ResidualIndex(user) &&
                   user->domain() == pattern::kKilnDomain &&
                   pattern::SameKnownShape(v->shape(), user->output(0)->shape())) {
          g.marks.emplace_back(user, kZ);
        } else {
          g.ok = false;
          return;
        }
      }
    }
    g.marks.emplace_back(producer, via ? kNhwc : kY);
    g.transparent |= via;
  };
  std::set<const ir::Value*> seen;
  for (const auto& n : graph.nodes()) {
    const bool via = !bf16 && IsTransparent(n.get());
    if (!IsLayoutNode(n.get()) && !via) continue;
    for (const ir::Value* v : via ? n->outputs() : std::vector<ir::Value*>{n->output(0)}) {
      if (seen.insert(v).second) consider(n.get(), v);
    }
  }
  // A transparent node's inputs must come from a conv, a pool or another transparent node (not
  // a constant, a graph input or any other op): each is one of the values considered above.
  for (const ir::Node* t : transparent) {
    const std::vector<const ir::Value*> tensors = TransparentTensors(t);
    Group& g = plan[groups.Find(tensors.front())];
    for (const ir::Value* v : tensors) {
      if (!seen.count(v)) g.ok = false;
    }
    g.marks.emplace_back(t, kNhwc);
    g.transparent = true;
    g.can_block &= CanBlock(t);
  }
  std::vector<const Group*> blockable;
  std::map<const ir::Node*, std::vector<const Group*>> touching;  // the NHWC groups of each node
  for (const auto& [root, g] : plan) {
    if (!g.ok) continue;
    for (const auto& [node, attr] : g.marks) {
      want[node][attr] = 1;
      if (bf16 && !IsQuantized(node)) want[node][Bf16Mark(attr)] = 1;
      touching[node].push_back(&g);
    }
    const bool known = std::all_of(g.values.begin(), g.values.end(),
                                   [](const ir::Value* v) { return BatchAndChannels(v); });
    if (!bf16 && g.can_block && !g.quantized && !g.values.empty() && known) {
      blockable.push_back(&g);
    }
  }
  // The largest block (16, 8, else 1) that every value of a group has whole.
  auto channels = [](const Group* g) {
    int64_t granule = 16;
    for (const ir::Value* v : g->values) {
      const int64_t c = BatchAndChannels(v)->second;
      while (granule > 1 && c % granule != 0) granule /= 2;
    }
    return granule < 8 ? int64_t{1} : granule;
  };
  const bool batch_one = std::any_of(blockable.begin(), blockable.end(), [](const Group* g) {
    return BatchAndChannels(g->values.front())->first < kMixedBatch;
  });
  // At batch 1 blocks of 16 only: oneDNN's nChw8c kernels are its AVX2 ones, and MobileNetV2 in
  // blocks of 8 took 0.96-1.20x its NHWC time from one minute to the next on the AMD VM (blocks of
  // 16 on ResNet-50: 0.96-0.97x each time).
  int64_t block =
      batch_one ? 16
                : ChannelBlock(blockable.size(), [&](size_t i) { return channels(blockable[i]); });
  std::set<const Group*> blocked;
  for (const Group* g : blockable) {
    if (channels(g) % block == 0) blocked.insert(g);
  }
  // A conv's Y that only pools read, whose own Y is not kept NHWC (a classifier's last conv of
  // 1000 channels before its global pool).
  auto leaf = [&](const Group* g) {
    if (g->transparent) return false;
    for (const auto& [node, attr] : g->marks) {
      if (attr == kY) continue;
      if (attr != kX || (!IsPool2d(node) && !IsGlobalPool(node)) ||
          touching.find(node)->second.size() != 1) {
        return false;
      }
    }
    return true;
  };
  auto elements = [](const Group* g) {
    int64_t n = 0;
    for (const ir::Value* v : g->values) n += v->shape().NumElements().value_or(0);
    return n;
  };
  // At batch 1 a conv or pool that reads or writes both blocks and NHWC reorders inside it. The
  // leaves beside blocks are stored plain (their conv's reorder is the same either way). The other
  // NHWC values beside blocks stay so when they hold at most 1/kMixedShare of the elements in
  // blocks (Inception v1's 24-channel 5x5 reductions, 0.18 %: 0.92x the time of all NHWC); past
  // that a node with values of both kinds leaves all of its values NHWC, until none has both
  // (MobileNetV2's 24- and 144-channel stage, 2.3 %: 1.08x with the mix; YuNet, 9 %: 1.05x;
  // YOLOv8n, whose C2f values stayed NHWC, 1.07x).
  std::set<const Group*> plain;  // dropped: none of their marks
  if (batch_one) {
    std::set<const Group*> beside;  // NHWC groups of a node with blocks
    for (const auto& [node, groups] : touching) {
      if (std::none_of(groups.begin(), groups.end(),
                       [&](const Group* g) { return blocked.count(g) != 0; })) {
        continue;
      }
      for (const Group* g : groups) {
        if (!blocked.count(g)) beside.insert(g);
      }
    }
    int64_t in_blocks = 0, mixed = 0;
    for (const Group* g : blocked) in_blocks += elements(g);
    for (const Group* g : beside) {
      if (leaf(g)) {
        plain.insert(g);
      } else {
        mixed += elements(g);
      }
    }
    if (mixed * kMixedShare > in_blocks) plain.clear();
    for (bool changed = mixed * kMixedShare > in_blocks; changed;) {
      changed = false;
      for (const auto& [node, groups] : touching) {
        const size_t in = static_cast<size_t>(std::count_if(
            groups.begin(), groups.end(), [&](const Group* g) { return blocked.count(g) != 0; }));
        if (in == 0 || in == groups.size()) continue;
        for (const Group* g : groups) changed |= blocked.erase(g) != 0;
      }
    }
  }
  for (const Group* g : plain) {
    for (const auto& [node, attr] : g->marks) {
      want[node].erase(attr);
      if (want[node].empty()) want.erase(node);
    }
  }
  if (std::all_of(blocked.begin(), blocked.end(),
                  [&](const Group* g) { return channels(g) % 16 == 0; })) {
    block = 16;  // what is left may all take the larger block
  }
  // From batch 2 blocks of 16 only, the values of other channel counts NHWC: oneDNN 2.6's nChw8c
  // kernels are its AVX2 ones, which on Sapphire Rapids took 2.5-7x the NHWC time of its
  // AVX-512 brgemm ones (MobileNetV2's 1x1 convolutions 24 <-> 144 at 56x56, batch 8) and made
  // MobileNetV2 batch 8 1.30x its time with the 24-channel values NHWC and the rest in blocks of
  // 16 (interleaved, 3 runs each); on the Zen 4 VM blocks of 8 had been 0.96x that.
  if (!batch_one && block == 8) {
    blocked.clear();
    for (const Group* g : blockable) {
      if (channels(g) % 16 == 0) blocked.insert(g);
    }
    block = 16;
  }
  for (const Group* g : blocked) {
    for (const auto& [node, attr] : g->marks) want[node][BlockMark(attr)] = block;
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
      if (IsTransparent(n) || IsTransparentKiln(n)) {
        KILN_ASSIGN_OR_RETURN(const bool t, MarkTransparent(graph, rw, n, want, ctx));
        changed |= t;
        continue;
      }
      const bool is_conv = pattern::IsOp(n, "Conv") || pattern::IsOp(n, "QLinearConv");
      const bool is_global = IsGlobalPool(n);
      const bool is_pool =
          pattern::IsOp(n, "MaxPool") || pattern::IsOp(n, "AveragePool") || is_global;
      if (!is_conv && !is_pool && !pattern::IsOp(n, "FusedConv", pattern::kKilnDomain) &&
          !pattern::IsOp(n, "FusedQLinearConv", pattern::kKilnDomain) &&
          !pattern::IsOp(n, "MaxPool", pattern::kKilnDomain) &&
          !pattern::IsOp(n, "AveragePool", pattern::kKilnDomain)) {
        continue;
      }
      auto it = want.find(n);
      const std::map<std::string, int64_t> none;
      const std::map<std::string, int64_t>& attrs = it == want.end() ? none : it->second;
      if (is_conv || is_pool) {
        if (attrs.empty()) continue;
        graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
        const std::string fused =
            is_global            ? (pattern::IsOp(n, "GlobalMaxPool") ? "MaxPool" : "AveragePool")
            : is_pool            ? n->op_type()
            : IsQuantizedConv(n) ? "FusedQLinearConv"
                                 : "FusedConv";
        std::vector<ir::Value*> outputs = n->outputs();
        outputs.resize(1);  // a pool's unused Indices
        pattern::NewNode spec{
            fused,     pattern::kKilnDomain, n->name(), pattern::kKilnOpset, n->inputs(), outputs,
            n->attrs()};
        if (is_conv) spec.attrs["activation"] = std::string();
        if (is_global) {  // the whole of X's height and width as the window
          const std::vector<ir::Dim>& d = n->input(0)->shape().dims();
          spec.attrs["kernel_shape"] = std::vector<int64_t>{d[2].value, d[3].value};
        }
        for (const auto& [a, value] : attrs) spec.attrs[a] = value;
        ctx.log.push_back(StrCat("channels_last: ", n->Label(), " became ",
                                 is_pool ? StrCat(pattern::kKilnDomain, " ", fused) : fused,
                                 " to keep ", Describe(attrs), " NHWC"));
        KILN_RETURN_IF_ERROR(rw.Replace({n}, std::move(spec)).status(), "in channels_last");
        changed = true;
        continue;
      }
      bool touched = false;
      for (const char* a : {kX, kY, kZ, kXb, kYb, kZb, kXc, kYc, kZc}) {
        const bool on = attrs.count(a) != 0;
        const bool has = n->has_attr(a);
        if (on && !(has && n->attr_int(a) == attrs.at(a))) {
          n->set_attr(a, attrs.at(a));
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
  // A com.kiln Concat / Split / Add / Sub / Mul / Div / Resize / Relu, an ArithmeticChain or a
  // ChannelShuffle (which may have lost its reason to be NHWC).
  static bool IsTransparentKiln(const ir::Node* n) {
    return pattern::IsOp(n, "Concat", pattern::kKilnDomain) ||
           pattern::IsOp(n, "Split", pattern::kKilnDomain) ||
           (IsElementwise(n) && n->domain() == pattern::kKilnDomain) ||
           pattern::IsOp(n, "Resize", pattern::kKilnDomain) ||
           pattern::IsOp(n, "Relu", pattern::kKilnDomain) || IsChain(n) || IsShuffle(n);
  }

  // Gives a transparent node the flag the plan calls for: an ONNX node that needs it becomes the
  // com.kiln op of the same name (a Split of even parts names their count, as opset 18 does, and
  // one whose sizes are an attribute, before opset 13, gives them as an input, as opset 13 does);
  // a com.kiln node gets or loses kiln_nhwc. Whether it changed the graph.
  static Result<bool> MarkTransparent(ir::Graph& graph, pattern::Rewriter& rw, ir::Node* n,
                                      const Marks& want, PassContext& ctx) {
    auto it = want.find(n);
    const bool on = it != want.end() && it->second.count(kNhwc) != 0;
    const int64_t block = on && it->second.count(kCblock) ? it->second.at(kCblock) : 0;
    auto kept = [&] { return block != 0 ? StrCat("in blocks of ", block) : std::string("NHWC"); };
    if (n->domain() == pattern::kKilnDomain) {
      const bool has = n->has_attr(kNhwc) && n->attr_int(kNhwc) == 1;
      const int64_t had = n->has_attr(kCblock) ? n->attr_int(kCblock) : 0;
      if (on == has && block == had) return false;
      if (on) {
        n->set_attr(kNhwc, int64_t{1});
      } else {
        n->erase_attr(kNhwc);
      }
      if (block != 0) {
        n->set_attr(kCblock, block);
      } else {
        n->erase_attr(kCblock);
      }
      ctx.log.push_back(StrCat("channels_last: ", n->Label(), on ? " keeps" : " no longer keeps",
                               " its tensors ", on ? kept() : std::string("NHWC")));
      return true;
    }
    if (!on) return false;
    graph.opsets().emplace(pattern::kKilnDomain, pattern::kKilnOpset);
    pattern::NewNode spec{n->op_type(), pattern::kKilnDomain, n->name(), pattern::kKilnOpset,
                          n->inputs(),  n->outputs(),         n->attrs()};
    spec.attrs[kNhwc] = int64_t{1};
    if (block != 0) spec.attrs[kCblock] = block;
    if (n->op_type() == "Split" && n->has_attr("split")) {  // before opset 13: an attribute
      const std::vector<int64_t> sizes = n->attr_ints("split");
      ir::Value* c = graph.AddUniqueValue(n->name() + "_sizes", {});
      c->set_constant(ir::Tensor::FromVector(ir::DataType::kInt64,
                                             {static_cast<int64_t>(sizes.size())}, sizes));
      spec.inputs.resize(1);
      spec.inputs.push_back(c);
      spec.attrs.erase("split");
    }
    const bool sizes_given = spec.inputs.size() > 1 && spec.inputs[1] != nullptr;
    if (n->op_type() == "Split" && !sizes_given && !n->has_attr("num_outputs")) {
      spec.attrs["num_outputs"] = static_cast<int64_t>(n->outputs().size());
    }
    ctx.log.push_back(StrCat("channels_last: ", n->Label(), " became ", pattern::kKilnDomain, " ",
                             n->op_type(), " to keep its tensors ", kept()));
    KILN_RETURN_IF_ERROR(rw.Replace({n}, std::move(spec)).status(), "in channels_last");
    return true;
  }

  // "X, Y" for {kiln_x_nhwc, kiln_y_nhwc}; "X (bf16)" where X is stored bf16 too, "X (blocks
  // of 16)" where in channel blocks.
  static std::string Describe(const std::map<std::string, int64_t>& attrs) {
    std::string out;
    for (const char* a : {kX, kY, kZ}) {
      if (!attrs.count(a)) continue;
      if (!out.empty()) out += ", ";
      out += a == kX ? "X" : a == kY ? "Y" : "Z";
      if (attrs.count(Bf16Mark(a))) out += " (bf16)";
      auto block = attrs.find(BlockMark(a));
      if (block != attrs.end()) out += StrCat(" (blocks of ", block->second, ")");
    }
    return out;
  }
};

}  // namespace

std::unique_ptr<Pass> CreateChannelsLastPass() { return std::make_unique<ChannelsLastPass>(); }

}  // namespace kiln::compiler
