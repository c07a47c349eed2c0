// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
#include "compiler/memory_planner.h"

#include "ir/op_schema.h"

#include <algorithm>
#include <set>
#include <unordered_set>

namespace kiln::compiler {
namespace {

uint64_t AlignUp(uint64_t v) { return (v + kPlanAlignment - 1) / kPlanAlignment * kPlanAlignment; }

struct Interval {
  const ir::Value* value;
  size_t first, last;  // node indices: produced at `first`, last read at `last`
  uint64_t bytes;
};

// Whether a Concat's inputs are whole byte ranges of its output, one after another: the dims
// before its axis, in the order the output is stored, are all 1. Plain storage: the dims before
// `axis`. channels_last's com.kiln Concat with kiln_nhwc (ir/ops/fused.cc) stores its tensors
// NHWC, the channels innermost (never), or with kiln_cblock in blocks N, C/b, H, W, b over the
// channels (the batch is before them).
bool JoinsWholeRanges(const ir::Node& n) {
  if (n.op_type() != "Concat" || (!n.domain().empty() && n.domain() != "com.kiln")) return false;
  const ir::Value* out = n.outputs().empty() ? nullptr : n.output(0);
  if (out == nullptr || !out->shape().IsStatic() || !n.has_attr("axis")) return false;
  const std::vector<ir::Dim>& d = out->shape().dims();
  const int64_t rank = static_cast<int64_t>(d.size());
  int64_t before = n.attr_int("axis");
  if (before < 0) before += rank;
  if (before < 0 || before >= rank) return false;
  if (n.has_attr("kiln_nhwc") && n.attr_int("kiln_nhwc") == 1) {
    if (!n.has_attr("kiln_cblock") || n.attr_int("kiln_cblock") <= 0) return false;
    before = 1;
  }
  for (int64_t k = 0; k < before; ++k) {
    if (d[static_cast<size_t>(k)].value != 1) return false;
  }
  return true;
}

}  // namespace

std::optional<uint64_t> BytesOf(const ir::Value& v) {
  auto n = v.shape().NumElements();
  if (!n || ir::BitsOf(v.dtype()) == 0) return std::nullopt;
  const uint64_t bytes = ir::StorageBytes(v.dtype(), static_cast<uint64_t>(*n));
  if (bytes > (uint64_t{1} << 56)) return std::nullopt;  // too large to plan: run-time checked
  return bytes;
}

// The input whose memory output 0 may take (kTraitInPlace), or null. Not one the node also reads
// at another input: a kernel of several steps (ArithmeticChain) would read there what it has
// already overwritten.
const ir::Value* InPlaceInput(const ir::Node& node) {
  const ir::OpSchema* schema = ir::OpRegistry::Global().Find(node.domain(), node.op_type());
  if (schema == nullptr || !schema->has(ir::kTraitInPlace)) return nullptr;
  const ir::Value* in = node.input(schema->in_place_input);
  for (size_t i = 0; i < node.inputs().size(); ++i) {
    if (i != schema->in_place_input && node.input(i) == in) return nullptr;
  }
  return in;
}

Result<MemoryPlan> PlanMemory(const ir::Graph& graph, const PlanOptions& options) {
  MemoryPlan plan;
  // Weights: one after another in graph value order, each aligned.
  for (const auto& v : graph.values()) {
    if (const ir::Tensor* t = v->constant()) {
      Placement p;
      p.offset = plan.weight_size;
      p.bytes = t->bytes();
      plan.weights[v.get()] = p;
      plan.weight_size = AlignUp(plan.weight_size + t->bytes());
    }
  }
  std::unordered_set<const ir::Value*> outputs(graph.outputs().begin(), graph.outputs().end());
  std::unordered_map<const ir::Value*, size_t> first, last;
  std::vector<const ir::Node*> order;
  for (const auto& n : graph.nodes()) order.push_back(n.get());
  std::unordered_set<const ir::Value*> captured;  // read by name inside an If/Loop body
  for (size_t i = 0; i < order.size(); ++i) {
    for (const ir::Value* in : order[i]->inputs()) {
      if (in) last[in] = i;
    }
    for (const std::string& name : ir::CapturedNames(*order[i])) {
      if (const ir::Value* v = graph.FindValue(name)) {
        last[v] = i;  // the body reads it when the node runs
        captured.insert(v);
      }
    }
    for (const ir::Value* out : order[i]->outputs()) {
      if (out && !outputs.count(out) && !out->constant()) {
        first[out] = i;
        last.emplace(out, i);  // an unread output still needs storage while it is written
      }
    }
  }
  // In-place: the output takes the input's storage when the input dies here.
  std::unordered_map<const ir::Value*, const ir::Value*> alias;  // value -> storage owner
  std::unordered_set<const ir::Value*> owners;                   // the values of alias
  for (size_t i = 0; i < order.size(); ++i) {
    const ir::Node& n = *order[i];
    if (n.outputs().empty() || n.inputs().empty()) continue;
    const ir::Value* in = InPlaceInput(n);
    const ir::Value* out = n.output(0);
    if (!in || !out || !first.count(in) || !first.count(out) || last[in] != i ||
        captured.count(in)) {
      continue;
    }
    auto in_bytes = BytesOf(*in), out_bytes = BytesOf(*out);
    if (!in_bytes || in_bytes != out_bytes) continue;
    const ir::Value* owner = alias.count(in) ? alias[in] : in;
    alias[out] = owner;
    owners.insert(owner);
    last[owner] = std::max(last[owner], last[out]);
  }
  // Concat in place: an input the Concat reads last (so no later reader sees the output's
  // storage change), made by a node, of known size, neither an in-place output nor any value's
  // storage, and once among the inputs, is a part of the output at its byte offset (aligned).
  // A part may be a Concat's output itself (DenseNet's blocks nest): its parts go with it.
  std::unordered_map<const ir::Value*, std::pair<const ir::Value*, uint64_t>> part;  // -> whole
  for (size_t i = 0; options.concat_in_place && i < order.size(); ++i) {
    const ir::Node& n = *order[i];
    if (!JoinsWholeRanges(n)) continue;
    const ir::Value* whole = n.output(0);
    if (!first.count(whole) || captured.count(whole) || !BytesOf(*whole)) continue;
    uint64_t offset = 0;
    for (size_t k = 0; k < n.inputs().size(); ++k) {
      const ir::Value* in = n.input(k);
      const std::optional<uint64_t> bytes = in ? BytesOf(*in) : std::nullopt;
      if (!bytes) break;  // the offsets after it are unknown
      const bool once = std::count(n.inputs().begin(), n.inputs().end(), in) == 1;
      if (once && first.count(in) && last[in] == i && !captured.count(in) && !alias.count(in) &&
          !owners.count(in) && offset % kPlanAlignment == 0) {
        part[in] = {whole, offset};
      }
      offset += *bytes;
    }
  }
  // Each part's outermost whole (its root) and offset there; a root lives from its first part on.
  auto root_of = [&](const ir::Value* v) {
    uint64_t offset = 0;
    for (auto it = part.find(v); it != part.end(); it = part.find(v)) {
      offset += it->second.second;
      v = it->second.first;
    }
    return std::make_pair(v, offset);
  };
  for (const auto& [v, whole] : part) {
    const ir::Value* root = root_of(v).first;
    first[root] = std::min(first[root], first[v]);
    last[root] = std::max(last[root], last[v]);
  }
  std::vector<Interval> intervals;
  for (auto& [v, f] : first) {
    auto bytes = BytesOf(*v);
    if (!bytes) {
      plan.activations[v].dynamic = true;
      continue;
    }
    plan.naive_size += AlignUp(*bytes);
    if (alias.count(v) || part.count(v)) continue;
    intervals.push_back({v, f, last[v], AlignUp(*bytes)});
  }
  // Greedy by size: the largest tensors first, each at the lowest offset where it overlaps no
  // placed tensor whose lifetime overlaps its own.
  std::sort(intervals.begin(), intervals.end(), [](const Interval& a, const Interval& b) {
    if (a.bytes != b.bytes) return a.bytes > b.bytes;
    return a.first < b.first;
  });
  struct Placed {
    uint64_t offset, bytes;
    size_t first, last;
  };
  std::vector<Placed> placed;
  for (const Interval& it : intervals) {
    std::vector<std::pair<uint64_t, uint64_t>> busy;  // [offset, end) of overlapping lifetimes
    for (const Placed& p : placed) {
      if (p.first <= it.last && it.first <= p.last) busy.push_back({p.offset, p.offset + p.bytes});
    }
    std::sort(busy.begin(), busy.end());
    uint64_t best = UINT64_MAX, best_gap = UINT64_MAX, cursor = 0;
    for (const auto& [b, e] : busy) {
      if (b >= cursor && b - cursor >= it.bytes && b - cursor < best_gap) {
        best = cursor;
        best_gap = b - cursor;  // best fit: the smallest gap that holds it
      }
      cursor = std::max(cursor, e);
    }
    if (best == UINT64_MAX) best = cursor;
    placed.push_back({best, it.bytes, it.first, it.last});
    Placement& p = plan.activations[it.value];
    p.offset = best;
    p.bytes = it.bytes;
    plan.work_size = std::max(plan.work_size, best + it.bytes);
  }
  for (const auto& [v, whole] : part) {
    const auto [root, offset] = root_of(v);
    Placement& p = plan.activations[v];
    p.offset = plan.activations[root].offset + offset;
    p.bytes = AlignUp(*BytesOf(*v));
    p.part_of = whole.first;
  }
  for (auto& [v, owner] : alias) {
    Placement p = plan.activations[owner];
    p.alias_of = owner;
    p.bytes = AlignUp(*BytesOf(*v));
    plan.activations[v] = p;
  }
  return plan;
}

}  // namespace kiln::compiler
