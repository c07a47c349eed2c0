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

Result<MemoryPlan> PlanMemory(const ir::Graph& graph) {
  MemoryPlan plan;
  // Weights: one after another in graph value order, each aligned.
  for (const auto& v : graph.values()) {
    if (const ir::Tensor* t = v->constant()) {
      Placement p{plan.weight_size, t->bytes(), nullptr, false};
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
    last[owner] = std::max(last[owner], last[out]);
  }
  std::vector<Interval> intervals;
  for (auto& [v, f] : first) {
    auto bytes = BytesOf(*v);
    if (!bytes) {
      plan.activations[v] = Placement{0, 0, nullptr, true};
      continue;
    }
    plan.naive_size += AlignUp(*bytes);
    if (alias.count(v)) continue;
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
    plan.activations[it.value] = Placement{best, it.bytes, nullptr, false};
    plan.work_size = std::max(plan.work_size, best + it.bytes);
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
