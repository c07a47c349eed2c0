// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// The CANN operator table: each CANN operator type a single-op call may name (Add, Conv2D,
// ArgMaxV2, GEMM, ...), its inputs and attributes as CANN's operator prototypes define them,
// and how it is built from Kiln's (ONNX) ops. docs/ops.md's "Single operators" section is
// generated from this table (tools/gen_ops_doc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "compiler/single_op.h"
#include "ir/graph.h"

namespace kiln::compiler {

// What a builder works with: the call's description, a value per input (null for an omitted
// optional input; a constant for a const one), typed attribute reads with the prototype's
// defaults, and node creation. The builder sets `outputs`, one value per declared output.
class CannOpContext {
 public:
  CannOpContext(ir::Graph& graph, const SingleOpDesc& desc, std::vector<ir::Value*> inputs)
      : graph_(graph), desc_(desc), inputs_(std::move(inputs)) {}

  const SingleOpDesc& desc() const { return desc_; }
  ir::Graph& graph() { return graph_; }
  size_t num_inputs() const { return inputs_.size(); }
  // Input `i`; kInvalidParam naming it when the call has no such input or leaves it out.
  Result<ir::Value*> In(size_t i, const char* name);
  // Input `i`, or null when the call has fewer inputs or leaves it out (an optional input).
  ir::Value* OptionalIn(size_t i) const;
  // Input `i`'s element type (kUndefined when absent).
  ir::DataType InType(size_t i) const;
  // Input `i`'s values, which must be constant (is_const in the JSON, aclSetTensorConst).
  Result<std::vector<int64_t>> ConstInts(size_t i, const char* name);
  // Output `i`'s declared element type and format.
  ir::DataType OutType(size_t i) const;
  int32_t OutFormat(size_t i) const;

  // Attribute reads: the value when the call sets it with this kind; `dflt` when it is not
  // set; kOpAttrNotMatch when it is set with another kind or is required (no default) and
  // missing.
  Result<bool> Bool(const char* name, std::optional<bool> dflt = std::nullopt);
  Result<int64_t> Int(const char* name, std::optional<int64_t> dflt = std::nullopt);
  Result<float> Float(const char* name, std::optional<float> dflt = std::nullopt);
  Result<std::string> String(const char* name, std::optional<std::string> dflt = std::nullopt);
  Result<std::vector<int64_t>> Ints(const char* name,
                                    std::optional<std::vector<int64_t>> dflt = std::nullopt);
  // A data_type attribute (or an int one, which older prototypes used) as a Kiln type.
  Result<ir::DataType> Type(const char* name, std::optional<ir::DataType> dflt = std::nullopt);

  // Sets `outputs` to `v` (an operator with one output).
  Status Output(ir::Value* v) {
    outputs = {v};
    return Status::Ok();
  }
  // Appends an ONNX node (opset kOpset) and returns its outputs.
  Result<std::vector<ir::Value*>> Nodes(const std::string& op, std::vector<ir::Value*> inputs,
                                        ir::AttrMap attrs = {}, size_t num_outputs = 1);
  Result<ir::Value*> Node(const std::string& op, std::vector<ir::Value*> inputs,
                          ir::AttrMap attrs = {});
  // A constant value.
  ir::Value* Const(ir::Tensor t);
  ir::Value* Int64s(const std::vector<int64_t>& v);
  // A scalar of `dtype` (float32 for the types without a case) holding `v`, which must be
  // exact in a double (integers beyond 2^53 go through Int64s).
  ir::Value* Scalar(ir::DataType dtype, double v);
  // x transposed by `perm` (x itself for the identity).
  Result<ir::Value*> Transpose(ir::Value* x, const std::vector<int64_t>& perm);
  // Rank of input `i` as declared (-1 unknown rank).
  int64_t InRank(size_t i) const;
  // kInvalidParam "<op>: <message>".
  template <typename... Args>
  Status Fail(const Args&... args) const {
    return Error(code::kInvalidParam, desc_.op_type, ": ", args...);
  }

  std::vector<ir::Value*> outputs;
  static constexpr int kOpset = 18;

 private:
  Result<const OpAttr*> Find(const char* name, OpAttr::Kind kind, bool has_default);
  ir::Graph& graph_;
  const SingleOpDesc& desc_;
  std::vector<ir::Value*> inputs_;
  int next_node_ = 0;
};

struct CannOp {
  const char* type;    // CANN's operator type
  const char* inputs;  // "x1, x2 -> y" ("?" marks an optional input)
  const char* attrs;   // "dst_type int (required), truncate bool"
  const char* kiln;    // what it runs as: "Add", "ArgMax + Cast", ...
  // Builds the operator; `onnx` is the ONNX op a builder shared by several types makes.
  Status (*build)(CannOpContext& ctx, const char* onnx);
  const char* onnx = nullptr;
};

// Every operator, sorted by type.
const std::vector<CannOp>& CannOps();
// The operator, or null when Kiln has none of this type.
const CannOp* FindCannOp(const std::string& type);

}  // namespace kiln::compiler
