// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// Matching and rewriting helpers shared by the fusion passes: use counts that see graph
// outputs and subgraph captures, scalar constants, and replacing a chain of nodes by one node
// that keeps the graph in topological order.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "base/status.h"
#include "ir/graph.h"

namespace kiln::compiler::pattern {

// The domain of Kiln's fused ops (FusedConv, FusedGemm, FusedMatMul) and the opset version the
// passes give them.
inline constexpr char kKilnDomain[] = "com.kiln";
inline constexpr int kKilnOpset = 1;

// True when `n` is a node of `op_type` in `domain` ("" is ONNX).
bool IsOp(const ir::Node* n, std::string_view op_type, std::string_view domain = "");

// True when `v` is one of the graph's outputs.
bool IsGraphOutput(const ir::Graph& graph, const ir::Value* v);

// True when some subgraph (an If/Loop/Scan body, at any depth) reads `v` from the enclosing
// scope. Such reads are by name and do not show in Graph::Uses().
bool IsCapturedBySubgraph(const ir::Graph& graph, const ir::Value* v);

// The node that reads `v` when `v` has exactly one use (one input slot of one node), is not a
// graph output and is not captured by a subgraph; null otherwise. This is the condition for a
// value to disappear inside a fusion.
ir::Node* SoleUser(const ir::Graph& graph, const ir::Value* v);

// The value of a constant holding exactly one element of a numeric type; nullopt otherwise.
std::optional<double> ScalarConstant(const ir::Value* v);

// True when `c` is a one-element constant whose rank does not exceed the rank of `like`, so that
// broadcasting `like` with it cannot grow the result (a `like` of unknown rank only admits a
// rank-0 constant).
bool IsScalarFor(const ir::Value* c, const ir::Value* like);

// IsScalarFor(c, like), and the value is within `tol` of `expected`.
bool IsScalarNear(const ir::Value* c, double expected, const ir::Value* like, double tol = 1e-4);

// For a two-input node, the input that is not `v` (the second one when both are `v`); null when
// `v` is not an input or the node does not have two inputs.
ir::Value* OtherInput(const ir::Node& n, const ir::Value* v);

// An affine step applied to `v` by a two-input node: y = v + c, v - c, v * c or v / c, with c
// the node's other input (either side of Add and Mul; the right of Sub and Div).
struct AffineStep {
  enum Kind { kAdd, kSub, kMul, kDiv } kind;
  const ir::Value* c;
};
// The step `n` applies to `v`; nullopt for any other node or orientation (c - v, v / v, ...).
std::optional<AffineStep> MatchAffineStep(const ir::Node* n, const ir::Value* v);
// Composes y = x * scale + shift with the step by `c`: the new scale and shift of y (for c != 0
// when dividing; the caller checks).
void ComposeAffine(AffineStep::Kind kind, double c, double& scale, double& shift);

// True when `a` and `b` are provably the same dim: both known and equal, or the same named
// dynamic dim.
bool SameKnownDim(const ir::Dim& a, const ir::Dim& b);

// True when `a` and `b` are provably the same shape: equal ranks and dims, none unknown (a named
// symbol counts as known, being the same size wherever it appears).
bool SameKnownShape(const ir::Shape& a, const ir::Shape& b);

// True when `v` is computed (transitively) from an output of `node`.
bool DependsOn(const ir::Value* v, const ir::Node* node);

// The float32 values of a constant `v` holding exactly `n` elements; nullopt otherwise.
std::optional<std::vector<float>> FloatConstant(const ir::Value* v, int64_t n);

// The per-channel values of constant `v` applied to a rank-`rank` tensor of `m` channels (axis 1):
// a scalar, or a tensor whose only dim other than 1 is the channel axis (dims aligned from the
// right as broadcasting aligns them); nullopt for anything else.
std::optional<std::vector<float>> PerChannelConstant(const ir::Value* v, size_t rank, int64_t m);

// y = x * scale[c] + shift[c] per channel c (in double).
struct ChannelAffine {
  std::vector<double> scale, shift;
};
// What `bn` computes on `x` of `channels` channels when it is an inference BatchNormalization
// reading `x` (no training mode, `spatial` 1 before opset 9, its training outputs read by nobody)
// with float32 constant parameters of `channels` values each: scale = s / sqrt(var + epsilon),
// shift = B - mean * scale. nullopt for anything else, or where var + epsilon <= 0 (the
// BatchNormalization then gives NaN or inf, which stays visible).
std::optional<ChannelAffine> InferenceBatchNormAffine(const ir::Graph& graph, const ir::Node* bn,
                                                      const ir::Value* x, int64_t channels);

// A new node that replaces a matched chain.
struct NewNode {
  std::string op_type;
  std::string domain;
  std::string name;
  int opset = 0;
  std::vector<ir::Value*> inputs;
  std::vector<ir::Value*> outputs;
  std::map<std::string, ir::Attribute> attrs;
};

// Applies rewrites to a graph while a pass walks it. Not thread-safe; borrows the graph.
class Rewriter {
 public:
  explicit Rewriter(ir::Graph& graph) : graph_(graph) {}

  ir::Graph& graph() { return graph_; }
  // True when `node` was removed by Replace() during this walk (its pointer may since have
  // been reused, so it must not be dereferenced).
  bool removed(const ir::Node* node) const { return removed_.count(node) != 0; }

  // Removes `old_nodes` and adds `spec` where the last of them (in node order) stood, so that a
  // topologically sorted graph stays sorted when the new node reads only values that were
  // available to one of the old nodes. The new node's origins are its name followed by every
  // origin of `old_nodes`, in order. The outputs in `spec` must belong to `old_nodes` (or be
  // fresh); they lose their old producer first.
  Result<ir::Node*> Replace(const std::vector<ir::Node*>& old_nodes, NewNode spec);

 private:
  ir::Graph& graph_;
  std::unordered_set<const ir::Node*> removed_;
};

// Calls `try_rewrite` on every node of `graph`, in order, skipping nodes removed meanwhile; walks
// again while a walk changed something (new nodes are visited by the next walk). Each rewrite
// must remove more nodes than it adds, so the walks end. Prunes dead values when anything
// changed. Returns whether anything changed, or the first error of `try_rewrite`.
Result<bool> RewriteEachNode(ir::Graph& graph,
                             const std::function<Result<bool>(ir::Node&, Rewriter&)>& try_rewrite);

}  // namespace kiln::compiler::pattern
