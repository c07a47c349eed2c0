// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What a node's arithmetic costs: the floating-point (or integer) operations it performs, for
// the profiler's FLOPs, GFLOP/s and % of peak columns. The rule is prepared once per node at
// load from its NodeDef (the attributes it needs, such as a pool's window) and evaluated per
// execution from the actual dims, so dynamic shapes are counted right. Counts follow the usual
// convention: a multiply-add is 2, a transcendental function 1; normalisations and softmax
// count their passes. Ops that only move data count 0; an op whose cost is not modelled counts
// as unknown (reported empty, never as 0).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "kernels/kernel.h"

namespace kiln::kernels {

struct NodeCost {
  enum class Kind : uint8_t {
    kUnknown,        // not modelled
    kNone,           // data movement, shape and control ops: 0
    kPerOutput,      // per_element × output 0's elements
    kPerInput,       // per_element × input 0's elements
    kWindow,         // per output element: window elements (pooling)
    kConv,           // 2 × |Y| × |W| / W.dims[0]  (+ extra per output element)
    kConvTranspose,  // 2 × |X| × |W| / W.dims[0]
    kMatMul,         // 2 × |Y| × K, K = A's last dim
    kGemm,           // 2 × |Y| × K, K = |A| / Y.dims[0]
    kRecurrent,      // 2 × steps × batch × (|W| + |R|)
    kAttention,      // Q·Kᵀ, softmax, ·V
  };
  Kind kind = Kind::kUnknown;
  double per_element = 0;   // kPerOutput / kPerInput; for kConv/kGemm/kMatMul the epilogue's
  int64_t window = 1;       // kWindow
  size_t weight_input = 1;  // kConv: W's input (3 for QLinearConv and FusedQLinearConv)
  int64_t heads = 0;        // kAttention: q_num_heads for 3-D inputs (0: 4-D inputs)
  bool packed_qkv = false;  // kAttention: Q, K and V side by side in input 0 (PackedQkvAttention)
  // kPerOutput / kPerInput: e^x, log x, tanh x ... computed per element (Exp, Sigmoid, Softmax
  // ...). They count as one operation each in Flops, as profiles count them, and as
  // kTranscendentalWork each in Work, which stands for a kernel's time.
  double transcendentals = 0;
};

// What one e^x (log x, tanh x ...) weighs in Work: Kiln's vectorised e^x is a range reduction,
// a degree-7 polynomial and two scalings, about 16 operations (backends/cpu/kernels/vec_math.h).
inline constexpr double kTranscendentalWork = 16;

// The cost rule for `def`'s op (never fails: an op without a rule is kUnknown).
NodeCost PrepareCost(const NodeDef& def);

// The operations of one run of a node with `inputs` (null for omitted ones) and `outputs`;
// nullopt when the cost is unknown or the tensors do not have the dims the rule expects.
std::optional<uint64_t> Flops(const NodeCost& cost, const std::vector<const TensorView*>& inputs,
                              const std::vector<const TensorView*>& outputs);

// A run's work, by which a device decides how many threads a kernel gets
// (hal::Execution::BeforeKernel): its arithmetic and the memory it moves, apart, since what a
// byte weighs against an operation is the device's to say.
struct WorkEstimate {
  // Flops, plus kTranscendentalWork - 1 more per transcendental.
  uint64_t ops = 0;
  // The bytes of the outputs given (null ones left out) and, for an op that computes (not
  // kNone), of its inputs given, so that a memory-bound kernel (a matrix-vector product
  // streaming its weights) counts what it reads; an op that only moves data reads what it
  // writes (a copy, a transpose, a gather's rows: twice its outputs), never a whole input (a
  // Gather's table, a Slice's source).
  uint64_t bytes = 0;
};
// nullopt when Flops is.
std::optional<WorkEstimate> EstimateWork(const NodeCost& cost,
                                         const std::vector<const TensorView*>& inputs,
                                         const std::vector<const TensorView*>& outputs);

}  // namespace kiln::kernels
