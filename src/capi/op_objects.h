// Copyright 2026 The Kiln Authors
// SPDX-License-Identifier: Apache-2.0
//
// What the single-operator files share: a call read from its C arguments (descs, attributes,
// buffers) into the compiler's description, and the launch of a matched model on a stream.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "acl/acl.h"
#include "capi/op_registry.h"
#include "compiler/single_op.h"
#include "runtime/executor.h"

namespace kiln::capi {

// A live tensor desc as the compiler describes a tensor (acl_tensor_desc.cc); `host` tells
// whether it is placed in host memory. False when the handle is not live.
bool ReadOpTensorDesc(const aclTensorDesc* desc, compiler::OpTensorDesc* out, bool* host);
// Writes dtype, format, dims and (per dim) shape range into a live desc.
bool WriteOpTensorDesc(aclTensorDesc* desc, const compiler::OpTensorDesc& t);
// A live attribute set's values (acl_op_attr.cc); NULL is the empty set. False (recorded for
// `api`) when the handle is not live.
bool ReadOpAttrs(const char* api, const aclopAttr* attr,
                 std::map<std::string, compiler::OpAttr>* out);

// One call's description and buffers.
struct OpCall {
  compiler::SingleOpDesc desc;
  std::vector<bool> host_inputs;                   // placed in host memory (aclSetTensorPlaceMent)
  std::vector<runtime::IoBuffer> inputs, outputs;  // one per desc entry (empty for omitted)
};

// Reads opType, the descs and the attributes into `call->desc`; ACL_ERROR_INVALID_PARAM (recorded)
// for NULL or dead arguments, negative counts and (unless `dynamic_ok`: compiling) -1 dims.
aclError ReadOpDescs(const char* api, const char* opType, int numInputs,
                     const aclTensorDesc* const inputDesc[], int numOutputs,
                     const aclTensorDesc* const outputDesc[], const aclopAttr* attr, OpCall* call,
                     bool dynamic_ok = false);
// Reads the data buffers (inputs may be NULL for an omitted input; the count must match the
// descs' when they were read).
aclError ReadOpBuffers(const char* api, int numInputs, const aclDataBuffer* const inputs[],
                       int numOutputs, aclDataBuffer* const outputs[], OpCall* call);
// Whether every output desc is empty (a 0 dim): CANN returns success without running.
bool AllOutputsEmpty(const OpCall& call);
// Makes `desc`'s host-placed inputs (call.host_inputs) constants of their buffers' values (what
// CANN matches and compiles them as); whether any changed.
bool HostInputsAsConst(const OpCall& call, compiler::SingleOpDesc* desc);
// The matching model; an input placed in host memory that does not match as a device input is
// tried again as a constant holding its buffer's values (as CANN does).
Result<std::shared_ptr<SingleOpRegistry::Entry>> MatchOp(OpCall& call);
// Runs `entry` for `call` on `stream` (asynchronously); `refresh`, when given, gets the outputs'
// dims (a dynamic model makes this wait for the run).
aclError LaunchOp(const char* api, const std::shared_ptr<SingleOpRegistry::Entry>& entry,
                  const OpCall& call, aclrtStream stream, aclTensorDesc* const* refresh);

// What an aclopHandle names: the matched model and the call's descriptions.
struct OpHandle {
  std::shared_ptr<SingleOpRegistry::Entry> entry;
  OpCall call;
};
// Matches `call` (descs and attributes read) once and makes a handle for it (acl_op.cc);
// ACL_ERROR_API_NOT_SUPPORT for a host-placed input, as CANN.
aclError CreateOpHandle(const char* api, OpCall call, aclopHandle** handle);
// aclopExecWithHandle's work, for the BLAS calls too.
aclError ExecOpHandle(const char* api, aclopHandle* handle, int numInputs,
                      const aclDataBuffer* const inputs[], int numOutputs,
                      aclDataBuffer* const outputs[], aclrtStream stream);
// Reads, matches and launches one call (aclopExecute, aclopExecuteV2, aclopCast); `refresh`
// as LaunchOp.
aclError ExecuteOp(const char* api, OpCall& call, aclrtStream stream,
                   aclTensorDesc* const* refresh);

}  // namespace kiln::capi
